/** Security group rules as data, so the rule set is testable and each rule gets a stable identity. */

export interface SecurityRule {
  readonly direction: 'ingress' | 'egress';
  readonly ethertype: 'IPv4' | 'IPv6';
  /** undefined = any protocol. */
  readonly protocol?: 'tcp' | 'udp' | 'icmp';
  readonly portRangeMin?: number;
  readonly portRangeMax?: number;
  /** undefined together with remoteGroup undefined = anywhere. */
  readonly remoteIpPrefix?: string;
  readonly description: string;
}

/** A construct id that stays the same while the rule stays the same (adding a CIDR adds one rule, moves none). */
export function ruleKey(rule: SecurityRule): string {
  const port = rule.portRangeMin === undefined ? 'any' : rule.portRangeMin === rule.portRangeMax ? `${rule.portRangeMin}` : `${rule.portRangeMin}-${rule.portRangeMax}`;
  const remote = (rule.remoteIpPrefix ?? 'anywhere').replace(/[./:]/g, '_');
  return `${rule.direction}-${rule.ethertype}-${rule.protocol ?? 'any'}-${port}-${remote}`;
}

const allEgress: SecurityRule[] = [
  { direction: 'egress', ethertype: 'IPv4', description: 'all outbound IPv4' },
  { direction: 'egress', ethertype: 'IPv6', description: 'all outbound IPv6' },
];

export interface ManagementRulesInput {
  readonly apiAllowedCidrs: readonly string[];
  readonly sshAllowedCidrs: readonly string[];
  /** @default 6443 */
  readonly apiPort?: number;
}

/** Rules of the management VM: ICMP, the API and SSH only from the given CIDRs, all egress. */
export function managementRules(input: ManagementRulesInput): SecurityRule[] {
  const port = input.apiPort ?? 6443;
  return [
    { direction: 'ingress', ethertype: 'IPv4', protocol: 'icmp', description: 'ICMP (path MTU discovery, ping)' },
    ...input.apiAllowedCidrs.map((cidr): SecurityRule => ({ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portRangeMin: port, portRangeMax: port, remoteIpPrefix: cidr, description: `management Kubernetes API from ${cidr}` })),
    ...input.sshAllowedCidrs.map((cidr): SecurityRule => ({ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portRangeMin: 22, portRangeMax: 22, remoteIpPrefix: cidr, description: `SSH from ${cidr}` })),
    ...allEgress,
  ];
}

/**
 * Rules of the node-access group workload machines may carry: SSH and ICMP from the management
 * network, so an operator on the management VM can reach nodes without opening them further.
 */
export function nodeAccessRules(managementCidr: string): SecurityRule[] {
  return [
    { direction: 'ingress', ethertype: 'IPv4', protocol: 'icmp', remoteIpPrefix: managementCidr, description: 'ICMP from the management network' },
    { direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portRangeMin: 22, portRangeMax: 22, remoteIpPrefix: managementCidr, description: 'SSH from the management network' },
    ...allEgress,
  ];
}
