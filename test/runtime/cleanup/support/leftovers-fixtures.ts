/** The cluster, resources and options the leftovers cleanup tests use. */
import { CleanupOptions } from '../../../../lib/runtime/cleanup/leftovers';
import { CREDENTIAL_ID, CREDENTIAL_SECRET, FakeOpenStack, OTHER_PROJECT, PROJECT } from './fake-openstack';

export const CLUSTER = 'capi-prod-web';
export const CSI = 'cinder.csi.openstack.org/cluster';

export function options(f: FakeOpenStack, lines: string[], extra: Partial<CleanupOptions> = {}): CleanupOptions {
  return {
    authUrl: f.authUrl.replace(/\/v3$/, ''), // without /v3: the client appends it
    auth: { type: 'application_credential', id: CREDENTIAL_ID, secret: CREDENTIAL_SECRET },
    region: 'RegionOne',
    endpointInterface: 'public',
    occmClusterName: CLUSTER,
    timeoutMs: 20_000,
    pollIntervalMs: 20,
    log: (l) => lines.push(l),
    ...extra,
  };
}

export const lb = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  project_id: PROJECT,
  provisioning_status: 'ACTIVE',
  vip_port_id: `vip-${id}`,
  description: '',
  tags: [],
  ...extra,
});
export const fip = (id: string, description: string, port: string | null, extra: Record<string, unknown> = {}) => ({
  id,
  description,
  port_id: port,
  floating_ip_address: `203.0.113.${id.replace(/\D/g, '') || 9}`,
  project_id: PROJECT,
  ...extra,
});
export const vol = (id: string, metadata: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  id,
  name: `pvc-${id}`,
  size: 1,
  status: 'available',
  metadata,
  attachments: [],
  ...extra,
});

/** A project with the cluster's resources and look-alikes that must survive. */
export function populate(f: FakeOpenStack): void {
  f.loadbalancers.push(
    lb('lb1', `kube_service_${CLUSTER}_default_web`, { description: `Kubernetes external service default/web from cluster ${CLUSTER}`, tags: [`kube_service_${CLUSTER}_default_web`] }),
    lb('lb2', `kube_service_${CLUSTER}_ingress-nginx_ingress-nginx-controller`, { provisioning_status: 'ERROR' }),
    lb('lb3', `kube_service_${CLUSTER}-2_default_web`), // cluster capi-prod-web-2
    lb('lb4', `kube_service_${CLUSTER}_x_default_web`), // cluster capi-prod-web_x
    lb('lb5', 'a1b2c3d4e5f60718293a4b5c6d7e8f90'), // OCCM's legacy name: no cluster in it
    lb('lb6', `kube_service_${CLUSTER}_default_shared`, { tags: [`kube_service_${CLUSTER}_default_shared`, 'kube_service_capi-prod-api_default_api'] }),
    lb('lb7', `kube_service_${CLUSTER}_default_web`, { project_id: OTHER_PROJECT }), // another project (admin listing)
    lb('lb8', `kube_service_${CLUSTER}_default_api`, { description: 'Kubernetes external service default/api from cluster capi-prod-api' }),
  );
  const occm = (svc: string, cluster = CLUSTER) => `Floating IP for Kubernetes external service ${svc} from cluster ${cluster}`;
  f.floatingips.push(
    fip('f1', occm('default/web'), 'vip-lb1'), // on a deleted load balancer
    fip('f2', occm('default/old'), null), // left by an earlier load balancer
    fip('f3', occm('default/moved'), 'port-of-a-server'), // re-associated by someone: kept
    fip('f4', occm('default/web', `${CLUSTER}-2`), null),
    fip('f5', 'reserved for the web service', 'vip-lb2'), // pre-allocated by the user
    fip('f6', occm('default/web'), null, { project_id: OTHER_PROJECT }),
  );
  f.securityGroups.push(
    { id: 'sg1', name: 'lb-sg-1', description: `Security Group for default/web Service LoadBalancer in cluster ${CLUSTER}`, project_id: PROJECT },
    { id: 'sg2', name: 'lb-sg-2', description: `Security Group for default/web Service LoadBalancer in cluster ${CLUSTER}-2`, project_id: PROJECT },
    { id: 'sg3', name: 'default', description: 'Default security group', project_id: PROJECT },
  );
  f.volumes.push(
    vol('v1', { [CSI]: CLUSTER }),
    vol('v2', { [CSI]: CLUSTER, 'csi.storage.k8s.io/pvc/name': 'data' }),
    vol('v3', { [CSI]: `${CLUSTER}-2` }),
    vol('v4', {}),
    vol('v5', { [CSI]: CLUSTER }, { status: 'error' }),
    vol('v6', { [CSI]: CLUSTER }, { 'os-vol-tenant-attr:tenant_id': OTHER_PROJECT }),
    vol('v7', { [`${CSI}x`]: CLUSTER }),
  );
  f.snapshots.push(
    { id: 's1', name: 'snap-1', volume_id: 'v2', status: 'available', metadata: { [CSI]: CLUSTER } },
    { id: 's2', name: 'snap-2', volume_id: 'v3', status: 'available', metadata: { [CSI]: `${CLUSTER}-2` } },
  );
}

export const ids = (items: readonly Record<string, unknown>[]) => items.map((i) => String(i.id)).sort();
