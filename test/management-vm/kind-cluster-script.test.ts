import { renderKindClusterSh, SERVICE_NETWORK_WAIT_SECONDS } from '../../lib/management-vm/scripts/kind-cluster-sh';
import { serviceDialTimeout } from '../e2e/helpers/bootstrap-checks';

const script = renderKindClusterSh({ clusterName: 'capi-mgmt', nodeImage: 'kindest/node:v1.36.5@sha256:' + 'a'.repeat(64), apiServerPort: 6443, prepullImages: true });

describe('create-kind-cluster.sh', () => {
  test('waits, bounded, until kube-proxy routes the API server Service address, after the node is Ready and before the step ends', () => {
    const nodeReady = script.indexOf('wait --for=condition=Ready node --all');
    const serviceIp = script.indexOf('get svc kubernetes -o jsonpath');
    const probe = script.indexOf('docker exec "$CLUSTER-control-plane" timeout 2 bash -c ">/dev/tcp/$svc/443" 2>/dev/null');
    const done = script.indexOf('log "kind cluster $CLUSTER is ready');
    expect(nodeReady).toBeGreaterThan(0);
    expect([nodeReady < serviceIp, serviceIp < probe, probe < done]).toEqual([true, true, true]);
    expect(script).toContain(`((SECONDS - s < ${SERVICE_NETWORK_WAIT_SECONDS})) || die`);
    // the address comes from the cluster: only an IP may reach the probe's command line
    expect(script).toContain('[[ $svc =~ ^[0-9a-fA-F.:]+$ ]] || die');
  });
});

describe('the bootstrap e2e: a controller that started before the Service network was routed', () => {
  test('is told by its last log line (as ORC v2.4.0 wrote it), not by other timeouts', () => {
    const orc = '2026-11-28T02:57:43Z\tERROR\tsetup\tError starting manager\t{"error": "unable to create image controller: failed to get server groups: Get \\"https://10.96.0.1:443/api\\": dial tcp 10.96.0.1:443: i/o timeout"}';
    expect(serviceDialTimeout(`starting\n${orc}\nmain.main`)).toBe(orc);
    expect(serviceDialTimeout('dial tcp [fd00:10:96::1]:443: i/o timeout')).toBeDefined();
    expect(serviceDialTimeout('failed to renew lease capi-system/controller-leader-election-capi: timed out waiting for the condition')).toBeUndefined();
    expect(serviceDialTimeout('Get "https://172.18.0.2:6443/api": net/http: TLS handshake timeout')).toBeUndefined();
  });
});
