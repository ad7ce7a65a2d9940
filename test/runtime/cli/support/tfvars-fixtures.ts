/** The old tool's settings files the import-tfvars tests read, and small helpers. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const FIXTURES = path.join(__dirname, '..', 'fixtures', 'old-tool');
export const FILLED = path.join(FIXTURES, 'environment-lab.tfvars');
export const TEMPLATE = path.join(FIXTURES, 'environment-template.tfvars');
/** The old tool's own sample file, in the shared/ folder beside the checkout (development machines and CI; not part of the repository). */
export const OLD_SAMPLE = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'reference', 'old-tool', 'environment-default.tfvars');

/** Keys assigned at the start of a line: found without the HCL parser, so the test does not trust it. */
export function keysOf(text: string): string[] {
  return [...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)].map((m) => m[1]);
}

/** Every setting name of ../shared/PARITY.md that is a tfvars key of the old tool. */
export const PARITY_KEYS = [
  'cloud_provider', 'prefix', 'availability_zone', 'external', 'external_id', 'dns_nameservers', 'mgmt_cidr', 'mgmt_ip_range',
  'restrict_mgmt_server', 'kind_flavor', 'image', 'ssh_username', 'kind_mtu', 'http_proxy', 'no_proxy', 'clusterapi_version',
  'capi_openstack_version', 'containerd_registry_files', 'kubernetes_version', 'controller_flavor', 'worker_flavor', 'controller_count',
  'worker_count', 'controller_metadata', 'worker_metadata', 'node_cidr', 'pod_cidr', 'service_cidr', 'anti_affinity',
  'soft_anti_affinity_controller', 'restrict_kubeapi', 'use_ovn_lb_provider', 'etcd_unsafe_fs', 'capo_instance_create_timeout',
  'use_cilium', 'calico_version', 'deploy_occm', 'deploy_cindercsi', 'deploy_metrics', 'deploy_nginx_ingress', 'deploy_cert_manager',
  'deploy_flux', 'deploy_gateway_api', 'deploy_harbor',
];

export function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cli-import-'));
}
