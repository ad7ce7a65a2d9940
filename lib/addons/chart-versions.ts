/** Pinned chart versions of the add-ons whose chart line follows the Kubernetes minor, and the rule every chart version keeps. */
import { CHART_VERSION_EXPECTATION, isExactChartVersion } from '../config/chart-version';

/** A chart version that does not depend on the Kubernetes minor. */
export const fixed = (version: string) => (): string => version;

// the tables live in config, where validate checks a cluster's minor against them
export { CINDER_CSI_CHART_VERSIONS, OCCM_CHART_VERSIONS } from '../config/cloud-provider-charts';

/** A chart version per Kubernetes minor, from one of the tables above. */
export function perMinor(table: Readonly<Record<string, string>>, what: string) {
  return (minor: string): string => {
    const v = table[minor];
    if (!v) {
      throw new Error(`expected a pinned ${what} chart for Kubernetes ${minor} (pinned: ${Object.keys(table).join(', ')}); set the add-on's version in the environment file`);
    }
    return v;
  };
}

/**
 * `version` when it names one release; the schema refuses anything else already, this keeps
 * specs built in code (or a catalogue edit) from unpinning a chart with a range or `latest`.
 */
export function exactChartVersion(chart: string, version: string): string {
  if (!isExactChartVersion(version)) {
    const shown = version.length > 60 ? `${JSON.stringify(version.slice(0, 57))}... (${version.length} characters)` : JSON.stringify(version);
    throw new Error(`chart ${chart}: ${CHART_VERSION_EXPECTATION}, found ${shown}`);
  }
  return version;
}
