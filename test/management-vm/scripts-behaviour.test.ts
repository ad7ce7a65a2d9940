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
import { renderMainSh } from '../../lib/management-vm/scripts/main-sh';
import { renderMetadataBlockSh } from '../../lib/management-vm/scripts/metadata-block-sh';
import { renderDownloadToolsSh } from '../../lib/management-vm/scripts/download-tools-sh';
import { CONTAINERD_SNAPSHOTTER_AWK, MANIFEST_IMAGES_AWK } from '../../lib/management-vm/scripts/prepull-images-sh';
import { itWithTool, run, tempDir } from './helpers';
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

describe('capi-bootstrap.sh (entry point)', () => {
  function setup(steps: Parameters<typeof renderMainSh>[0], extra: Record<string, string>, dir = tempDir('bootstrap-main-')) {
    const scripts = path.join(dir, 'scripts');
    fs.mkdirSync(scripts);
    writeScripts(scripts, { 'lib.sh': renderLibSh(), 'capi-bootstrap.sh': renderMainSh(steps), ...extra });
    const env = {
      CAPI_BOOTSTRAP_SCRIPT_DIR: scripts,
      CAPI_BOOTSTRAP_STATE_DIR: path.join(dir, 'state'),
      CAPI_BOOTSTRAP_LOG_FILE: path.join(dir, 'bootstrap.log'),
      CAPI_BOOTSTRAP_PROXY_ENV: path.join(dir, 'proxy.env'),
    };
    return { dir, env, main: path.join(scripts, 'capi-bootstrap.sh') };
  }
  const ok = '#!/usr/bin/env bash\necho "step ran with $* proxy=${HTTPS_PROXY:-none} kubeconfig=$KUBECONFIG"\n';

  it('runs the steps in order, logs them and writes the done marker', async () => {
    const { env, main, dir } = setup(
      [
        { name: 'first', command: ['ok.sh', 'a'], timeoutSeconds: 10 },
        { name: 'second', command: ['ok.sh', 'b'], timeoutSeconds: 10 },
      ],
      { 'ok.sh': ok },
    );
    fs.writeFileSync(path.join(dir, 'proxy.env'), "HTTPS_PROXY='http://proxy.example.com:3128'\n");
    const r = await bash(main, [], env);
    expect(r.code).toBe(0);
    const log = fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8');
    expect(log).toMatch(/==> first[\s\S]*step ran with a proxy=http:\/\/proxy.example.com:3128 kubeconfig=\/etc\/capi-bootstrap\/kubeconfig[\s\S]*<== first done[\s\S]*==> second[\s\S]*step ran with b/);
    expect(log).toContain('bootstrap finished');
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'done'))).toBe(true);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'))).toBe(false);
  });

  it('stops at a failing step and records it in the error marker; a later success clears it', async () => {
    const dir = tempDir('bootstrap-main-');
    const { env, main } = setup(
      [
        { name: 'first', command: ['ok.sh'], timeoutSeconds: 10 },
        { name: 'broken', command: ['flaky.sh'], timeoutSeconds: 10 },
        { name: 'never', command: ['ok.sh', 'never'], timeoutSeconds: 10 },
      ],
      { 'ok.sh': ok, 'flaky.sh': `#!/usr/bin/env bash\n[[ -f ${dir}/fixed ]] || { echo "something broke" >&2; exit 3; }\n` },
      dir,
    );
    const r = await bash(main, [], env);
    expect(r.code).toBe(3);
    const marker = fs.readFileSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'), 'utf8');
    expect(marker).toMatch(/^step=broken\nexit_code=3\ntime=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'done'))).toBe(false);
    const log = fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8');
    expect(log).toContain('something broke');
    expect(log).toContain("FAILED in step 'broken' (exit code 3)");
    expect(log).not.toContain('step ran with never');

    fs.writeFileSync(path.join(dir, 'fixed'), '');
    expect((await bash(main, [], env)).code).toBe(0);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'))).toBe(false);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'done'))).toBe(true);
  });

  it('runs the branches of a side-by-side stage at once, each step\'s lines labelled, and the next stage after all of them', async () => {
    const { env, main, dir } = setup(
      [
        { name: 'first', command: ['ok.sh', 'a'], timeoutSeconds: 10 },
        {
          sideBySide: [
            // waits for what the other branch writes: only finishes if both run at once
            [{ name: 'waits', command: ['await.sh', 'left'], timeoutSeconds: 20 }, { name: 'after-waits', command: ['ok.sh', 'c'], timeoutSeconds: 10 }],
            [{ name: 'writes', command: ['touch.sh', 'left'], timeoutSeconds: 10 }],
          ],
        },
        { name: 'last', command: ['await.sh', 'after-waits-ran'], timeoutSeconds: 1 },
      ],
      {
        'ok.sh': `#!/usr/bin/env bash\n. "$(dirname "$0")/lib.sh"\nlog "step ran with $*"\n[[ $* != c ]] || touch "$(dirname "$0")/after-waits-ran"\n`,
        'await.sh': '#!/usr/bin/env bash\nfor _ in $(seq 100); do [[ -f "$(dirname "$0")/$1" ]] && exit 0; sleep 0.1; done; exit 7\n',
        'touch.sh': '#!/usr/bin/env bash\nsleep 0.5; touch "$(dirname "$0")/$1"\n',
      },
    );
    const r = await bash(main, [], env);
    expect(r.code).toBe(0);
    const log = fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8');
    expect(log).toMatch(/\[capi-bootstrap\] \[first\] step ran with a\n/);
    expect(log).toMatch(/\[capi-bootstrap\] \[after-waits\] step ran with c\n/);
    for (const step of ['waits', 'writes', 'after-waits', 'last']) expect(log).toMatch(new RegExp(`<== ${step} done in \\d+s`));
    expect(log.indexOf('<== after-waits done')).toBeLessThan(log.indexOf('==> last'));
    expect(fs.existsSync(path.join(dir, 'state', 'done'))).toBe(true);
  });

  it('a failing branch fails the stage once every branch has ended: the marker names its step, nothing after the stage runs', async () => {
    const { env, main, dir } = setup(
      [
        {
          sideBySide: [
            [{ name: 'slow', command: ['slow-ok.sh'], timeoutSeconds: 10 }],
            [{ name: 'broken', command: ['fail.sh'], timeoutSeconds: 10 }, { name: 'never-in-branch', command: ['touch.sh', 'branch'], timeoutSeconds: 10 }],
          ],
        },
        { name: 'never', command: ['touch.sh', 'after'], timeoutSeconds: 10 },
      ],
      {
        'slow-ok.sh': '#!/usr/bin/env bash\nsleep 1; touch "$(dirname "$0")/slow-ran"\n',
        'fail.sh': '#!/usr/bin/env bash\necho "something broke" >&2; exit 5\n',
        'touch.sh': '#!/usr/bin/env bash\ntouch "$(dirname "$0")/$1"\n',
      },
    );
    const r = await bash(main, [], env);
    expect(r.code).toBe(5);
    const scripts = path.join(dir, 'scripts');
    expect(fs.existsSync(path.join(scripts, 'slow-ran'))).toBe(true);
    expect(fs.existsSync(path.join(scripts, 'branch'))).toBe(false);
    expect(fs.existsSync(path.join(scripts, 'after'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'state', 'error'), 'utf8')).toMatch(/^step=broken\nexit_code=5\n/);
    expect(fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8')).toContain("FAILED in step 'broken' (exit code 5)");
  });

  it('refuses a plan it could not run: duplicate step names, a side-by-side stage of one branch', () => {
    const s = { name: 'one', command: ['ok.sh'], timeoutSeconds: 1 };
    expect(() => renderMainSh([s, { sideBySide: [[{ ...s, name: 'two' }], [s]] }])).toThrow('bootstrap steps: step name "one" is used twice');
    expect(() => renderMainSh([{ sideBySide: [[s]] }])).toThrow('bootstrap steps: a side-by-side stage needs at least two branches of at least one step each (stage 1)');
  });

  it('enforces the time limit of a step', async () => {
    const { env, main } = setup([{ name: 'slow', command: ['slow.sh'], timeoutSeconds: 1 }], { 'slow.sh': '#!/usr/bin/env bash\nsleep 30\n' });
    const started = Date.now();
    const r = await bash(main, [], env);
    expect(Date.now() - started).toBeLessThan(25_000); // the step would sleep 30 s; room for a loaded machine
    expect(r.code).toBe(124);
    expect(fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8')).toContain("step 'slow' did not finish within 1s");
    expect(fs.readFileSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'), 'utf8')).toContain('step=slow\nexit_code=124\n');
  });
});

// Ubuntu and Debian images ship mawk as awk; gawk where it is installed
describe.each(['mawk', 'gawk'].filter((a) => run('sh', ['-c', `command -v ${a}`]).status === 0))('prepull-images.sh: what it reads (%s on real text)', (bin) => {
  const awk = (program: string, input: string) => {
    const dir = tempDir('prepull-');
    fs.writeFileSync(path.join(dir, 'program.awk'), program);
    fs.writeFileSync(path.join(dir, 'input'), input);
    return run(bin, ['-f', path.join(dir, 'program.awk'), path.join(dir, 'input')]).stdout;
  };

  it('names every container image of a manifest as containerd does, and skips what only clusterctl could fill in', () => {
    const manifest = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - image: registry.k8s.io/cluster-api/cluster-api-controller:v1.12.10',
      '          imagePullPolicy: IfNotPresent',
      '        - name: webhook',
      '          image: "quay.io/jetstack/cert-manager-webhook:v1.19.4"',
      "          image: 'ghcr.io/example/quoted:v1' # a comment",
      '          image: busybox',
      '          image: example/tool@sha256:' + 'a'.repeat(64),
      '          image: localhost:5000/local',
      '          image: ${CAPO_IMAGE:=registry.k8s.io/capi-openstack/capi-openstack-controller:v0.14.7}',
      '---',
      '# a CRD property called image, not a container',
      '                image:',
      '                  type: string',
      '                description: "the image: used"',
    ].join('\n');
    expect(awk(MANIFEST_IMAGES_AWK, manifest).split('\n').filter(Boolean)).toEqual([
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.10',
      'quay.io/jetstack/cert-manager-webhook:v1.19.4',
      'ghcr.io/example/quoted:v1',
      'docker.io/library/busybox:latest',
      'docker.io/example/tool@sha256:' + 'a'.repeat(64),
      'localhost:5000/local:latest',
    ]);
  });

  it('finds the CRI snapshotter in containerd 1.x (config version 2) and 2.x (version 3), nowhere else', () => {
    const v2 = [
      'version = 2',
      '[plugins]',
      '  [plugins."io.containerd.gc.v1.scheduler"]',
      '    snapshotter = "wrong"',
      '  [plugins."io.containerd.grpc.v1.cri"]',
      '    sandbox_image = "registry.k8s.io/pause:3.10"',
      '    [plugins."io.containerd.grpc.v1.cri".containerd]',
      '      default_runtime_name = "runc"',
      '      snapshotter = "overlayfs"',
      '  [plugins."io.containerd.snapshotter.v1.native"]',
    ].join('\n');
    expect(awk(CONTAINERD_SNAPSHOTTER_AWK, v2)).toBe('overlayfs\n');
    const v3 = ['version = 3', '[plugins]', "  [plugins.'io.containerd.cri.v1.images']", "    snapshotter = 'native'", "  [plugins.'io.containerd.cri.v1.runtime']", "    snapshotter = 'wrong'"].join('\n');
    expect(awk(CONTAINERD_SNAPSHOTTER_AWK, v3)).toBe('native\n');
    expect(awk(CONTAINERD_SNAPSHOTTER_AWK, '[plugins]\n  [plugins."io.containerd.snapshotter.v1.overlayfs"]\n    snapshotter = "x"\n')).toBe('');
  });
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
