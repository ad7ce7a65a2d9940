/**
 * A Helm chart version as an add-on override (`addons.<name>.version`): one exact release.
 *
 * Helm reads the version as a constraint: `""` and `*` mean the newest release, `latest`, `>=0.0.0`,
 * `~1.2` or a partial `1.18` a range, so any of them would silently unpin the chart and a later
 * reconcile could install another release. Only a full SemVer version names one release. A leading
 * `v` is accepted because charts publish that form too (the catalogue pins tigera-operator,
 * cert-manager and the Gateway API CRDs as `v…`); Helm finds either form.
 */
import { z } from 'zod';

const NUMBER = '(0|[1-9][0-9]*)';
const PRERELEASE_PART = '(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)';
const BUILD_PART = '[0-9A-Za-z-]+';
/** SemVer 2.0 (https://semver.org), with an optional leading `v`. */
const EXACT_VERSION = new RegExp(`^v?${NUMBER}\\.${NUMBER}\\.${NUMBER}(-${PRERELEASE_PART}(\\.${PRERELEASE_PART})*)?(\\+${BUILD_PART}(\\.${BUILD_PART})*)?$`);

/** Longer than any real chart version; bounds the work on hostile input. */
const MAX_LENGTH = 128;

export const CHART_VERSION_EXPECTATION =
  'expected an exact chart version like 1.18.5 or v1.19.4 (SemVer, optional leading "v"; "", "*", "latest", ranges and partial versions let Helm pick another release)';

export function isExactChartVersion(version: string): boolean {
  return version.length <= MAX_LENGTH && EXACT_VERSION.test(version);
}

export const chartVersion = () =>
  z
    .string()
    .refine(isExactChartVersion, { message: CHART_VERSION_EXPECTATION })
    .meta({ pattern: EXACT_VERSION.source, maxLength: MAX_LENGTH, examples: ['1.18.5', 'v1.19.4'] });
