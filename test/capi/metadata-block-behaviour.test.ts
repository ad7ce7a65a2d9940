/**
 * The workload nodes' metadata block, run for real: the rendered script, as root, in a private
 * network namespace standing in for a node, with real iptables/ip6tables. The metadata service
 * listens on the node (169.254.169.254 on loopback, fe80::a9fe:a9fe on the pod link; this kernel has
 * no dummy interfaces; on a cloud it is routed, which takes the same raw PREROUTING hook). A second namespace behind a veth
 * pair stands in for a pod, routed through the node as a CNI routes it. Each probe has its control:
 * the same probe before the rules.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { NODE_METADATA_BLOCK_SCRIPT, renderNodeMetadataBlockScript } from '../../lib/capi/metadata-block';
import { hostProbeHolds, hostProbes, probeScript } from '../e2e/helpers/metadata-block-checks';
import { itWithTool, tempDir } from '../management-vm/helpers';

const canNetns = process.getuid?.() === 0;
const check = canNetns ? itWithTool('iptables', 'iptables') : it.skip;
if (!canNetns && process.env.CI !== 'true') {
  // eslint-disable-next-line no-console
  console.warn('\n\n*** WARNING: not root; SKIPPING the node metadata block tests (they need a private network namespace) ***\n');
}

/** Runs `body` with bash as root in a fresh network namespace, the script at ./capi-metadata-block. */
function inNetns(body: string): Promise<{ code: number; out: string }> {
  const dir = tempDir('node-metadata-block-');
  fs.writeFileSync(path.join(dir, 'capi-metadata-block'), renderNodeMetadataBlockScript(), { mode: 0o750 });
  const runner = path.join(dir, 'run.sh');
  fs.writeFileSync(runner, `set -euo pipefail\ncd ${dir}\n${body}\n`);
  return new Promise((resolve) => {
    execFile('unshare', ['--net', 'bash', runner], { timeout: 90_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? -1) : 0;
      resolve({ code: typeof code === 'number' ? code : -1, out: stdout + stderr });
    });
  });
}

/** A node with the metadata service listening on port 80 and a pod behind a veth pair. */
const NODE_AND_POD = `
sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
pod=$(mktemp -u pod-XXXXXX)
ip netns add "$pod"
trap 'kill "$listener" 2>/dev/null || true; ip netns del "$pod"' EXIT
ip netns exec "$pod" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip link add veth-node type veth peer name eth0 netns "$pod"
ip addr add 10.244.0.1/24 dev veth-node
ip -6 addr add fe80::a9fe:a9fe/64 dev veth-node nodad
ip link set veth-node up
ip netns exec "$pod" ip link set lo up
ip netns exec "$pod" ip addr add 10.244.0.2/24 dev eth0
ip netns exec "$pod" ip -6 addr add fe80::2/64 dev eth0 nodad
ip netns exec "$pod" ip link set eth0 up
ip netns exec "$pod" ip route add default via 10.244.0.1
# the metadata service: a dual-stack HTTP server with a control-plane node's user data
mkdir -p metadata/openstack/latest
printf '#cloud-config\nwrite_files:\n-   path: /etc/kubernetes/pki/ca.key\n' > metadata/openstack/latest/user_data
/usr/bin/python3 -m http.server 80 --bind :: --directory metadata >/dev/null 2>&1 &
listener=$!
# probe WHO ADDRESS: "connects" or "blocked" (refused or timed out)
probe() {
  local who=$1 address=$2 how=()
  case $who in
    root) how=() ;;
    nobody) how=(setpriv --reuid 65534 --regid 65534 --clear-groups) ;;
    pod) how=(ip netns exec "$pod") ;;
  esac
  # the system python (one every user can run): refused or timed out is "blocked", anything else fails the probe
  "\${how[@]}" /usr/bin/python3 -c '
import socket, sys
try:
    socket.create_connection((sys.argv[2], 80), timeout=3); print(sys.argv[1], "->", sys.argv[2], "connects")
except (ConnectionRefusedError, TimeoutError, PermissionError): print(sys.argv[1], "->", sys.argv[2], "blocked")' "$who" "$address"
}
# the listener must be up before the first probe
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/169.254.169.254/80) 2>/dev/null && break; sleep 0.2; done
`;

const PROBES = `
probe root 169.254.169.254
probe root fe80::a9fe:a9fe%veth-node
probe nobody 169.254.169.254
probe nobody fe80::a9fe:a9fe%veth-node
probe pod 169.254.169.254
probe pod fe80::a9fe:a9fe%eth0
probe pod 10.244.0.1
`;

const lines = (out: string) => out.split('\n').filter((l) => / -> \S+ (connects|blocked)$/.test(l));

describe('the node metadata block (in a private network namespace)', () => {
  check('root on the node connects; a non-root process and a pod do not, over IPv4 and IPv6; each open before the rules', async () => {
    const r = await inNetns(`${NODE_AND_POD}
echo '--- before'
${PROBES}
./capi-metadata-block apply
echo '--- after'
${PROBES}`);
    expect({ code: r.code, out: r.code === 0 ? '' : r.out }).toEqual({ code: 0, out: '' });
    const [before, after] = r.out.split('--- after');
    expect(lines(before)).toEqual([
      'root -> 169.254.169.254 connects',
      'root -> fe80::a9fe:a9fe%veth-node connects',
      'nobody -> 169.254.169.254 connects',
      'nobody -> fe80::a9fe:a9fe%veth-node connects',
      'pod -> 169.254.169.254 connects',
      'pod -> fe80::a9fe:a9fe%eth0 connects',
      'pod -> 10.244.0.1 connects',
    ]);
    expect(lines(after)).toEqual([
      'root -> 169.254.169.254 connects',
      'root -> fe80::a9fe:a9fe%veth-node connects',
      'nobody -> 169.254.169.254 blocked',
      'nobody -> fe80::a9fe:a9fe%veth-node blocked',
      'pod -> 169.254.169.254 blocked',
      'pod -> fe80::a9fe:a9fe%eth0 blocked',
      // the pod still reaches the node: only the metadata address is closed
      'pod -> 10.244.0.1 connects',
    ]);
  });

  check('apply is idempotent, puts each rule first in its chain, and verify fails until it has run', async () => {
    const r = await inNetns(`
if ./capi-metadata-block verify; then echo 'verify passed before apply'; fi
iptables -w -t raw -A PREROUTING -j ACCEPT
./capi-metadata-block apply
./capi-metadata-block apply
./capi-metadata-block verify
echo '--- raw'; iptables -w -t raw -S PREROUTING
echo '--- raw6'; ip6tables -w -t raw -S PREROUTING
echo '--- output'; iptables -w -S OUTPUT
echo '--- output6'; ip6tables -w -S OUTPUT
echo '--- end'`);
    expect({ code: r.code, out: r.code === 0 ? '' : r.out }).toEqual({ code: 0, out: '' });
    expect(r.out).not.toContain('verify passed before apply');
    expect(r.out).toContain('missing: iptables -t raw PREROUTING ! -i lo -d 169.254.169.254/32 -j DROP');
    const part = (name: string) => r.out.split(`--- ${name}\n`)[1].split('\n---')[0].split('\n').filter((l) => l.startsWith('-A'));
    // ahead of the ACCEPT a CNI might have put there first
    expect(part('raw')).toEqual(['-A PREROUTING -d 169.254.169.254/32 ! -i lo -j DROP', '-A PREROUTING -j ACCEPT']);
    expect(part('raw6')).toEqual(['-A PREROUTING -d fe80::a9fe:a9fe/128 ! -i lo -j DROP']);
    expect(part('output')).toEqual(['-A OUTPUT -d 169.254.169.254/32 -m owner ! --uid-owner 0 -j REJECT --reject-with icmp-port-unreachable']);
    expect(part('output6')).toEqual(['-A OUTPUT -d fe80::a9fe:a9fe/128 -m owner ! --uid-owner 0 -j REJECT --reject-with icmp6-port-unreachable']);
    expect(r.out).toContain('pods and non-root processes cannot reach 169.254.169.254/32 or fe80::a9fe:a9fe/128');
  });

  check('the real-nodes suite\'s probes (test/e2e/helpers/metadata-block-checks.ts) tell the outcomes apart', async () => {
    const probes = hostProbes('10.244.0.1');
    const run = probes.map((p, i) => `echo '=== ${i}'; rc=0; ${p.argv.map((a) => (a === NODE_METADATA_BLOCK_SCRIPT ? './capi-metadata-block' : quote(a))).join(' ')} || rc=$?; echo "=== rc $rc"`).join('\n');
    const pod = [probeScript('169.254.169.254'), probeScript('10.244.0.1')].map((p) => `rc=0; ip netns exec "$pod" bash -c ${quote(p)} >/dev/null || rc=$?; echo "pod rc $rc"`).join('\n');
    const r = await inNetns(`${NODE_AND_POD}
echo '--- before'
${run}
${pod}
./capi-metadata-block apply 2>/dev/null
echo '--- after'
${run}
${pod}`);
    expect({ code: r.code, out: r.code === 0 ? '' : r.out }).toEqual({ code: 0, out: '' });
    const holds = (part: string) =>
      probes.map((p, i) => {
        const [, out, rc] = new RegExp(`=== ${i}\\n([\\s\\S]*?)=== rc (\\d+)`).exec(part)!;
        return `${p.name}: ${hostProbeHolds(p, { code: Number(rc), out }) ? 'as expected' : `not ${p.expect}`}`;
      });
    const [before, after] = r.out.split('--- after');
    // before the rules: verify fails and the non-root process connects (the probes can fail)
    expect(holds(before)).toEqual([
      'the block is in place (capi-metadata-block verify): not succeeds',
      'root on the node reads the user data: as expected',
      'a non-root process on the node: not blocked',
      'control: the same non-root process reaches the node address: as expected',
    ]);
    expect(holds(after)).toEqual(probes.map((p) => `${p.name}: as expected`));
    expect(before.match(/pod rc \d+/g)).toEqual(['pod rc 0', 'pod rc 0']);
    expect(after.match(/pod rc \d+/g)).toEqual(['pod rc 7', 'pod rc 0']);
  });
});

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
