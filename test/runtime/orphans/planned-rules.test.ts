/** A security group rule an interrupted apply created but never recorded: found by its shape on a group of the state. */
import { NamedEnvironment, ambiguity, ownedNames } from '../../../lib/config/owned-names';
import { CloudListing, findOrphans, stateIds } from '../../../lib/runtime/orphans/find-orphans';
import { plannedRules } from '../../../lib/runtime/orphans/planned-rules';

const G = 'openstack_networking_secgroup_v2';
const R = 'openstack_networking_secgroup_rule_v2';
/** Two rules of the synthesized management stack (as cdk.tf.json has them) and one on a group the state lacks. */
const stack = {
  resource: {
    [G]: { Mgmt: { name: 'capi-lab-mgmt' }, Lost: { name: 'capi-lab-node-access' } },
    [R]: {
      egress: { direction: 'egress', ethertype: 'IPv4', security_group_id: `\${${G}.Mgmt.id}` },
      api: { direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 6443, port_range_max: 6443, remote_ip_prefix: '198.51.100.0/24', security_group_id: `\${${G}.Mgmt.id}` },
      other: { direction: 'egress', ethertype: 'IPv6', security_group_id: `\${${G}.Lost.id}` },
    },
  },
};
const state = {
  resources: [
    { mode: 'managed', type: G, name: 'Mgmt', instances: [{ attributes: { id: 'g1' } }] },
    { mode: 'managed', type: R, name: 'egress', instances: [{ attributes: { id: 'rule-egress' } }] },
  ],
};
const rule = (id: string, extra: Record<string, unknown>) => ({ id, security_group_id: 'g1', direction: 'egress', ethertype: 'IPv4', protocol: null, port_range_min: null, port_range_max: null, remote_ip_prefix: null, ...extra });
const listing: CloudListing = {
  networks: [],
  subnets: [],
  routers: [],
  ports: [],
  securityGroups: [{ id: 'g1', name: 'capi-lab-mgmt' }],
  securityGroupRules: [
    rule('rule-egress', {}), // recorded
    rule('rule-api-lost', { direction: 'ingress', protocol: 'tcp', port_range_min: 6443, port_range_max: 6443, remote_ip_prefix: '198.51.100.0/24' }), // created, never recorded
    rule('rule-by-hand', { direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '192.0.2.1/32' }), // someone's own
    rule('rule-other-group', { security_group_id: 'g-foreign' }),
  ],
  floatingIps: [],
  servers: [],
  volumes: [],
};
const lab: NamedEnvironment = { name: 'lab', prefix: 'capi', hasManagementStack: true, clusters: [] };

describe('security group rules by shape', () => {
  test('plannedRules: the stack\'s rules on the group ids of the state; rules of a group the state lacks are left out', () => {
    expect(plannedRules(stack, state)).toEqual([
      { securityGroupId: 'g1', direction: 'egress', ethertype: 'IPv4', protocol: null, portRangeMin: null, portRangeMax: null, remoteIpPrefix: null },
      { securityGroupId: 'g1', direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portRangeMin: 6443, portRangeMax: 6443, remoteIpPrefix: '198.51.100.0/24' },
    ]);
    expect(plannedRules(undefined, undefined)).toEqual([]);
  });

  test('the unrecorded rule of the stack\'s shape is an orphan (deleted before groups); a rule added by hand and other groups\' rules are not', () => {
    const { orphans } = findOrphans(listing, { owned: ownedNames(lab), known: stateIds(state), ambiguity: (o) => ambiguity(lab, o), plannedRules: plannedRules(stack, state) });
    expect(orphans.map((o) => `${o.kind} ${o.id} (${o.label})`)).toEqual(['security group rule rule-api-lost (ingress IPv4 tcp 6443 from 198.51.100.0/24 on group g1)']);
  });
});
