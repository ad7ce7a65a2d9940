/**
 * Gateway API through Traefik on a booted workload cluster (issue 36): the operator applies the
 * Gateway API CRDs once the cluster's API answers (docs/addons.md#gateway-api), CAAPH installs the
 * Traefik chart from the private mirror (the image built here, scripts/local-images), OCCM gives
 * its Service an Octavia load balancer with a floating IP (a stand-in amphora carries it), the
 * Gateway is programmed, and an HTTPRoute attached to it from another namespace sends a request
 * from this machine, through the floating IP and Traefik, to a pod that answers with its own name.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { TRAEFIK_GATEWAY_NAME } from '../../../lib/addons';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { ok, plural, waitFor } from '../support/workload-kube';
import { conditionText, deployed, gatewayApiCrds } from './addon-charts';
import { waitForHttpAnswer } from './loadbalancer-checks';

const HELM = 'addons.cluster.x-k8s.io/v1alpha1';
const GATEWAY_API = 'gateway.networking.k8s.io/v1';
const NAMESPACE = 'traefik';
const ROUTE = 'gateway-echo';

/**
 * The operator's step: the Gateway API standard install (scripts/local-charts/build staged it: the
 * CRDs and the release's ValidatingAdmissionPolicy against unsafe CRD changes, with its binding),
 * every object created in the workload cluster. All are cluster-scoped.
 */
export async function applyGatewayApiCrds(w: KubeClient): Promise<string> {
  const crds = gatewayApiCrds();
  for (const file of fs.readdirSync(crds.dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(crds.dir, file), 'utf8'))) {
      const o = doc.toJSON();
      if (!o) continue;
      ok(await w.request('POST', `/apis/${o.apiVersion}/${plural(o.kind)}`, o), `creating the ${o.kind} ${o.metadata?.name}`, [201, 409]);
    }
  }
  return crds.version;
}

export interface GatewayTrafficCheck {
  /** The management cluster and the cluster's namespace there (its HelmReleaseProxies). */
  readonly management: KubeClient;
  readonly namespace: string;
  readonly cluster: string;
  readonly workload: KubeClient;
  /** A Service of the workload cluster whose pod answers `answer` to GET /. */
  readonly backend: { readonly namespace: string; readonly service: string; readonly port: number; readonly answer: string };
  /** When the suite applied the Gateway API CRDs (ms since the epoch). */
  readonly crdsAppliedAt: number;
  readonly log: (line: string) => void;
  readonly timings: Record<string, number>;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
/** A route's condition as its first parent's controller wrote it (`status.parents[0].conditions`). */
export const parentCondition = (route: any, type: string) => (route?.status?.parents?.[0]?.conditions ?? []).find((c: any) => c.type === type);

export async function expectGatewayCarriesTraffic(o: GatewayTrafficCheck): Promise<Record<string, unknown>> {
  const { workload: w, log } = o;
  const hrp = await waitFor('Traefik\'s HelmReleaseProxy deployed', 20 * 60_000, async () => {
    const rs = ok(await o.management.get(`/apis/${HELM}/namespaces/${o.namespace}/helmreleaseproxies`), 'listing HelmReleaseProxies', [200]).items as any[];
    const r = rs.find((x) => x.metadata.labels?.['helmreleaseproxy.addons.cluster.x-k8s.io/helmchartproxy-name'] === `${o.cluster}-traefik`);
    if (r && !deployed(r)) log(`Traefik's release: ${conditionText(r).slice(0, 200)}`);
    return r && deployed(r) ? r : undefined;
  }, 5_000);
  const deployedAt = Date.now();
  log(`Traefik ${hrp.spec.version}: release deployed`);

  const pod = await waitFor('a Ready Traefik pod', 10 * 60_000, async () => {
    const pods = ok(await w.get(`/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=app.kubernetes.io%2Fname%3Dtraefik`), 'listing Traefik\'s pods', [200]).items as any[];
    return pods.find((p) => condition(p, 'Ready')?.status === 'True');
  }, 2_000);
  const podReadyAt = Date.now();
  log(`Traefik pod ${pod.metadata.name} Ready on ${pod.spec.nodeName} (image ${pod.spec.containers[0].image})`);

  const svc = await waitFor('Traefik\'s Service to get an ingress IP', 10 * 60_000, async () => {
    const s = ok(await w.get(`/api/v1/namespaces/${NAMESPACE}/services/traefik`), 'reading Traefik\'s Service', [200]);
    return s.status?.loadBalancer?.ingress?.[0]?.ip ? s : undefined;
  }, 2_000);
  const ip = svc.status.loadBalancer.ingress[0].ip as string;
  const port = (svc.spec.ports as any[]).find((p) => p.name === 'web').port as number;

  const route = {
    apiVersion: GATEWAY_API,
    kind: 'HTTPRoute',
    metadata: { name: ROUTE, namespace: o.backend.namespace },
    spec: { parentRefs: [{ name: TRAEFIK_GATEWAY_NAME, namespace: NAMESPACE }], rules: [{ backendRefs: [{ name: o.backend.service, port: o.backend.port }] }] },
  };
  const routed = Date.now();
  ok(await w.request('POST', `/apis/${GATEWAY_API}/namespaces/${o.backend.namespace}/httproutes`, route), `creating the HTTPRoute ${ROUTE}`, [201]);
  const answer = await waitForHttpAnswer(ip, port, 'Traefik\'s Gateway');
  const answeredAt = Date.now();
  log(`GET http://${ip}:${port}/ → ${JSON.stringify(answer)} ${seconds(answeredAt - routed)}s after the HTTPRoute was created`);
  expect(answer).toBe(o.backend.answer);

  // Traefik writes the statuses after it serves the route: they may come a moment after the answer
  let gateway: any;
  let accepted: any;
  await waitFor('the Gateway Programmed and the HTTPRoute Accepted', 60_000, async () => {
    gateway = ok(await w.get(`/apis/${GATEWAY_API}/namespaces/${NAMESPACE}/gateways/${TRAEFIK_GATEWAY_NAME}`), 'reading the Gateway', [200]);
    accepted = ok(await w.get(`/apis/${GATEWAY_API}/namespaces/${o.backend.namespace}/httproutes/${ROUTE}`), 'reading the HTTPRoute', [200]);
    return condition(gateway, 'Programmed')?.status === 'True' && parentCondition(accepted, 'Accepted')?.status === 'True' ? true : undefined;
  }, 1_000).catch(() => log(`statuses: Gateway ${JSON.stringify(gateway?.status?.conditions)}; HTTPRoute ${JSON.stringify(accepted?.status)}`));
  const parent = (accepted.status?.parents ?? [])[0];
  expect({ gatewayProgrammed: condition(gateway, 'Programmed')?.status, gatewayAddress: gateway.status?.addresses?.[0]?.value, routeAccepted: parentCondition(accepted, 'Accepted')?.status, controller: parent?.controllerName }).toEqual({
    gatewayProgrammed: 'True',
    gatewayAddress: ip,
    routeAccepted: 'True',
    controller: 'traefik.io/gateway-controller',
  });
  Object.assign(o.timings, {
    'Traefik: CRDs applied → release deployed': seconds(deployedAt - o.crdsAppliedAt),
    'Traefik: release deployed → pod Ready': seconds(podReadyAt - deployedAt),
    'Traefik: HTTPRoute created → first answer through the Gateway': seconds(answeredAt - routed),
  });
  return { traefikGateway: { chart: hrp.spec.version, pod: pod.metadata.name, node: pod.spec.nodeName, image: pod.spec.containers[0].image, address: ip, port, answer } };
}
