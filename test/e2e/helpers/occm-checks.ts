/**
 * The OpenStack cloud controller manager on a booted workload cluster (issue 36): CAAPH installs
 * the product's OCCM chart from the private chart mirror with the product's values, its image
 * (built here, scripts/local-images) comes through the nodes' registry mirror, and OCCM, with the
 * cloud.conf the product renders (the cluster's own application credential, `cloud.authUrl`),
 * initialises every Node against the local OpenStack: the providerID of its Nova server, the
 * fixed IPs of the server's Neutron ports as InternalIP, the flavor as instance type, and the
 * `node.cloudprovider.kubernetes.io/uninitialized` taint removed. Nothing else in the suite sets
 * addresses or removes that taint, and the kubelet (`--cloud-provider=external`) sets neither the
 * addresses nor the instance-type label.
 *
 * The nodes reach the local OpenStack only when it listens on an address of this machine besides
 * loopback (scripts/local-cloud, LOCAL_CLOUD_ADDRESS); `localCloudNodeAuthUrl` reads it.
 */
import * as fs from 'fs';
import * as path from 'path';
import { UNINITIALIZED_NODE_TAINT } from '../../../lib/config/cloud-controller-warning';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { LOCAL_CLOUD_STATE } from '../support/lane-paths';
import { ok, waitFor } from '../support/workload-kube';
import { OpenStackSession } from '../support/workload-openstack';
import { conditionText, deployed, proxyOf } from './addon-charts';

const HELM = 'addons.cluster.x-k8s.io/v1alpha1';
const ADDON_LABEL = 'capi-openstack-cdktf/addon';
const OCCM = 'openstack-cloud-controller-manager';
const INSTANCE_TYPE = 'node.kubernetes.io/instance-type';

/**
 * Keystone's URL as the node stand-ins reach it: the local cloud's API address (scripts/local-cloud/start
 * records it), which must not be loopback — on a node that is the node itself.
 */
export function localCloudNodeAuthUrl(state = LOCAL_CLOUD_STATE): string {
  const file = path.join(state, '.address');
  const address = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '127.0.0.1';
  if (address === '127.0.0.1') {
    throw new Error(`the local OpenStack listens on loopback only (${file}: ${fs.existsSync(file) ? address : 'missing'}), which the node stand-ins cannot reach: restart it with LOCAL_CLOUD_ADDRESS=172.30.249.1 scripts/local-cloud/start (.ci/run does)`);
  }
  return `http://${address}:5000/v3`;
}

/** One server the cluster's Node should be initialised from. */
export interface ServerOfNode {
  readonly serverName: string;
  readonly serverId: string;
}

export interface OccmCheck {
  readonly management: KubeClient;
  readonly namespace: string;
  readonly workload: () => Promise<KubeClient>;
  readonly servers: () => readonly ServerOfNode[];
  readonly openstack: OpenStackSession;
  /** The image (name:tag) built here that the chart's default values should ask for. */
  readonly image: string;
  /** A command on the control-plane node (its containers' logs when OCCM does not get there). */
  readonly onControlPlane: (argv: string[]) => { code: number | null; out: string };
  readonly log: (line: string) => void;
}

export interface OccmResult {
  /** Seconds from OCCM's HelmReleaseProxy's creation to the release deployed, and to every Node initialised (OCCM's last write of a Node, by its managedFields). */
  readonly releaseDeployedS: number;
  readonly nodesInitialisedS: number;
  /** Node name → seconds from the Node's registration to OCCM's write of it. */
  readonly perNodeS: Readonly<Record<string, number>>;
  /** Node name → what OCCM set: providerID, InternalIPs, instance type. */
  readonly nodes: Readonly<Record<string, string>>;
}

/** What OCCM should have set on the Node of a server: its providerID, its ports' fixed IPs, its flavor. */
async function expectedOf(openstack: OpenStackSession, s: ServerOfNode): Promise<{ providerID: string; internalIPs: string[]; instanceType: string }> {
  const server = (await openstack.get('compute', `/servers/${s.serverId}`)).server;
  const flavor = server.flavor.original_name ?? (await openstack.get('compute', `/flavors/${server.flavor.id}`)).flavor.name;
  const ports = (await openstack.get('network', `/v2.0/ports?device_id=${s.serverId}`)).ports as any[];
  const internalIPs = ports.flatMap((p) => (p.fixed_ips as any[]).map((f) => f.ip_address as string)).sort();
  return { providerID: `openstack:///${s.serverId}`, internalIPs, instanceType: flavor };
}

function actualOf(n: any): { providerID: string; internalIPs: string[]; instanceType: string; tainted: boolean } {
  return {
    providerID: n.spec?.providerID ?? '',
    internalIPs: ((n.status?.addresses ?? []) as any[]).filter((a) => a.type === 'InternalIP').map((a) => a.address as string).sort(),
    instanceType: n.metadata.labels?.[INSTANCE_TYPE] ?? '',
    tainted: ((n.spec?.taints ?? []) as any[]).some((t) => t.key === UNINITIALIZED_NODE_TAINT),
  };
}

/** When OCCM last wrote the Node (its managedFields entries name the writer and the time; 0 without one). */
function occmWroteAt(n: any): number {
  const times = ((n.metadata.managedFields ?? []) as any[]).filter((f) => /cloud-controller-manager/.test(f.manager ?? '')).map((f) => Date.parse(f.time));
  return times.length > 0 ? Math.max(...times) : 0;
}

/** The last lines of OCCM's container on the control-plane node (crictl: the kubelet serves no logs before its serving certificate). */
function occmLogs(o: OccmCheck): string {
  const id = o.onControlPlane(['crictl', 'ps', '-a', '-q', '--name', OCCM]).out.trim().split('\n')[0];
  if (!id) return 'no OCCM container on the control-plane node';
  return o.onControlPlane(['crictl', 'logs', '--tail', '40', id]).out.slice(-4000);
}

export async function expectOccmInitialisesNodes(o: OccmCheck): Promise<OccmResult> {
  const { management, log } = o;
  const hrps = async () => ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmreleaseproxies`), 'listing HelmReleaseProxies', [200]).items as any[];
  const hcps = ok(await management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmchartproxies`), 'listing HelmChartProxies', [200]).items as any[];
  const hcp = hcps.find((p) => p.metadata.labels?.[ADDON_LABEL] === OCCM);
  if (!hcp) throw new Error(`no ${OCCM} HelmChartProxy in ${o.namespace} (label ${ADDON_LABEL}): the product's catalogue turns it on by default`);

  const release = await waitFor('the OCCM release deployed by CAAPH', 10 * 60_000, async () => (await hrps()).find((r) => proxyOf(r) === hcp.metadata.name && deployed(r)), 3_000).catch(async (e) => {
    const r = (await hrps()).find((x) => proxyOf(x) === hcp.metadata.name);
    throw new Error(`${(e as Error).message}; its HelmReleaseProxy: ${r ? `${r.spec.chartName}@${r.spec.version} ${r.status?.status ?? 'no status'}: ${conditionText(r)}` : 'none'}`);
  });
  const created = Date.parse(release.metadata.creationTimestamp);
  const readyCondition = (release.status.conditions ?? []).find((c: any) => c.type === 'Ready');
  const releaseDeployedS = Math.round((Date.parse(readyCondition?.lastTransitionTime ?? new Date().toISOString()) - created) / 100) / 10;
  log(`OCCM release ${release.spec.chartName}@${release.spec.version} deployed ${releaseDeployedS}s after its HelmReleaseProxy was created`);

  const w = await o.workload();
  const ds = ok(await w.get(`/apis/apps/v1/namespaces/kube-system/daemonsets/${OCCM}`), `reading the ${OCCM} DaemonSet`, [200]);
  expect(ds.spec.template.spec.containers[0].image).toBe(o.image);

  const want = new Map<string, Awaited<ReturnType<typeof expectedOf>>>();
  let last: Record<string, unknown> = {};
  let seen: any[] = [];
  const observed = await waitFor('OCCM to initialise every Node (providerID, InternalIPs, instance type, taint removed)', 10 * 60_000, async () => {
    for (const s of o.servers()) if (!want.has(s.serverName)) want.set(s.serverName, await expectedOf(o.openstack, s));
    const nodes = ok(await w.get('/api/v1/nodes'), 'listing Nodes', [200]).items as any[];
    last = Object.fromEntries(nodes.map((n) => [n.metadata.name, actualOf(n)]));
    seen = nodes;
    const done = nodes.length === want.size && [...want].every(([name, e]) => JSON.stringify(last[name]) === JSON.stringify({ ...e, tainted: false }));
    return done ? Date.now() : undefined;
  }, 3_000).catch((e) => {
    throw new Error(`${(e as Error).message}\nexpected (from Nova and Neutron): ${JSON.stringify(Object.fromEntries(want))}\nNodes: ${JSON.stringify(last)}\nOCCM's log on the control-plane node:\n${occmLogs(o)}`);
  });
  const nodes = Object.fromEntries([...want].map(([name, e]) => [name, `${e.providerID} ${e.internalIPs.join(',')} ${e.instanceType}`]));
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  const perNodeS = Object.fromEntries(seen.map((n) => [n.metadata.name, seconds(occmWroteAt(n) - Date.parse(n.metadata.creationTimestamp))]));
  const lastWrite = Math.max(...seen.map(occmWroteAt));
  log(`OCCM initialised every Node: ${JSON.stringify(nodes)}; Node registered → OCCM's write (s): ${JSON.stringify(perNodeS)}`);
  return { releaseDeployedS, nodesInitialisedS: seconds((lastWrite > 0 ? lastWrite : observed) - created), perNodeS, nodes };
}
