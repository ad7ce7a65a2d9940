/**
 * The bootstrap scripts run for real here, on what this machine can offer: downloads from a
 * loopback HTTP server with real checksums, the entry point's markers and time limits, and the
 * metadata block rules in a private network namespace.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as path from 'path';
import { renderLibSh } from '../../lib/management-vm/scripts/lib-sh';
import { renderMetadataBlockSh } from '../../lib/management-vm/scripts/metadata-block-sh';
import { renderDownloadToolsSh } from '../../lib/management-vm/scripts/download-tools-sh';
import { itWithTool, tempDir } from './helpers';
import { bash, sha256, writeScripts } from './run-scripts';

describe('download-tools.sh', () => {
  const payloads: Record<string, string> = {
    kind: '#!/bin/sh\necho "kind v0.31.0 go1.25 linux/amd64"\n',
    kubectl: '#!/bin/sh\n[ "$1 $2" = "version --client" ] || exit 9\necho "Client Version: v1.35.0"\n',
    // clusterctl's check for a newer release waits ~70 s where GitHub is out of reach
    clusterctl: '#!/bin/sh\n[ "$1" = version ] && [ "$CLUSTERCTL_DISABLE_VERSIONCHECK" = true ] || exit 9\necho "clusterctl version: v1.12.4"\n',
  };
  let server: http.Server;
  let base: string;
  const requests: string[] = [];
  let failNext = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      const name = (req.url ?? '').slice(1);
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end('busy');
      } else if (name in payloads) {
        res.writeHead(200).end(payloads[name]);
      } else if (name === 'tampered') {
        res.writeHead(200).end('#!/bin/sh\necho evil\n');
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Renders for https://downloads.invalid and points the script at the loopback server. */
  function scriptFor(tools: Record<string, { path: string; sha256: string }>): string {
    const dir = tempDir('download-tools-');
    const text = renderDownloadToolsSh(
      Object.fromEntries(Object.entries(tools).map(([n, t]) => [n, { version: 'v1.0.0', url: `https://downloads.invalid/${t.path}`, sha256: t.sha256 }])),
    ).split('https://downloads.invalid').join(base);
    writeScripts(dir, { 'lib.sh': renderLibSh(), 'download-tools.sh': text });
    return path.join(dir, 'download-tools.sh');
  }

  it('installs verified binaries, keeps them on a second run', async () => {
    const bin = tempDir('bin-');
    const script = scriptFor(Object.fromEntries(Object.entries(payloads).map(([name, body]) => [name, { path: name, sha256: sha256(body) }])));
    const first = await bash(script, [], { CAPI_BOOTSTRAP_BIN_DIR: bin });
    expect(first).toEqual({ code: 0, out: expect.stringContaining(`kind: sha256 ${sha256(payloads.kind)} verified`) });
    expect(first.out).toContain('kubectl: Client Version: v1.35.0');
    expect(first.out).toContain('clusterctl: clusterctl version: v1.12.4');
    expect(fs.readFileSync(path.join(bin, 'kind'), 'utf8')).toBe(payloads.kind);
    expect(fs.statSync(path.join(bin, 'kubectl')).mode & 0o777).toBe(0o755);
    const before = requests.length;
    const second = await bash(script, [], { CAPI_BOOTSTRAP_BIN_DIR: bin });
    expect(second.code).toBe(0);
    expect(second.out).toContain('kind: already installed, checksum verified');
    expect(requests.length).toBe(before);
  });

  it('refuses a binary whose checksum does not match, loudly', async () => {
    const bin = tempDir('bin-');
    const script = scriptFor({ kind: { path: 'tampered', sha256: sha256(payloads.kind) } });
    const r = await bash(script, [], { CAPI_BOOTSTRAP_BIN_DIR: bin });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(`kind: CHECKSUM MISMATCH for ${base}/tampered: expected sha256 ${sha256(payloads.kind)}, got ${sha256('#!/bin/sh\necho evil\n')}`);
    expect(fs.readdirSync(bin)).toEqual([]);
  });

  it('retries a failed download', async () => {
    const bin = tempDir('bin-');
    const script = scriptFor({ kind: { path: 'kind', sha256: sha256(payloads.kind) } });
    failNext = 1;
    const r = await bash(script, [], { CAPI_BOOTSTRAP_BIN_DIR: bin });
    expect(r.out).toContain('attempt 1/5 failed, retrying in 10s');
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(bin, 'kind'), 'utf8')).toBe(payloads.kind);
  }, 60_000);
});

describe('metadata-block.sh (in a private network namespace)', () => {
  const canNetns = process.getuid?.() === 0;
  const check = canNetns ? itWithTool('iptables', 'iptables') : it.skip;
  if (!canNetns && process.env.CI !== 'true') {
    // eslint-disable-next-line no-console
    console.warn('\n\n*** WARNING: not root; SKIPPING the metadata block tests (they need a private network namespace) ***\n');
  }

  function inNetns(body: string): Promise<{ code: number; out: string }> {
    const dir = tempDir('metadata-block-');
    writeScripts(dir, { 'lib.sh': renderLibSh(), 'metadata-block.sh': renderMetadataBlockSh() });
    const runner = path.join(dir, 'run.sh');
    fs.writeFileSync(runner, `set -euo pipefail\ncd ${dir}\n${body}\n`);
    return new Promise((resolve) => {
      execFile('unshare', ['--net', 'bash', runner], { timeout: 60_000 }, (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? -1) : 0;
        resolve({ code: typeof code === 'number' ? code : -1, out: stdout + stderr });
      });
    });
  }

  check('installs the raw, OUTPUT (IPv4 and IPv6) and DOCKER-USER rules once, and verify passes', async () => {
    const r = await inNetns(`
./metadata-block.sh early
./metadata-block.sh early
iptables -w -N DOCKER-USER
./metadata-block.sh docker-user
./metadata-block.sh docker-user
./metadata-block.sh verify
echo '--- raw'; iptables -w -t raw -S PREROUTING
echo '--- raw6'; ip6tables -w -t raw -S PREROUTING
echo '--- output'; iptables -w -S OUTPUT; ip6tables -w -S OUTPUT
echo '--- filter'; iptables -w -S DOCKER-USER`);
    expect(r.code).toBe(0);
    const part = (name: string) => r.out.split(`--- ${name}\n`)[1].split('---')[0];
    expect(part('raw').match(/-j DROP/g)).toHaveLength(2);
    expect(part('raw')).toContain('-A PREROUTING -d 169.254.169.254/32 -i docker0 -j DROP');
    expect(part('raw')).toContain('-A PREROUTING -d 169.254.169.254/32 -i br-+ -j DROP');
    expect(part('raw6').match(/-j DROP/g)).toHaveLength(2);
    expect(part('raw6')).toContain('-A PREROUTING -d fe80::a9fe:a9fe/128 -i br-+ -j DROP');
    expect(part('output')).toContain('-A OUTPUT -d 169.254.169.254/32 -m owner ! --uid-owner 0 -j REJECT');
    expect(part('output')).toContain('-A OUTPUT -d fe80::a9fe:a9fe/128 -m owner ! --uid-owner 0 -j REJECT');
    expect(part('output').match(/-j REJECT/g)).toHaveLength(2);
    expect(part('filter').match(/-j DROP/g)).toHaveLength(2);
    expect(part('filter')).toContain('-A DOCKER-USER -d 169.254.169.254/32 -i br-+ -j DROP');
    expect(r.out).toContain('containers and non-root processes cannot reach 169.254.169.254/32 or fe80::a9fe:a9fe/128');
  });

  check('host processes: root (cloud-init) still reaches the metadata address, any other user does not', async () => {
    const r = await inNetns(`
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
python3 -c 'import socket,time;s=socket.socket();s.bind(("169.254.169.254",8080));s.listen(8);time.sleep(60)' &
listener=$!
# the listener must be up before the first probe (a fixed pause was too short on a loaded machine)
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/169.254.169.254/8080) 2>/dev/null && break; sleep 0.2; done
connect() {
  if setpriv --reuid "$1" --regid "$1" --clear-groups timeout 3 bash -c "exec 3<>/dev/tcp/169.254.169.254/8080" 2>/dev/null; then echo "uid $1 connects"; else echo "uid $1 refused"; fi
}
connect 65534
./metadata-block.sh early >/dev/null
connect 65534
connect 0
kill $listener`);
    expect(r.code).toBe(0);
    expect(r.out.match(/uid \d+ (connects|refused)/g)).toEqual(['uid 65534 connects', 'uid 65534 refused', 'uid 0 connects']);
  });

  check('fails clearly when docker has not created DOCKER-USER, and verify fails without the rules', async () => {
    const noChain = await inNetns('./metadata-block.sh docker-user');
    expect(noChain.code).not.toBe(0);
    expect(noChain.out).toContain('the DOCKER-USER chain does not exist');
    const unverified = await inNetns('./metadata-block.sh early\n./metadata-block.sh verify');
    expect(unverified.code).not.toBe(0);
    expect(unverified.out).toContain('missing: iptables -t filter DOCKER-USER -i docker0');
  });

  check('really drops packets from a bridge to the metadata address', async () => {
    // host namespace: bridge br-test with a "container" behind a veth; metadata address on lo.
    const r = await inNetns(`
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
ip link add br-test type bridge
ip addr add 172.31.0.1/24 dev br-test
ip link set br-test up
ip link add veth-host type veth peer name veth-ctr
ip link set veth-host master br-test up
ctr=$(mktemp -u ctr-XXXXXX)
ip netns add "$ctr"
trap 'ip netns del "$ctr"' EXIT
ip link set veth-ctr netns "$ctr"
ip netns exec "$ctr" ip link set lo up
ip netns exec "$ctr" ip addr add 172.31.0.2/24 dev veth-ctr
ip netns exec "$ctr" ip link set veth-ctr up
ip netns exec "$ctr" ip route add default via 172.31.0.1
# nothing listens: a reachable address answers at once (connection refused), a dropped one times out
probe() {
  local rc=0
  ip netns exec "$ctr" timeout 3 bash -c "exec 3<>/dev/tcp/$1/80" 2>/dev/null || rc=$?
  if ((rc == 124)); then echo "$1 blocked"; else echo "$1 reachable"; fi
}
probe 169.254.169.254
./metadata-block.sh early
probe 169.254.169.254
probe 172.31.0.1`);
    expect(r.code).toBe(0);
    expect(r.out.match(/169\.254\.169\.254 (reachable|blocked)/g)).toEqual(['169.254.169.254 reachable', '169.254.169.254 blocked']);
    expect(r.out).toContain('172.31.0.1 reachable');
  });
});
