/**
 * The addon-charts suite's control for the Gateway API CRD chart the catalogue pins: a
 * HelmChartProxy of it (the product refuses to emit one, config/cross-checks.ts), and the line of
 * CAAPH's log that says why its install fails (Helm's release Secret over 1 MiB).
 */
import * as fs from 'fs';
import { ADDON_CATALOGUE } from '../../../lib/addons';
import { waitFor } from '../support/workload-kube';

export const GATEWAY_CONTROL_RELEASE = 'control-gateway-crds';

/** A HelmChartProxy of the pinned gateway-crds-helm, shaped after `template` (another proxy of the suite). */
export function gatewayCrdControl(template: any, cluster: string, pinned: string): any {
  const chart = ADDON_CATALOGUE['gateway-api-crds'];
  const release = GATEWAY_CONTROL_RELEASE;
  return {
    ...template,
    metadata: { ...template.metadata, name: `${cluster}-${release}` },
    spec: { ...template.spec, chartName: chart.chartName, version: pinned, releaseName: release, namespace: release, valuesTemplate: JSON.stringify(chart.values({} as never)) },
  };
}

/**
 * Waits for CAAPH's log to say Helm could not create the release's Secret: "data: Too long".
 * CAAPH logs it once; later passes find the release pending-install and report only that.
 */
export async function waitForReleaseSecretTooLong(caaphLog: string): Promise<void> {
  const tooLong = `Secret \\"sh.helm.release.v1.${GATEWAY_CONTROL_RELEASE}.v1\\" is invalid: data: Too long`;
  await waitFor(`CAAPH's log (${caaphLog}) to name the release Secret too long`, 180_000, async () => (fs.existsSync(caaphLog) && fs.readFileSync(caaphLog, 'utf8').includes(tooLong) ? true : undefined), 1_000);
}
