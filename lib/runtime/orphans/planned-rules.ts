/**
 * Security group rules have no name: a rule an interrupted apply created but never recorded is
 * found by its shape instead. The synthesized stack says which rules it wants on which of its
 * groups (by Terraform address), the state says which group ids those addresses have; a rule the
 * cloud lists on such a group, with such a shape, that no state records is what the next apply
 * would trip over ("Security group rule already exists"). Rules someone added by hand have other
 * shapes and are never touched. Pure.
 */

/** What makes two rules of one group the same rule for Neutron. */
export interface RuleShape {
  readonly securityGroupId: string;
  readonly direction: string;
  readonly ethertype: string;
  readonly protocol: string | null;
  readonly portRangeMin: number | null;
  readonly portRangeMax: number | null;
  readonly remoteIpPrefix: string | null;
}

const GROUP_TYPE = 'openstack_networking_secgroup_v2';
const RULE_TYPE = 'openstack_networking_secgroup_rule_v2';
const GROUP_REF = new RegExp(`^\\$\\{${GROUP_TYPE}\\.([A-Za-z0-9_-]+)\\.id\\}$`);

/** Neutron answers "any" as null; an all-IPv4/IPv6 prefix as it was given. */
const orNull = <T>(v: T | undefined | null): T | null => (v === undefined || v === '' ? null : v);

export function shapeKey(r: RuleShape): string {
  return [r.securityGroupId, r.direction, r.ethertype, r.protocol, r.portRangeMin, r.portRangeMax, r.remoteIpPrefix].map((v) => String(v ?? 'any')).join(' ');
}

/** The rules a synthesized stack (`cdk.tf.json`) wants, on the group ids its state (`terraform state pull`) records. */
export function plannedRules(stack: unknown, state: unknown): RuleShape[] {
  const groupIds = new Map<string, string>();
  const resources = (state as { resources?: unknown })?.resources;
  for (const r of Array.isArray(resources) ? resources : []) {
    const id = r?.instances?.[0]?.attributes?.id;
    if (r?.mode === 'managed' && r?.type === GROUP_TYPE && typeof r?.name === 'string' && typeof id === 'string') groupIds.set(r.name, id);
  }
  const rules = (stack as { resource?: Record<string, Record<string, Record<string, unknown>>> })?.resource?.[RULE_TYPE] ?? {};
  const shapes: RuleShape[] = [];
  for (const rule of Object.values(rules)) {
    const ref = GROUP_REF.exec(String(rule.security_group_id ?? ''));
    const securityGroupId = ref ? groupIds.get(ref[1]) : undefined;
    if (!securityGroupId) continue;
    shapes.push({
      securityGroupId,
      direction: String(rule.direction),
      ethertype: String(rule.ethertype),
      protocol: orNull(rule.protocol as string | undefined),
      portRangeMin: orNull(rule.port_range_min as number | undefined),
      portRangeMax: orNull(rule.port_range_max as number | undefined),
      remoteIpPrefix: orNull(rule.remote_ip_prefix as string | undefined),
    });
  }
  return shapes;
}

/** A rule as Neutron lists it, as a shape. */
export function listedShape(rule: {
  security_group_id: string;
  direction: string;
  ethertype: string;
  protocol?: string | null;
  port_range_min?: number | null;
  port_range_max?: number | null;
  remote_ip_prefix?: string | null;
}): RuleShape {
  return {
    securityGroupId: rule.security_group_id,
    direction: rule.direction,
    ethertype: rule.ethertype,
    protocol: orNull(rule.protocol),
    portRangeMin: orNull(rule.port_range_min),
    portRangeMax: orNull(rule.port_range_max),
    remoteIpPrefix: orNull(rule.remote_ip_prefix),
  };
}

/** `ingress IPv4 tcp 6443 from 198.51.100.0/24 on group <id>`, for people. */
export function describeRule(r: RuleShape): string {
  const ports = r.portRangeMin === null ? '' : r.portRangeMin === r.portRangeMax ? ` ${r.portRangeMin}` : ` ${r.portRangeMin}-${r.portRangeMax}`;
  return `${r.direction} ${r.ethertype} ${r.protocol ?? 'any'}${ports} ${r.direction === 'egress' ? 'to' : 'from'} ${r.remoteIpPrefix ?? 'anywhere'} on group ${r.securityGroupId}`;
}
