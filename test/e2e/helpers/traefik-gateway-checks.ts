/**
 * The addon-charts suite's Traefik check: the order a new cluster gives CAAPH (the chart before the
 * Gateway API CRDs, refused; then the operator's CRDs, applied with kubectl) and what the release
 * holds once deployed, checked against the values the product computed.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TRAEFIK_GATEWAY_NAME, TRAEFIK_WEB_PORT } from '../../../lib/addons';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { PhaseTimer } from '../support/phase-timer';
import { waitFor } from '../support/workload-kube';
import { localKubeBinDir } from '../support/workload-process';
import { conditionText, deployed, documentedHttpRoute, gatewayApiCrds, getIfFound as get } from './addon-charts';

export interface TraefikCheck {
  /** Traefik's HelmReleaseProxy, when CAAPH has made it. */
  readonly release: () => Promise<any | undefined>;
  /** The workload cluster's API server: its admin kubeconfig and a client. */
  readonly workload: { readonly kubeconfig: string; readonly client: KubeClient };
  /** A folder of the suite's own (the kubeconfig goes there). */
  readonly dir: string;
  /** The values the product gave Traefik's HelmChartProxy. */
  readonly values: any;
  readonly timer: PhaseTimer;
  readonly findings: string[];
}

export async function expectTraefikAfterTheCrds(o: TraefikCheck): Promise<void> {
  // the order of a new cluster: CAAPH installs as soon as the API answers, before anyone could apply CRDs
  const before = await o.timer.timed('Traefik: release without the CRDs reported', () =>
    waitFor('Traefik\'s HelmReleaseProxy to report the missing kinds', 180_000, async () => {
      const r = await o.release();
      return r && (deployed(r) || /GatewayClass|Gateway|no matches for kind|resource mapping/i.test(conditionText(r))) ? r : undefined;
    }, 1_000),
  );
  const refusal = conditionText(before);
  o.timer.log(`Traefik before the CRDs: ${before.status?.status ?? '-'}; ${refusal.slice(0, 400)}`);
  expect({ deployed: deployed(before) }).toEqual({ deployed: false });
  const crds = gatewayApiCrds();
  const kubeconfig = path.join(o.dir, 'workload.kubeconfig');
  fs.writeFileSync(kubeconfig, o.workload.kubeconfig, { mode: 0o600 });
  const kubectl = (args: string[], input?: string) => spawnSync(path.join(localKubeBinDir(), 'kubectl'), ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', input, timeout: 120_000 });
  const appliedAt = Date.now();
  const applied = kubectl(['apply', '--server-side', '-f', crds.dir]);
  expect({ status: applied.status, stderr: applied.status === 0 ? '' : applied.stderr }).toEqual({ status: 0, stderr: '' });
  expect(kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/gatewayclasses.gateway.networking.k8s.io', 'crd/gateways.gateway.networking.k8s.io', 'crd/httproutes.gateway.networking.k8s.io']).status).toBe(0);
  const after = await o.timer.timed('Traefik: CRDs applied → release deployed', () =>
    waitFor('Traefik\'s release deployed once the CRDs are there', 20 * 60_000, async () => {
      const r = await o.release();
      return r && deployed(r) ? r : undefined;
    }, 2_000),
  ).catch(async (e) => {
    o.timer.log(`Traefik after the CRDs: ${conditionText(await o.release())}`);
    throw e;
  });
  const recoveryS = Math.round((Date.now() - appliedAt) / 100) / 10;
  o.timer.timings['Traefik: CRDs applied → release deployed (s)'] = recoveryS;
  o.findings.push(`traefik ${after.spec.version}: before the Gateway API ${crds.version} CRDs "${refusal.slice(0, 200)}"; deployed ${recoveryS} s after they were applied (revision ${after.status.revision})`);

      const gatewayClass = await get(o.workload.client, '/apis/gateway.networking.k8s.io/v1/gatewayclasses/traefik');
  expect(gatewayClass?.spec.controllerName).toBe('traefik.io/gateway-controller');
  const gateway = await get(o.workload.client, `/apis/gateway.networking.k8s.io/v1/namespaces/traefik/gateways/${TRAEFIK_GATEWAY_NAME}`);
  expect(gateway?.spec).toEqual(expect.objectContaining({ gatewayClassName: 'traefik', listeners: [{ name: 'web', port: TRAEFIK_WEB_PORT, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] }));
  const d = await get(o.workload.client, '/apis/apps/v1/namespaces/traefik/deployments/traefik');
  const args: string[] = d.spec.template.spec.containers[0].args;
  expect(args).toContain('--providers.kubernetesgateway');
  // no calls home
  expect(args).toContain('--global.checkNewVersion=false');
  expect(args).not.toContain('--global.sendAnonymousUsage');
  expect(args.filter((a) => /--providers\.kubernetes(ingress|crd)\b/i.test(a))).toEqual([]);
  expect(args).toContain(`--entryPoints.web.address=:${o.values.gateway.listeners.web.port}/tcp`);
  expect(await get(o.workload.client, '/apis/networking.k8s.io/v1/ingressclasses/traefik')).toBeUndefined();
  const service = await get(o.workload.client, '/api/v1/namespaces/traefik/services/traefik');
  expect(service.spec.type).toBe('LoadBalancer');
  expect(service.spec.ports).toContainEqual(expect.objectContaining({ name: 'web', port: 80, targetPort: 'web' }));

  // the HTTPRoute of docs/addons.md, as printed, in its namespace
  const route = documentedHttpRoute();
  expect(kubectl(['create', 'namespace', route.metadata.namespace]).status).toBe(0);
  const created = kubectl(['apply', '-f', '-'], JSON.stringify(route));
  expect({ status: created.status, stderr: created.status === 0 ? '' : created.stderr }).toEqual({ status: 0, stderr: '' });
  o.timer.log(`documented HTTPRoute ${route.metadata.namespace}/${route.metadata.name} accepted by the API server (parentRef ${JSON.stringify(route.spec.parentRefs)})`);
  expect(route.spec.parentRefs).toEqual([{ name: TRAEFIK_GATEWAY_NAME, namespace: 'traefik' }]);
  // no pod runs here (no node; no image of Traefik can be built here): its state, listed
  const pods = ((await get(o.workload.client, '/api/v1/namespaces/traefik/pods'))?.items ?? []) as any[];
  o.findings.push(`traefik: Deployment ${d.status?.replicas ?? 0} replica(s), ${pods.length} pod(s) (no node in this world; no image: eight of Traefik's module dependencies are not served)`);
}
