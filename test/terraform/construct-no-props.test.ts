/**
 * Every construct the library exports, given no props (JavaScript callers can), is refused with its
 * construct path and the prop named, never a TypeError from inside (issue 37).
 */
import { Construct } from 'constructs';
import * as lib from '../../lib';
import { errorOf, providerStack } from './support';

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

const stack = providerStack;

describe('exported constructs given no props', () => {
  test.each(Object.entries(PARTS))('%s: refused naming its path and props', (name, Part) => {
    for (const props of [undefined, null, 'web']) {
      expect(errorOf(() => new Part(stack(), 'Part', props as never))).toBe(
        `Invalid props of ${name} at unit/Part (1 problem):\n  props: expected the ${name}'s props (an object), found ${props === undefined ? 'nothing' : props === null ? 'null' : '"web"'}`,
      );
    }
  });
});
