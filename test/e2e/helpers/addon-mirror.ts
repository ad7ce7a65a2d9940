/**
 * The add-ons' sources of a booted-cluster suite, as an air-gapped site has them: the catalogue's
 * charts in a private OCI mirror with its own CA (scripts/local-charts, one instance per lane, as
 * the addon-charts e2e runs it) named by the environment's `chartRepository`, and the images
 * built here (scripts/local-images/build) in the site's registry mirror, which the nodes already
 * pull through the environment's `registryMirrors`.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { chartBuildReport } from './addon-charts';
import { LOCAL_CAPI_STATE } from '../support/lane-paths';
import { freePort } from '../support/local-process';
import { PhaseTimer } from '../support/phase-timer';
import { ROOT } from '../support/workload-process';
import { VariantChanges } from '../support/workload-project';

/** Beside the lane's controllers: each lane runs its own chart mirror (free ports). */
const CHARTS_STATE = path.join(path.dirname(LOCAL_CAPI_STATE), 'local-charts');

function script(name: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  return spawnSync(path.join(ROOT, 'scripts', name), args, { encoding: 'utf8', env, timeout: timeoutMs });
}

/** One image built here: the name the chart asks for and the module it was built from. */
export interface BuiltImage {
  readonly name: string;
  readonly image: string;
  readonly source: string;
}

export interface AddonMirror {
  /** The environment's chartRepository and the chart versions the mirror holds (where they differ from the catalogue's pins). */
  readonly variant: Pick<VariantChanges, 'chartRepository' | 'addonVersions'>;
  readonly images: readonly BuiltImage[];
  readonly url: string;
  stop(): void;
}

/**
 * Chart versions the suite installs from the mirror, by chart, the add-on's key under `addons:`:
 * the versions the mirror holds (metrics-server: the catalogue's pin, 3.13.1; OCCM and Cinder CSI:
 * it pins 2.36.4, the proxy serves k8s.io/cloud-provider-openstack v1.36.0 only, whose tree holds
 * charts 2.36.0; cert-manager: it pins v1.19.4, whose images cannot be built here, the mirror holds
 * v1.11.5, whose images scripts/local-vm/build-cert-manager builds).
 * A version alone turns no add-on on.
 */
const MIRRORED_VERSIONS: Readonly<Record<string, string>> = {
  'metrics-server': 'metricsServer',
  'openstack-cloud-controller-manager': 'openstackCloudControllerManager',
  'openstack-cinder-csi': 'cinderCsi',
  'cert-manager': 'certManager',
};

/** Builds the named add-on images (cached) into the site's registry and starts this lane's chart mirror. */
export async function startAddonMirror(timer: PhaseTimer, imageNames: readonly string[]): Promise<AddonMirror> {
  const { log, timed } = timer;
  const built = await timed('add-on images (scripts/local-images/build; cached by version)', async () => script('local-images/build', [...imageNames], process.env, 60 * 60_000));
  if (built.status !== 0) throw new Error(`scripts/local-images/build failed (${built.status}):\n${built.stderr.slice(-3000)}`);
  const images = built.stdout.split('\n').filter(Boolean).map((l) => {
    const [name, image, source] = l.split('\t');
    return { name, image, source };
  });
  for (const i of images) log(`image ${i.image} built here from ${i.source}`);

  const env = { ...process.env, LOCAL_CHARTS_STATE: CHARTS_STATE, LOCAL_CHARTS_OCI_PORT: String(await freePort()), LOCAL_CHARTS_HTTPS_PORT: String(await freePort()) };
  const started = await timed('chart mirror start (OCI registry, charts pushed)', async () => script('local-charts/start', [], env, 300_000));
  if (started.status !== 0) throw new Error(`scripts/local-charts/start failed (${started.status}):\n${started.stderr.slice(-3000)}`);
  const out = Object.fromEntries(started.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const addonVersions: Record<string, string> = {};
  for (const row of chartBuildReport()) {
    const key = MIRRORED_VERSIONS[row.chart];
    if (key && row.result.startsWith('packaged')) addonVersions[key] = row.version;
  }
  log(`chart mirror ${out.LOCAL_CHARTS_OCI_URL}; versions from it: ${JSON.stringify(addonVersions)}`);
  return {
    variant: { chartRepository: { url: out.LOCAL_CHARTS_OCI_URL, caCertificateFile: out.LOCAL_CHARTS_CA }, addonVersions },
    images,
    url: out.LOCAL_CHARTS_OCI_URL,
    stop: () => {
      const r = script('local-charts/stop', [], { ...process.env, LOCAL_CHARTS_STATE: CHARTS_STATE }, 60_000);
      if (r.status !== 0) log(`scripts/local-charts/stop failed: ${r.stderr.slice(-1000)}`);
    },
  };
}
