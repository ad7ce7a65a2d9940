import { TerraformStack, Testing } from 'cdktf';
import { KubernetesProvider } from '../../lib/gen/kubernetes/provider';
import { OpenstackProvider } from '../../lib/gen/openstack/provider';
import { TimeProvider } from '../../lib/gen/time/provider';
import { TlsProvider } from '../../lib/gen/tls/provider';

/** The message a construct refuses its props with, or `(no error)`. */
export function errorOf(build: () => void): string {
  try {
    build();
  } catch (e) {
    return (e as Error).message;
  }
  return '(no error)';
}

/** Valid ManagementNetwork props to spoil one at a time. */
export const NETWORK = { namePrefix: 'capi-x', cidr: '10.0.0.0/24', allocationPoolStart: '10.0.0.11', allocationPoolEnd: '10.0.0.254', externalNetworkId: 'ext' };

/** A stack named `unit` with the four providers the constructs require. */
export function providerStack(): TerraformStack {
  const s = new TerraformStack(Testing.app(), 'unit');
  new OpenstackProvider(s, 'OpenStack', { cloud: 'c' });
  new TlsProvider(s, 'Tls');
  new TimeProvider(s, 'Time');
  new KubernetesProvider(s, 'Kube', { configPath: '/dev/null' });
  return s;
}
