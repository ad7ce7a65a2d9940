/** Which resources count as the cluster's: the formats OCCM and Cinder CSI write, and the look-alikes. */
import { capoNetworkName } from '../../../lib/config/naming';
import {
  csiVerdict,
  occmFloatingIpVerdict,
  occmLoadBalancerVerdict,
  occmSecurityGroupVerdict,
} from '../../../lib/runtime/cleanup/matchers';

const C = 'capi-prod-web';

describe('occmLoadBalancerVerdict', () => {
  test.each([
    [`kube_service_${C}_default_web`, true],
    [`kube_service_${C}_kube-system_a`, true],
    [`kube_service_${C}-2_default_web`, false], // another cluster whose name extends ours
    [`kube_service_${C}_x_default_web`, false], // cluster `${C}_x`
    [`kube_service_capi-prod_web_default_web`, false],
    [`kube_service_${C}_default`, false],
    [`kube_service_${C}_Default_web`, false], // not a Kubernetes name
    [`kube_service_${C}_default_web_`, false],
    ['a1b2c3d4e5f60718293a4b5c6d7e8f90', false], // legacy name: no cluster
    [`k8s-clusterapi-cluster-default-${C}-kubeapi`, false], // CAPO's own API load balancer
    ['', false],
  ])('%s → %s', (name, match) => {
    expect(occmLoadBalancerVerdict({ name }, C).match).toBe(match);
  });

  test('the longest names OCCM makes for the cluster match; a cut name is not provably ours', () => {
    expect(occmLoadBalancerVerdict({ name: `kube_service_${C}_${'n'.repeat(63)}_${'s'.repeat(63)}` }, C).match).toBe(true);
    // cluster `${C}_x` with a long namespace, cut at 255: the rest is `x_nnn…`
    const foreign = `kube_service_${C}_x_${'n'.repeat(63)}_${'s'.repeat(200)}`.slice(0, 255);
    expect(occmLoadBalancerVerdict({ name: foreign }, C).match).toBe(false);
    expect(occmLoadBalancerVerdict({ name: `kube_service_${C}_${'n'.repeat(63)}_` }, C).match).toBe(false);
  });

  test('a description naming another cluster or a foreign share tag keeps it, with the reason', () => {
    const name = `kube_service_${C}_default_web`;
    expect(occmLoadBalancerVerdict({ name, description: `Kubernetes external service default/web from cluster ${C}`, tags: [name] }, C)).toEqual({ match: true });
    expect(occmLoadBalancerVerdict({ name, description: 'Kubernetes external service default/web from cluster other' }, C)).toEqual({
      match: false,
      keptBecause: 'its description names cluster "other"',
    });
    expect(occmLoadBalancerVerdict({ name, tags: [name, `kube_service_${C}_default_api`, 'kube_service_other_default_x'] }, C)).toEqual({
      match: false,
      keptBecause: 'Services of another cluster share it (tags kube_service_other_default_x)',
    });
    expect(occmLoadBalancerVerdict({ name, description: 'made by hand', tags: ['team-a'] }, C).match).toBe(true);
  });
});

describe('occmFloatingIpVerdict / occmSecurityGroupVerdict', () => {
  test.each([
    [`Floating IP for Kubernetes external service default/web from cluster ${C}`, true],
    [`Floating IP for Kubernetes external service ingress-nginx/ingress-nginx-controller from cluster ${C}`, true],
    [`Floating IP for Kubernetes external service default/web from cluster ${C}-2`, false],
    [`Floating IP for Kubernetes external service default/web from cluster x${C}`, false],
    [`Floating IP for Kubernetes external service from cluster ${C}`, false],
    [`floating IP for Kubernetes external service default/web from cluster ${C}`, false],
    ['', false],
  ])('floating IP "%s" → %s', (description, match) => {
    expect(occmFloatingIpVerdict({ description }, C).match).toBe(match);
  });

  test.each([
    [`Security Group for default/web Service LoadBalancer in cluster ${C}`, true],
    [`Security Group for default/web Service LoadBalancer in cluster ${C}-2`, false],
    [`Security Group for Service LoadBalancer in cluster ${C}`, false],
    [null, false],
  ])('security group "%s" → %s', (description, match) => {
    expect(occmSecurityGroupVerdict({ description }, C).match).toBe(match);
  });
});

describe('csiVerdict', () => {
  test('exact metadata value only', () => {
    expect(csiVerdict({ metadata: { 'cinder.csi.openstack.org/cluster': C } }, C).match).toBe(true);
    expect(csiVerdict({ metadata: { 'cinder.csi.openstack.org/cluster': `${C}-2` } }, C).match).toBe(false);
    expect(csiVerdict({ metadata: { 'cinder.csi.openstack.org/cluster': 'kubernetes' } }, C).match).toBe(false);
    expect(csiVerdict({ metadata: {} }, C).match).toBe(false);
    expect(csiVerdict({}, C).match).toBe(false);
  });
});

test('capoNetworkName: CAPO names the network of managed subnets k8s-clusterapi-cluster-<namespace>-<name>', () => {
  expect(capoNetworkName('capi-prod-web', 'web')).toBe('k8s-clusterapi-cluster-capi-prod-web-web');
});
