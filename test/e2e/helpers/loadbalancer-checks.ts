/**
 * A Service of type LoadBalancer on a booted workload cluster (issue 36): OCCM, installed by CAAPH
 * with the product's values and cloud.conf, makes an Octavia load balancer for it (a TCP listener
 * on the Service's port, a pool whose members are the Nodes' InternalIPs at the NodePort) and a
 * floating IP on its VIP port, and writes that address into the Service's
 * status.loadBalancer.ingress. The local cloud's Octavia forwards nothing: the workload hypervisor
 * (support/load-balancer-amphorae.ts) stands an amphora up for the load balancer, at its VIP and
 * the floating IP, with the pool's members. Then a connection from this machine to
 * <floating IP>:<port> is answered by the Deployment's pod: haproxy in the probe image answering
 * HTTP with its own pod name, so the answer cannot come from anything else.
 *
 * The Service stays: the suite's destroy must remove its load balancer and floating IP.
 */
import * as http from 'http';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, waitFor } from '../support/workload-kube';
import { OpenStackSession } from '../support/workload-openstack';
import { pushProbeImage } from './workload-node-checks';

const NAME = 'lb-echo';
const NAMESPACE = 'default';
const PORT = 80;
const TARGET_PORT = 8080;
/** kubeadm labels control-plane Nodes so; the service controller gives load balancers the others. */
const EXCLUDED = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** haproxy answering every HTTP request with the pod's name (POD_NAME, from the downward API). */
const SERVE = [
  `printf 'global\\n  maxconn 64\\ndefaults\\n  mode http\\n  timeout connect 5s\\n  timeout client 30s\\n  timeout server 30s\\n`,
  `frontend serve\\n  bind :${TARGET_PORT}\\n  http-request return status 200 content-type text/plain string "served by pod %s"\\n' "$POD_NAME" > /tmp/serve.cfg`,
  '&& exec haproxy -db -f /tmp/serve.cfg',
].join(' ');

export interface LoadBalancerCheck {
  readonly workload: KubeClient;
  /** The cluster's project, as its OCCM sees it. */
  readonly openstack: OpenStackSession;
  /** OCCM's --cluster-name (the cluster's resource name). */
  readonly occmClusterName: string;
  /** The amphora image, pushed to the site's registry as the probe image. */
  readonly amphoraImage: string;
  readonly dockerHost: string;
  /** The amphora the hypervisor stands up for a load balancer, by its id (for the log). */
  readonly amphoraOf: (loadBalancerId: string) => { container: string; members: ReadonlyMap<number, string> } | undefined;
  readonly log: (line: string) => void;
  /** The suite's timing table and figures: the times and the load balancer go there. */
  readonly timings: Record<string, number>;
  readonly figures: Record<string, unknown>;
}

export interface LoadBalancerResult {
  /** Seconds from the Service's creation to its ingress IP, and to the first answer through it. */
  readonly ingressS: number;
  readonly firstResponseS: number;
  /** The Octavia load balancer: name, VIP, floating IP, listener, members. */
  readonly loadBalancer: Readonly<Record<string, unknown>>;
  readonly answer: string;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** One HTTP GET from this machine; undefined when it does not get through. */
function httpGet(host: string, port: number): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/', agent: false, timeout: 3_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** The body of the first 200 answer to GET http://ip:port/ within 5 minutes (polled every 0.5 s); the error names the last answer. */
export async function waitForHttpAnswer(ip: string, port: number, through: string): Promise<string> {
  let last: unknown;
  return waitFor(`an answer from ${ip}:${port} through ${through}`, 5 * 60_000, async () => {
    const r = await httpGet(ip, port);
    last = r;
    return r?.status === 200 ? r.body.trim() : undefined;
  }, 500).catch((e) => {
    throw new Error(`${(e as Error).message}; last answer: ${JSON.stringify(last)}`);
  });
}

async function createDeployment(w: KubeClient, image: string): Promise<void> {
  const labels = { app: NAME };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: NAME, namespace: NAMESPACE },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'serve',
              image,
              command: ['bash', '-c', SERVE],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              ports: [{ containerPort: TARGET_PORT }],
              readinessProbe: { tcpSocket: { port: TARGET_PORT }, periodSeconds: 2 },
            },
          ],
        },
      },
    },
  };
  ok(await w.request('POST', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment), `creating the Deployment ${NAME}`, [201]);
}

/** The Deployment's Ready pod, by name. */
async function readyPod(w: KubeClient): Promise<string> {
  const pod = await waitFor(`a Ready pod of the Deployment ${NAME}`, 5 * 60_000, async () => {
    const pods = ok(await w.get(`/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=app%3D${NAME}`), 'listing pods', [200]).items as any[];
    return pods.find((p) => (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'));
  }, 2_000);
  return pod.metadata.name as string;
}

/** What OCCM made in Octavia and Neutron for the Service. */
async function octaviaSide(os: OpenStackSession, lbName: string): Promise<{ lb: any; listeners: any[]; members: string[]; fips: any[] }> {
  const lbs = (await os.get('load-balancer', `/v2/lbaas/loadbalancers?name=${encodeURIComponent(lbName)}&project_id=${os.projectId}`)).loadbalancers as any[];
  if (lbs.length !== 1) throw new Error(`expected one Octavia load balancer named ${lbName}, found ${lbs.length}`);
  const lb = lbs[0];
  const listeners = (await os.get('load-balancer', `/v2/lbaas/listeners?loadbalancer_id=${lb.id}`)).listeners as any[];
  const members: string[] = [];
  for (const l of listeners) {
    if (!l.default_pool_id) continue;
    const ms = (await os.get('load-balancer', `/v2/lbaas/pools/${l.default_pool_id}/members`)).members as any[];
    members.push(...ms.map((m) => `${m.address}:${m.protocol_port}`));
  }
  const fips = (await os.get('network', `/v2.0/floatingips?port_id=${lb.vip_port_id}`)).floatingips as any[];
  return { lb, listeners, members: members.sort(), fips };
}

export async function expectLoadBalancerServiceCarriesTraffic(o: LoadBalancerCheck): Promise<LoadBalancerResult> {
  const { workload: w, log } = o;
  await createDeployment(w, pushProbeImage(o.dockerHost, o.amphoraImage));
  const pod = await readyPod(w);
  log(`Deployment ${NAME}: pod ${pod} Ready`);

  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: NAME, namespace: NAMESPACE },
    spec: { type: 'LoadBalancer', selector: { app: NAME }, ports: [{ name: 'http', protocol: 'TCP', port: PORT, targetPort: TARGET_PORT }] },
  };
  const created = Date.now();
  ok(await w.request('POST', `/api/v1/namespaces/${NAMESPACE}/services`, service), `creating the Service ${NAME}`, [201]);
  const svcPath = `/api/v1/namespaces/${NAMESPACE}/services/${NAME}`;
  let events = '';
  const svc = await waitFor(`the Service ${NAME} to get an ingress IP`, 10 * 60_000, async () => {
    const s = ok(await w.get(svcPath), `reading the Service ${NAME}`, [200]);
    return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
  }, 1_000).catch(async (e) => {
    const ev = ok(await w.get(`/api/v1/namespaces/${NAMESPACE}/events?fieldSelector=involvedObject.name%3D${NAME}`), 'listing events', [200]).items as any[];
    events = ev.map((x) => `${x.reason}: ${x.message}`).join('\n');
    throw new Error(`${(e as Error).message}\nthe Service's events:\n${events}`);
  });
  const ingressAt = Date.now();
  const ip = svc.status.loadBalancer.ingress[0].ip as string;
  const nodePort = svc.spec.ports[0].nodePort as number;
  log(`Service ${NAME}: ingress ${ip} after ${seconds(ingressAt - created)}s, NodePort ${nodePort}`);

  const answer = await waitForHttpAnswer(ip, PORT, 'the load balancer');
  const answeredAt = Date.now();
  log(`GET http://${ip}:${PORT}/ → ${JSON.stringify(answer)} ${seconds(answeredAt - created)}s after the Service was created`);
  // the pod answered: its own name, which nothing else knows
  expect(answer).toBe(`served by pod ${pod}`);

  const lbName = `kube_service_${o.occmClusterName}_${NAMESPACE}_${NAME}`;
  const { lb, listeners, members, fips } = await octaviaSide(o.openstack, lbName);
  const nodes = ok(await w.get('/api/v1/nodes'), 'listing Nodes', [200]).items as any[];
  const wanted = nodes
    .filter((n) => n.metadata.labels?.[EXCLUDED] === undefined)
    .flatMap((n) => (n.status.addresses as any[]).filter((a) => a.type === 'InternalIP').map((a) => `${a.address}:${nodePort}`))
    .sort();
  const amphora = o.amphoraOf(lb.id);
  log(`Octavia: ${lbName} (${lb.id}) VIP ${lb.vip_address}; listeners ${listeners.map((l) => `${l.protocol}:${l.protocol_port}`).join(', ')}; members ${members.join(' ')}; floating IPs ${fips.map((f) => f.floating_ip_address).join(', ')}; amphora ${amphora?.container} with ${amphora?.members.get(PORT)}`);
  expect({
    provisioning: lb.provisioning_status,
    listeners: listeners.map((l) => `${l.protocol}:${l.protocol_port}`),
    members,
    floatingIps: fips.map((f) => ({ address: f.floating_ip_address, description: f.description })),
  }).toEqual({
    provisioning: 'ACTIVE',
    listeners: [`TCP:${PORT}`],
    members: wanted,
    // the description is what the product's destroy-time cleanup recognises OCCM's floating IPs by
    floatingIps: [{ address: ip, description: `Floating IP for Kubernetes external service ${NAMESPACE}/${NAME} from cluster ${o.occmClusterName}` }],
  });
  expect(wanted.length).toBeGreaterThan(0);
  const result = {
    ingressS: seconds(ingressAt - created),
    firstResponseS: seconds(answeredAt - created),
    loadBalancer: { name: lbName, id: lb.id, vip: lb.vip_address, floatingIp: ip, listeners: listeners.map((l) => `${l.protocol}:${l.protocol_port}`), members },
    answer,
  };
  Object.assign(o.timings, { 'LoadBalancer Service: created → ingress IP set': result.ingressS, 'LoadBalancer Service: created → first answer from the pod through the floating IP': result.firstResponseS });
  o.figures.serviceLoadBalancer = { ...result.loadBalancer, answer };
  return result;
}
