/**
 * The rules that keep the OpenStack metadata service away from everything on a machine but its
 * own root processes: the management VM (its user data carries the kind CA key) and the workload
 * nodes (Cluster API writes the cluster's CA, service-account and etcd CA keys into a
 * control-plane machine's user data). One implementation, used by both block scripts.
 *
 * A rule is one line the scripts read back with `read -r cmd table chain rule`:
 * `iptables|ip6tables <table> <chain> <match...> -j <target>`. The address may be a shell
 * variable of the script (`$METADATA4`), so the scripts keep the addresses in one place.
 */

/** The OpenStack metadata service (Nova), over IPv4. */
export const METADATA_ADDRESS = '169.254.169.254';

/** The metadata service's IPv6 link-local address (Nova serves it where IPv6 metadata is on). */
export const METADATA_ADDRESS_V6 = 'fe80::a9fe:a9fe';

/** The iptables command of an address family. */
export type RuleCommand = 'iptables' | 'ip6tables';

/**
 * Drops, in the raw table before any other netfilter hook (and before conntrack), packets to the
 * metadata address that arrive on `fromInterface` (`+` is iptables' wildcard), or on any
 * interface but loopback when it is not given: what a host's own processes send leaves through
 * OUTPUT and never arrives on an interface (loopback only when the address is local), so this
 * matches exactly what is routed through the machine from containers and pods.
 */
export function arrivingTrafficDropRule(cmd: RuleCommand, address: string, fromInterface?: string): string {
  const from = fromInterface === undefined ? '! -i lo' : `-i ${fromInterface}`;
  return `${cmd} raw PREROUTING ${from} -d ${address} -j DROP`;
}

/** Rejects connections to the metadata address by the host's own processes that do not run as root. */
export function nonRootOutputRejectRule(cmd: RuleCommand, address: string): string {
  return `${cmd} filter OUTPUT -d ${address} -m owner ! --uid-owner 0 -j REJECT`;
}

/** Drops packets to the metadata address forwarded from `fromInterface` in a filter chain (docker's DOCKER-USER). */
export function forwardedTrafficDropRule(cmd: RuleCommand, chain: string, address: string, fromInterface: string): string {
  return `${cmd} filter ${chain} -i ${fromInterface} -d ${address} -j DROP`;
}

/**
 * bash functions that apply and check rule lines read from stdin: `ensure` inserts each rule at
 * the top of its chain unless it is there already (idempotent, and ahead of rules a CNI or docker
 * adds later), `check` fails on the first missing one. They call `log` and `die`, which the
 * script defines.
 */
export const RULE_SHELL_FUNCTIONS = `# ensure: inserts each rule read from stdin unless it is there already.
ensure() {
  local cmd table chain rule
  while read -r cmd table chain rule; do
    # shellcheck disable=SC2086 # the rule is a list of words
    if ! "$cmd" -w -t "$table" -C "$chain" $rule 2>/dev/null; then
      "$cmd" -w -t "$table" -I "$chain" 1 $rule
      log "added: $cmd -t $table $chain $rule"
    fi
  done
}

# check: fails on the first rule read from stdin that is missing.
check() {
  local cmd table chain rule
  while read -r cmd table chain rule; do
    # shellcheck disable=SC2086
    "$cmd" -w -t "$table" -C "$chain" $rule 2>/dev/null || die "missing: $cmd -t $table $chain $rule"
  done
}
`;
