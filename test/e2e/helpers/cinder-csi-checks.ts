/**
 * Cinder CSI on a booted workload cluster (issue 36): CAAPH installs the product's Cinder CSI chart
 * from the private chart mirror with the product's values, its images (built here,
 * scripts/local-images) come through the nodes' registry mirror, the controller plugin runs with
 * the cloud.conf the product renders (`cloud-csi.conf`: the cluster's own application credential),
 * and a PersistentVolumeClaim on the product's default StorageClass gets a Cinder volume of the
 * local OpenStack: the volume exists in Cinder with the claim's size, the PV's name and the
 * metadata Cinder CSI writes (the cluster name the product's cleanup deletes by), and the claim is
 * Bound.
 *
 * Where it ends: attaching the volume to a node (csi-attacher → Nova's volume attachment, then the
 * node plugin's mount) goes past the local cloud's fake hypervisor and volume driver (volumes exist
 * only in Cinder's database), and the node plugin lacks node-driver-registrar (its Go module is not
 * served, no image is built): the node plugin pods' state is listed, not asserted. The chart's
 * StorageClasses bind Immediately (no volumeBindingMode), so no pod is needed to provision.
 */
import { parse } from 'yaml';
import { CINDER_CSI_DRIVER } from '../../../lib/addons/catalogue';
import { CSI_CLUSTER_METADATA_KEY } from '../../../lib/runtime/cleanup/matchers';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, waitFor } from '../support/workload-kube';
import { OpenStackSession } from '../support/workload-openstack';
import { conditionText, deployed, proxyOf } from './addon-charts';
import { mirroredManifest } from './registry-mirror';

const HELM = 'addons.cluster.x-k8s.io/v1alpha1';
const ADDON_LABEL = 'capi-openstack-cdktf/addon';
const ADDON = 'cinder-csi';
/** The chart's names: `<chart name>-controllerplugin` / `-nodeplugin`, pods labelled `app: <chart name>`. */
const CHART = 'openstack-cinder-csi';
const CONTROLLER = `${CHART}-controllerplugin`;
const NODE_PLUGIN = `${CHART}-nodeplugin`;
const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const CLAIM = { name: 'e2e-cinder-claim', namespace: 'default', sizeGi: 1 };
/** Cinder CSI's topology key: the availability zone (the driver's NodeGetInfo, and its CreateVolume's accessibility requirements). */
const ZONE_KEY = `topology.${CINDER_CSI_DRIVER}/zone`;

/** The controller plugin's containers and the scripts/local-images image each runs (the node plugin's node-driver-registrar is not built). */
const CONTROLLER_IMAGES: Readonly<Record<string, string>> = {
  'csi-attacher': 'csi-attacher',
  'csi-provisioner': 'csi-provisioner',
  'csi-snapshotter': 'csi-snapshotter',
  'csi-resizer': 'csi-resizer',
  'liveness-probe': 'livenessprobe',
  'cinder-csi-plugin': 'cinder-csi-plugin',
};
/** What provisioning needs: the plugin, the provisioner, and the liveness probe the plugin's own probe asks. */
const PROVISIONING_IMAGES: readonly string[] = ['cinder-csi-plugin', 'csi-provisioner', 'livenessprobe'];
/**
 * What the suite has scripts/local-images/build make: what provisioning needs (about 3 minutes of
 * cold Go builds on 2 cores); with LOCAL_IMAGES_CINDER_CSI=all the attacher, resizer and snapshotter
 * too (about 15 minutes more, which .ci/run does not spend: those containers must then be waiting on
 * their image, and are listed).
 */
export const CINDER_CSI_IMAGE_NAMES: readonly string[] = process.env.LOCAL_IMAGES_CINDER_CSI === 'all' ? Object.values(CONTROLLER_IMAGES) : PROVISIONING_IMAGES;

export interface CinderCsiCheck {
  readonly management: KubeClient;
  readonly namespace: string;
  readonly workload: () => Promise<KubeClient>;
  readonly openstack: OpenStackSession;
  /** The images built here (scripts/local-images/build's lines): the chart's defaults should ask for them. */
  readonly images: readonly { readonly name: string; readonly image: string }[];
  readonly log: (line: string) => void;
}

/** The Cinder volume the claim got, as Cinder lists it. */
export interface CinderVolume {
  readonly id: string;
  readonly name: string;
  readonly sizeGiB: number;
  readonly status: string;
  readonly zone: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** One container's state as the kubelet reports it (`running`, `waiting ImagePullBackOff`, `terminated Error (exit 1)`). */
function containerState(s: any): string {
  if (s.state?.running) return `running${s.ready ? ' ready' : ''}${s.restartCount ? ` (${s.restartCount} restarts)` : ''}`;
  if (s.state?.waiting) return `waiting ${s.state.waiting.reason ?? ''}${s.restartCount ? ` (${s.restartCount} restarts)` : ''}`;
  if (s.state?.terminated) return `terminated ${s.state.terminated.reason ?? ''} (exit ${s.state.terminated.exitCode})`;
  return 'unknown';
}

function podLine(p: any): string {
  const containers = ((p.status?.containerStatuses ?? []) as any[]).map((s) => `${s.name}=${containerState(s)}`);
  return `${p.metadata.name} on ${p.spec.nodeName ?? '(unscheduled)'} ${p.status?.phase}: ${containers.join(', ') || 'no container status'}`;
}

/** Whether the nodes' registry mirror (the site's registry) has the image. */
async function mirrorServes(image: string): Promise<boolean> {
  return (await mirroredManifest(image)).status === 200;
}

const PULL_WAIT = /^(ErrImagePull|ImagePullBackOff)$/;
/** Every container of the pod as expected: running when its image was built here, else waiting on its pull. */
const asExpected = (p: any, built: ReadonlySet<string>): boolean =>
  ((p.status?.containerStatuses ?? []) as any[]).length === p.spec.containers.length &&
  (p.status.containerStatuses as any[]).every((s) => (built.has(s.name) ? s.state?.running : PULL_WAIT.test(s.state?.waiting?.reason ?? '')));

const seconds = (from: number, to: number) => Math.round((to - from) / 100) / 10;

/** The release deployed by CAAPH and every container of the controller pod running, with the images built here; the chart's pods listed. */
async function expectControllerRunning(o: CinderCsiCheck): Promise<{ clusterName: string; releaseDeployedS: number; controllerRunningS: number; pods: string[]; notBuilt: string[] }> {
  const { management, log } = o;
  const hrps = async () => ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmreleaseproxies`), 'listing HelmReleaseProxies', [200]).items as any[];
  const hcps = ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmchartproxies`), 'listing HelmChartProxies', [200]).items as any[];
  const hcp = hcps.find((p) => p.metadata.labels?.[ADDON_LABEL] === ADDON);
  if (!hcp) throw new Error(`no ${ADDON} HelmChartProxy in ${o.namespace} (label ${ADDON_LABEL}): the product's catalogue turns it on by default`);
  // the name Cinder CSI tags its volumes with, as the product's values give it (`clusterID`)
  const clusterName = String(parse(hcp.spec.valuesTemplate).clusterID ?? '');
  if (!clusterName) throw new Error(`the ${ADDON} HelmChartProxy's values name no clusterID:\n${hcp.spec.valuesTemplate}`);

  const release = await waitFor('the Cinder CSI release deployed by CAAPH', 10 * 60_000, async () => (await hrps()).find((r) => proxyOf(r) === hcp.metadata.name && deployed(r)), 3_000).catch(async (e) => {
    const r = (await hrps()).find((x) => proxyOf(x) === hcp.metadata.name);
    throw new Error(`${(e as Error).message}; its HelmReleaseProxy: ${r ? `${r.spec.chartName}@${r.spec.version} ${r.status?.status ?? 'no status'}: ${conditionText(r)}` : 'none'}`);
  });
  const created = Date.parse(release.metadata.creationTimestamp);
  const readyCondition = (release.status.conditions ?? []).find((c: any) => c.type === 'Ready');
  const releaseDeployedS = seconds(created, Date.parse(readyCondition?.lastTransitionTime ?? new Date().toISOString()));
  log(`Cinder CSI release ${release.spec.chartName}@${release.spec.version} deployed ${releaseDeployedS}s after its HelmReleaseProxy was created`);

  const w = await o.workload();
  const deployment = ok(await w.get(`/apis/apps/v1/namespaces/kube-system/deployments/${CONTROLLER}`), `reading the ${CONTROLLER} Deployment`, [200]);
  const containers = deployment.spec.template.spec.containers as any[];
  expect(containers.map((c) => c.name).sort()).toEqual(Object.keys(CONTROLLER_IMAGES).sort());
  const builtFor = Object.entries(CONTROLLER_IMAGES).flatMap(([container, name]) => o.images.filter((i) => i.name === name).map((i) => [container, i.image] as const));
  // the chart asks for exactly the images built for this run, under their names
  expect(builtFor.map(([container]) => container).sort()).toEqual(Object.entries(CONTROLLER_IMAGES).filter(([, name]) => CINDER_CSI_IMAGE_NAMES.includes(name)).map(([c]) => c).sort());
  expect(Object.fromEntries(containers.filter((c) => builtFor.some(([b]) => b === c.name)).map((c) => [c.name, c.image]))).toEqual(Object.fromEntries(builtFor));
  // what the nodes' registry mirror serves runs (an earlier run may have built more); the rest waits on its pull
  const built = new Set<string>();
  for (const c of containers) if (await mirrorServes(c.image)) built.add(c.name);
  for (const [container] of builtFor) expect({ container, served: built.has(container) }).toEqual({ container, served: true });

  const chartPods = async () => ok(await w.get(`/api/v1/namespaces/kube-system/pods?labelSelector=app%3D${CHART}`), 'listing the chart\'s pods', [200]).items as any[];
  let pods: any[] = [];
  const running = await waitFor('the Cinder CSI controller pod\'s containers running (those whose image is not built: waiting on the pull)', 10 * 60_000, async () => {
    pods = await chartPods();
    const controllers = pods.filter((p) => p.metadata.labels?.component === 'controllerplugin');
    return controllers.length === deployment.spec.replicas && controllers.every((p) => asExpected(p, built)) ? Date.now() : undefined;
  }, 3_000).catch((e) => {
    throw new Error(`${(e as Error).message}; the chart's pods:\n${pods.map(podLine).join('\n')}`);
  });
  const controllerRunningS = seconds(created, running);
  // the node plugin's pods, whatever their state (node-driver-registrar is not built here)
  const nodePlugin = ok(await w.get(`/apis/apps/v1/namespaces/kube-system/daemonsets/${NODE_PLUGIN}`), `reading the ${NODE_PLUGIN} DaemonSet`, [200]);
  const podLines = (await chartPods()).map(podLine).sort();
  log(`Cinder CSI pods (node plugin DaemonSet: ${nodePlugin.status.numberReady}/${nodePlugin.status.desiredNumberScheduled} ready):\n  ${podLines.join('\n  ')}`);

  const notBuilt = containers.map((c) => c.name as string).filter((c) => !built.has(c));
  return { clusterName, releaseDeployedS, controllerRunningS, pods: podLines, notBuilt };
}

/** Creates a 1 GiB ReadWriteOnce claim (on the default StorageClass without `storageClass`). */
async function createClaim(w: KubeClient, name: string, storageClass?: string): Promise<any> {
  const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${CLAIM.sizeGi}Gi` } }, ...(storageClass ? { storageClassName: storageClass } : {}) };
  return ok(await w.request('POST', `/api/v1/namespaces/${CLAIM.namespace}/persistentvolumeclaims`, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec }), `creating the PersistentVolumeClaim ${name}`, [201]);
}

/** The claim once Bound, or (`stuck`, when `untilFailure`) the provisioner's ProvisioningFailed message when that comes first. */
async function boundOrStuck(w: KubeClient, name: string, limitMs: number, untilFailure: boolean): Promise<{ claim?: any; at: number; stuck?: string }> {
  let last: any;
  let events: any[] = [];
  return waitFor(`the claim ${name} Bound`, limitMs, async () => {
    last = ok(await w.get(`/api/v1/namespaces/${CLAIM.namespace}/persistentvolumeclaims/${name}`), `reading the claim ${name}`, [200]);
    if (last.status?.phase === 'Bound') return { claim: last, at: Date.now() };
    events = ok(await w.get(`/api/v1/namespaces/${CLAIM.namespace}/events?fieldSelector=involvedObject.name%3D${name}`), 'listing the claim\'s events', [200]).items as any[];
    const failed = events.filter((x) => x.reason === 'ProvisioningFailed').pop();
    return failed && untilFailure ? { at: Date.now(), stuck: failed.message as string } : undefined;
  }, 1_000).catch((e) => {
    throw new Error(`${(e as Error).message}; the claim: ${last?.status?.phase}; its events: ${events.map((x) => `${x.reason}: ${x.message}`).join(' | ')}`);
  });
}

/**
 * The claim on the product's default StorageClass, and where it stops here: the provisioner asks
 * for the topology of the nodes that registered the driver (the chart runs it with
 * `Topology=true`), which no node has without node-driver-registrar. A test StorageClass, the
 * default's copy with the Cinder availability zone as allowedTopologies (what a registered node's
 * topology would give), then stands in for the missing registration; its claim is the one checked.
 */
async function provisionedClaim(o: CinderCsiCheck, w: KubeClient, defaultClass: any, findings: string[]): Promise<{ claim: any; createdAt: number; boundAt: number; zone?: string }> {
  const first = await createClaim(w, CLAIM.name);
  expect(first.spec.storageClassName).toBe(defaultClass.metadata.name);
  const onDefault = await boundOrStuck(w, CLAIM.name, 3 * 60_000, true);
  if (onDefault.claim) return { claim: onDefault.claim, createdAt: Date.parse(first.metadata.creationTimestamp), boundAt: onDefault.at };
  const csiNodes = (ok(await w.get('/apis/storage.k8s.io/v1/csinodes'), 'listing CSINodes', [200]).items as any[]).filter((n) => (n.spec.drivers ?? []).some((d: any) => d.name === CINDER_CSI_DRIVER));
  findings.push(`Cinder CSI: the claim on the default StorageClass ${defaultClass.metadata.name} stays Pending: "${onDefault.stuck}" (${csiNodes.length} nodes registered the driver: no node-driver-registrar image)`);
  expect({ stuck: /no available topology found/.test(onDefault.stuck ?? ''), registered: csiNodes.length }).toEqual({ stuck: true, registered: 0 });
  ok(await w.request('DELETE', `/api/v1/namespaces/${CLAIM.namespace}/persistentvolumeclaims/${CLAIM.name}`), `deleting the claim ${CLAIM.name}`, [200, 202]);

  const zones = ((await o.openstack.get('volumev3', '/os-availability-zone')).availabilityZoneInfo as any[]).filter((z) => z.zoneState?.available).map((z) => z.zoneName as string);
  expect(zones.length).toBeGreaterThan(0);
  const { metadata, provisioner, parameters, reclaimPolicy, allowVolumeExpansion } = defaultClass;
  const testClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `${metadata.name}-${zones[0]}` }, provisioner, parameters, reclaimPolicy, allowVolumeExpansion, volumeBindingMode: 'Immediate', allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE_KEY, values: [zones[0]] }] }] };
  ok(await w.request('POST', '/apis/storage.k8s.io/v1/storageclasses', testClass), `creating the StorageClass ${testClass.metadata.name}`, [201]);
  const second = await createClaim(w, `${CLAIM.name}-zone`, testClass.metadata.name);
  const bound = await boundOrStuck(w, second.metadata.name, 5 * 60_000, false);
  return { claim: bound.claim, createdAt: Date.parse(second.metadata.creationTimestamp), boundAt: bound.at, zone: zones[0] };
}

/** The Cinder release and controller running, then a claim provisioned in Cinder and Bound; its timings go into `timings`. */
export async function expectCinderCsiProvisions(o: CinderCsiCheck, timings: Record<string, number>, findings: string[]): Promise<{ cinderCsiPods: readonly string[]; cinderCsiVolume: CinderVolume }> {
  const { clusterName, releaseDeployedS, controllerRunningS, pods, notBuilt } = await expectControllerRunning(o);
  if (notBuilt.length > 0) findings.push(`Cinder CSI: controller containers waiting on images not built for this run (LOCAL_IMAGES_CINDER_CSI=all builds them): ${notBuilt.join(', ')}`);
  const w = await o.workload();

  // the product's default StorageClass: the chart's csi-cinder-sc-delete (values storageClass.delete.isDefault)
  const classes = ok(await w.get('/apis/storage.k8s.io/v1/storageclasses'), 'listing StorageClasses', [200]).items as any[];
  const defaults = classes.filter((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true');
  expect(defaults.map((c) => ({ name: c.metadata.name, provisioner: c.provisioner, reclaimPolicy: c.reclaimPolicy }))).toEqual([{ name: 'csi-cinder-sc-delete', provisioner: CINDER_CSI_DRIVER, reclaimPolicy: 'Delete' }]);
  // Immediate binding: the claim alone makes the volume (WaitForFirstConsumer would wait for a pod, whose attach the fake hypervisor cannot do)
  expect(defaults[0].volumeBindingMode).toBe('Immediate');

  const { claim, createdAt, boundAt, zone } = await provisionedClaim(o, w, defaults[0], findings);
  const claimToBoundS = seconds(createdAt, boundAt);
  const pv = ok(await w.get(`/api/v1/persistentvolumes/${claim.spec.volumeName}`), `reading the PV ${claim.spec.volumeName}`, [200]);
  const claimToVolumeS = seconds(createdAt, Date.parse(pv.metadata.creationTimestamp));
  const claimRef = `${CLAIM.namespace}/${claim.metadata.name}`;
  expect({ phase: pv.status.phase, driver: pv.spec.csi?.driver, capacity: pv.spec.capacity.storage, claim: `${pv.spec.claimRef?.namespace}/${pv.spec.claimRef?.name}` }).toEqual({ phase: 'Bound', driver: CINDER_CSI_DRIVER, capacity: `${CLAIM.sizeGi}Gi`, claim: claimRef });

  // the volume, as Cinder has it: the PV's handle is its id. The plugin's CreateVolume returns
  // without waiting for the volume to leave `creating` (it waits only after an expansion), so the
  // claim can be Bound first: on a loaded machine Cinder was seen still `creating` then.
  let v: any;
  await waitFor(`the Cinder volume ${pv.spec.csi.volumeHandle} out of 'creating'`, 3 * 60_000, async () => {
    v = (await o.openstack.get('volumev3', `/volumes/${pv.spec.csi.volumeHandle}`)).volume;
    return v.status === 'creating' ? undefined : v;
  }, 1_000).catch((e) => {
    throw new Error(`${(e as Error).message}; Cinder has it ${JSON.stringify(v?.status)}`);
  });
  const claimToAvailableS = seconds(createdAt, Date.now());
  const volume: CinderVolume = { id: v.id as string, name: v.name as string, sizeGiB: v.size as number, status: v.status as string, zone: v.availability_zone as string, metadata: v.metadata as Record<string, string> };
  o.log(`claim ${claimRef} Bound ${claimToBoundS}s after its creation (PV ${pv.metadata.name} made after ${claimToVolumeS}s; the volume out of 'creating' by ${claimToAvailableS}s); Cinder volume ${JSON.stringify(volume)}`);
  expect({ name: volume.name, sizeGiB: volume.sizeGiB, status: volume.status, zone: zone ? volume.zone : undefined }).toEqual({ name: pv.metadata.name, sizeGiB: CLAIM.sizeGi, status: 'available', zone });
  // Cinder CSI's own metadata: the cluster the product's cleanup matches, and (--extra-create-metadata) the claim and PV
  expect({
    cluster: volume.metadata[CSI_CLUSTER_METADATA_KEY],
    claim: `${volume.metadata['csi.storage.k8s.io/pvc/namespace']}/${volume.metadata['csi.storage.k8s.io/pvc/name']}`,
    pv: volume.metadata['csi.storage.k8s.io/pv/name'],
  }).toEqual({ cluster: clusterName, claim: claimRef, pv: pv.metadata.name });

  Object.assign(timings, { 'Cinder CSI: HelmReleaseProxy → release deployed': releaseDeployedS, 'Cinder CSI: HelmReleaseProxy → controller pod running': controllerRunningS, 'Cinder CSI: PVC → PV': claimToVolumeS, 'Cinder CSI: PVC → Bound': claimToBoundS, 'Cinder CSI: PVC → volume available': claimToAvailableS });
  return { cinderCsiPods: pods, cinderCsiVolume: volume };
}

/** After the destroy: the volume the suite's claim got (figures.cinderCsiVolume) is gone from Cinder (404), removed by the product's destroy-time cleanup. */
export async function expectVolumesGone(openstack: OpenStackSession, figures: { readonly cinderCsiVolume?: unknown }): Promise<void> {
  const ids = figures.cinderCsiVolume ? [(figures.cinderCsiVolume as CinderVolume).id] : [];
  const left: string[] = [];
  for (const id of ids) {
    const r = await openstack.request('GET', 'volumev3', `/volumes/${id}`);
    if (r.status !== 404) left.push(`${id}: HTTP ${r.status}${r.status === 200 ? ` ${JSON.stringify((r.body as any)?.volume?.status)}` : ''}`);
  }
  expect(left).toEqual([]);
}
