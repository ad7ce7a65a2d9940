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

/**
 * The control's HelmReleaseProxy once CAAPH has written its Helm status (up to 2 min), else as last
 * read: status.status can come a pass after the log line and the conditions (a warm CI run read the
 * conditions saying pending-install while status.status was not there yet).
 */
export async function withHelmStatus(read: () => Promise<any>): Promise<any> {
  let r: any;
  await waitFor('the control release\'s Helm status on its HelmReleaseProxy', 120_000, async () => {
    r = await read();
    return r?.status?.status ? r : undefined;
  }, 1_000).catch(() => undefined);
  return r;
}
