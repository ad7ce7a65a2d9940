/**
 * Every construct the library exports, given no props (JavaScript callers can), is refused with its
 * construct path and the prop named, never a TypeError from inside (issue 37).
 */
import { TerraformStack, Testing } from 'cdktf';
import { Construct } from 'constructs';
import * as lib from '../../lib';
import { KubernetesProvider } from '../../lib/gen/kubernetes/provider';
import { OpenstackProvider } from '../../lib/gen/openstack/provider';
import { TimeProvider } from '../../lib/gen/time/provider';
import { TlsProvider } from '../../lib/gen/tls/provider';
import { errorOf } from './support';

type Part = new (scope: Construct, id: string, props: never) => Construct;
const PARTS: Record<string, Part> = {
  ApplicationCredential: lib.ApplicationCredential,
  CloudLookups: lib.CloudLookups,
  ClusterLeftoversCleanup: lib.ClusterLeftoversCleanup,
  MachineLookups: lib.MachineLookups,
  ManagementEndpoint: lib.ManagementEndpoint,
  ManagementNetwork: lib.ManagementNetwork,
  ManagementServer: lib.ManagementServer,
  SecurityGroup: lib.SecurityGroup,
  WorkloadCloudResources: lib.WorkloadCloudResources,
  ClusterPki: lib.ClusterPki,
  KubeManifests: lib.KubeManifests,
  ReadinessGate: lib.ReadinessGate,
};

function stack(): TerraformStack {
  const s = new TerraformStack(Testing.app(), 'unit');
  new OpenstackProvider(s, 'OpenStack', { cloud: 'c' });
  new TlsProvider(s, 'Tls');
  new TimeProvider(s, 'Time');
  new KubernetesProvider(s, 'Kube', { configPath: '/dev/null' });
  return s;
}

describe('exported constructs given no props', () => {
  test.each(Object.entries(PARTS))('%s: refused naming its path and props', (name, Part) => {
    for (const props of [undefined, null, 'web']) {
      expect(errorOf(() => new Part(stack(), 'Part', props as never))).toBe(
        `Invalid props of ${name} at unit/Part (1 problem):\n  props: expected the ${name}'s props (an object), found ${props === undefined ? 'nothing' : props === null ? 'null' : '"web"'}`,
      );
    }
  });
});
