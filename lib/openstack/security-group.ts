import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { NetworkingSecgroupRuleV2 } from '../gen/openstack/networking-secgroup-rule-v2';
import { NetworkingSecgroupV2 } from '../gen/openstack/networking-secgroup-v2';
import { ruleKey, SecurityRule } from './security-rules';

export interface SecurityGroupProps {
  /** Name of the security group. */
  readonly name: string;
  /**
   * Free-text description of the group.
   * @default - no description
   */
  readonly description?: string;
  /** The complete rule set; Neutron's default rules are removed so nothing else is open. */
  readonly rules: readonly SecurityRule[];
}

/** A security group whose rules are exactly the given ones. */
export class SecurityGroup extends Construct {
  public readonly group: NetworkingSecgroupV2;

  constructor(scope: Construct, id: string, props: SecurityGroupProps) {
    super(scope, id);
    new PropChecks('SecurityGroup', this).props(props);
    checkRules(this, props);
    requireProvider(this, 'SecurityGroup', 'openstack');
    this.group = new NetworkingSecgroupV2(this, 'Group', { name: props.name, description: props.description, deleteDefaultRules: true });
    const seen = new Set<string>();
    for (const rule of props.rules) {
      const key = ruleKey(rule);
      if (seen.has(key)) continue; // the same CIDR listed twice is one rule
      seen.add(key);
      new NetworkingSecgroupRuleV2(this, key, {
        securityGroupId: this.group.id,
        direction: rule.direction,
        ethertype: rule.ethertype,
        protocol: rule.protocol,
        portRangeMin: rule.portRangeMin,
        portRangeMax: rule.portRangeMax,
        remoteIpPrefix: rule.remoteIpPrefix,
        description: rule.description,
      });
    }
  }

  public get id(): string {
    return this.group.id;
  }
}

/** Each rule: a real CIDR (or none = anywhere, said explicitly by omitting it), ports in range. */
function checkRules(scope: Construct, props: SecurityGroupProps): void {
  const checks = new PropChecks('SecurityGroup', scope).required('name', props.name).required('rules', props.rules);
  (props.rules ?? []).forEach((rule, i) => {
    checks.cidrOf(`rules[${i}].remoteIpPrefix`, rule.remoteIpPrefix, rule.ethertype === 'IPv6' ? 'IPv6' : 'IPv4').port(`rules[${i}].portRangeMin`, rule.portRangeMin).port(`rules[${i}].portRangeMax`, rule.portRangeMax);
    if (rule.portRangeMin !== undefined && rule.portRangeMax !== undefined && rule.portRangeMin > rule.portRangeMax) {
      checks.integer(`rules[${i}].portRangeMax`, rule.portRangeMax, rule.portRangeMin, 65535);
    }
  });
  checks.done();
}
