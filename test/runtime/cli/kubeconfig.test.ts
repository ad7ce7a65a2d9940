/**
 * `kubeconfig`: outputs read with the real `terraform output -json` from local state, the Secret
 * read over TLS with client-certificate authentication, files written 0600, no key material printed.
 * The API server here is a small node https server answering the one GET the command makes;
 * the run against kube-apiserver with deployed stacks is part of the e2e suites.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { secretRef } from '../../../lib/runtime/cli/commands/kubeconfig';
import { credentialsFromKubeconfig, writePrivateFile } from '../../../lib/runtime/cli/kubeconfig/kubeconfig-file';
import { parseOutputsJson, requireOutput, terraformErrorLine } from '../../../lib/runtime/cli/kubeconfig/stack-outputs';
import { renderKubeconfig } from '../../../lib/kubeconfig/kubeconfig';
import { makeTlsFixture, TlsFixture } from './support/tls-fixture';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const env = { ...process.env, CHECKPOINT_DISABLE: '1' };

/** A synthesized stack directory with a local backend, initialised, and a state holding `outputs`. */
function deployedStack(root: string, stack: string, outputs: Record<string, { value: unknown; sensitive?: boolean }> | undefined): void {
  const dir = path.join(root, 'stacks', stack);
  fs.mkdirSync(dir, { recursive: true });
  const state = path.join(root, `terraform.${stack}.tfstate`);
  fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify({ terraform: { backend: { local: { path: state } } } }));
  execFileSync('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env, stdio: 'pipe' });
  if (outputs) {
    fs.writeFileSync(
      state,
      JSON.stringify({
        version: 4,
        terraform_version: '1.11.4',
        serial: 1,
        lineage: '7a1c2f5e-0000-4000-8000-000000000001',
        outputs: Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, { value: o.value, type: typeOf(o.value), ...(o.sensitive ? { sensitive: true } : {}) }])),
        resources: [],
        check_results: null,
      }),
    );
  }
}

/** Terraform's JSON type of a value in a state file. */
function typeOf(v: unknown): unknown {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  return ['object', Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, typeOf(x)]))];
}

function kubeconfigFor(server: string, tls: Pick<TlsFixture, 'caPem' | 'clientCertPem' | 'clientKeyPem'>, name: string): string {
  return renderKubeconfig({ clusterName: name, server, caCertificateBase64: b64(tls.caPem), clientCertificateBase64: b64(tls.clientCertPem), clientKeyBase64: b64(tls.clientKeyPem) });
}

describe('kubeconfig command', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-kubeconfig-'));
  const cdktfOut = path.join(work, 'cdktf.out');
  let tls: TlsFixture;
  let other: TlsFixture;
  let server: https.Server;
  let url: string;
  const requests: { path: string; clientCn?: string }[] = [];
  // What CAPI writes into <cluster>-kubeconfig (shape only; the e2e suite reads a real one).
  const workloadKubeconfig = renderKubeconfig({ clusterName: 'demo', server: 'https://192.0.2.50:6443', caCertificateBase64: 'Q0E=', clientCertificateBase64: 'Q0VSVA==', clientKeyBase64: 'S0VZ' });

  beforeAll(async () => {
    tls = makeTlsFixture(work, 'mgmt');
    other = makeTlsFixture(work, 'other');
    server = https.createServer({ key: tls.serverKeyPem, cert: tls.serverCertPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as import('tls').TLSSocket).getPeerCertificate();
      requests.push({ path: req.url ?? '', clientCn: [peer?.subject?.CN].flat()[0] });
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET' && req.url === '/api/v1/namespaces/capi-lab-demo/secrets/demo-kubeconfig') {
        res.end(JSON.stringify({ kind: 'Secret', data: { value: b64(workloadKubeconfig) } }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ kind: 'Status', message: `secrets "${req.url?.split('/').pop()}" not found` }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

    deployedStack(cdktfOut, 'lab-management', { kubeconfig: { value: kubeconfigFor(url, tls, 'lab-management'), sensitive: true }, floating_ip: { value: '127.0.0.1' } });
    deployedStack(cdktfOut, 'lab-demo', { kubeconfig_secret: { value: { namespace: 'capi-lab-demo', name: 'demo-kubeconfig', key: 'value' } } });
    deployedStack(cdktfOut, 'lab-gone', { kubeconfig_secret: { value: { namespace: 'capi-lab-gone', name: 'gone-kubeconfig' } } });
    deployedStack(cdktfOut, 'fresh-management', undefined);
    // a management stack whose admin certificate the API server does not trust
    deployedStack(cdktfOut, 'rogue-management', { kubeconfig: { value: kubeconfigFor(url, { caPem: tls.caPem, clientCertPem: other.clientCertPem, clientKeyPem: other.clientKeyPem }, 'rogue'), sensitive: true } });
    deployedStack(cdktfOut, 'rogue-demo', { kubeconfig_secret: { value: { namespace: 'capi-lab-demo', name: 'demo-kubeconfig' } } });
  }, 120_000);

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const run = async (...args: string[]) => {
    const io = memoryIo(work, env);
    const code = await runCli(['kubeconfig', ...args, '--cdktf-out', cdktfOut], io);
    const all = [...io.stdout, ...io.stderr].join('\n');
    // never any key material in what the command prints
    expect(all).not.toMatch(/BEGIN|PRIVATE|client-key-data/);
    expect(all).not.toContain(b64(tls.clientKeyPem).slice(0, 40));
    return { code, io };
  };

  test('management: the kubeconfig output, written 0600 to ./<env>.kubeconfig', async () => {
    const { code, io } = await run('lab');
    expect(code).toBe(0);
    const file = path.join(work, 'lab.kubeconfig');
    expect(fs.readFileSync(file, 'utf8')).toBe(kubeconfigFor(url, tls, 'lab-management'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(io.stdout).toEqual([`wrote lab.kubeconfig (management cluster of lab, API ${url}); try: KUBECONFIG=lab.kubeconfig kubectl get nodes`]);
    expect(io.stderr).toEqual(['kubeconfig: reading outputs of stack lab-management (terraform output)…']);
  });

  test('workload: the Secret named by the stack, read with the admin client certificate', async () => {
    const { code, io } = await run('lab', 'demo', '--out', 'kube/demo.yaml');
    expect(code).toBe(0);
    const file = path.join(work, 'kube', 'demo.yaml');
    expect(fs.readFileSync(file, 'utf8')).toBe(workloadKubeconfig);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(io.stdout).toEqual(['wrote kube/demo.yaml (workload cluster demo of lab, API https://192.0.2.50:6443); try: KUBECONFIG=kube/demo.yaml kubectl get nodes']);
    expect(requests[requests.length - 1]).toEqual({ path: '/api/v1/namespaces/capi-lab-demo/secrets/demo-kubeconfig', clientCn: 'admin' });
  });

  test('an existing output file is replaced and made 0600', async () => {
    const file = path.join(work, 'lab-demo.kubeconfig');
    fs.writeFileSync(file, 'old', { mode: 0o644 });
    expect((await run('lab', 'demo')).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(workloadKubeconfig);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  test('a Secret that does not exist (yet): one line, exit 1, nothing written', async () => {
    const { code, io } = await run('lab', 'gone');
    expect(code).toBe(1);
    expect(io.stderr[io.stderr.length - 1]).toBe(
      `error: secret capi-lab-gone/gone-kubeconfig on the management cluster (${url}) does not exist (yet): the cluster is still being created, or the stack names another secret`,
    );
    expect(fs.existsSync(path.join(work, 'lab-gone.kubeconfig'))).toBe(false);
  });

  test('a client certificate the API server does not accept: one line, exit 1', async () => {
    const { code, io } = await run('rogue', 'demo');
    expect(code).toBe(1);
    expect(io.stderr[io.stderr.length - 1]).toMatch(new RegExp(`^error: cannot reach the management cluster at ${url.replace(/\./g, '\\.')}: `));
  });

  test('a stack that was never deployed / never synthesized / has no such cluster', async () => {
    const fresh = await run('fresh');
    expect(fresh.code).toBe(1);
    expect(fresh.io.stderr.pop()).toBe('error: stack fresh-management has no outputs: it has not been deployed yet (cdktf deploy fresh-management)');
    const none = await run('nowhere');
    expect(none.code).toBe(1);
    expect(none.io.stderr.pop()).toBe(
      `error: no synthesized stack nowhere-management (${path.join(cdktfOut, 'stacks', 'nowhere-management')} does not exist): run \`cdktf synth\` or \`cdktf deploy nowhere-management\` in the project first`,
    );
    const noCluster = await run('lab', 'prod');
    expect(noCluster.code).toBe(1);
    expect(noCluster.io.stderr.pop()).toMatch(/^error: no synthesized stack lab-prod /);
  });

  test('a stack directory that was never initialised: the Terraform error in one line', async () => {
    const dir = path.join(cdktfOut, 'stacks', 'raw-management');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify({ terraform: { backend: { local: { path: path.join(work, 'raw.tfstate') } } } }));
    const { code, io } = await run('raw');
    expect(code).toBe(1);
    expect(io.stderr.pop()).toBe(
      'error: terraform output of stack raw-management failed: Backend initialization required, please run "terraform init" (the stack was never deployed from this directory: cdktf deploy raw-management)',
    );
  });

  test('an environment with existingManagementCluster has no management stack to read', async () => {
    const dir = path.join(work, 'environments');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(work, 'byo.kubeconfig'), kubeconfigFor(url, tls, 'byo'));
    fs.writeFileSync(path.join(dir, 'byo.yaml'), 'cloud: { name: x }\nexistingManagementCluster:\n  kubeconfigFile: ../byo.kubeconfig\n');
    const { code, io } = await run('byo');
    expect(code).toBe(1);
    expect(io.stderr.pop()).toBe(`error: environment byo uses an existing management cluster (existingManagementCluster): its kubeconfig is ${path.join(work, 'byo.kubeconfig')}`);
  });

  test("stacks of one's own: --management-stack and --stack name them", async () => {
    const mgmt = await run('acme', '--management-stack', 'lab-management', '--out', 'acme.kubeconfig');
    expect(mgmt.code).toBe(0);
    expect(mgmt.io.stderr).toEqual(['kubeconfig: reading outputs of stack lab-management (terraform output)…']);
    const workload = await run('acme', 'demo', '--management-stack', 'lab-management', '--stack', 'lab-demo', '--out', 'acme-demo.kubeconfig');
    expect(workload.code).toBe(0);
    expect(fs.readFileSync(path.join(work, 'acme-demo.kubeconfig'), 'utf8')).toBe(workloadKubeconfig);
    const bad = await run('acme', '--management-stack', 'no such/stack');
    expect(bad.code).toBe(1);
    expect(bad.io.stderr.pop()).toBe('error: --management-stack: "no such/stack" is not a stack name (letters, digits, "-" and "_")');
  });

  test('invalid names are refused before anything runs', async () => {
    const { code, io } = await run('Lab');
    expect(code).toBe(1);
    expect(io.stderr).toEqual(['error: "Lab" is not a valid environment name']);
  });
});

describe('kubeconfig helpers', () => {
  test('terraform output -json: values and sensitivity', () => {
    const outputs = parseOutputsJson('{"kubeconfig":{"sensitive":true,"type":"string","value":"apiVersion: v1"},"n":{"sensitive":false,"type":"number","value":3}}', 's');
    expect(outputs).toEqual({ kubeconfig: { value: 'apiVersion: v1', sensitive: true }, n: { value: 3, sensitive: false } });
    expect(() => requireOutput(outputs, 's', 'missing')).toThrow('stack s has no output "missing" (it has: kubeconfig, n)');
    expect(() => parseOutputsJson('Warning: x', 's')).toThrow('terraform output of stack s is not JSON');
  });

  test('the first Terraform error line, without colours and box drawing', () => {
    const stderr = '\x1b[31m╷\x1b[0m\n\x1b[31m│\x1b[0m \x1b[1m\x1b[31mError: \x1b[0mNo outputs found\n│ \n│ The state file either has no outputs defined.\n╵\n';
    expect(terraformErrorLine(stderr)).toBe('No outputs found: The state file either has no outputs defined.');
    expect(terraformErrorLine('something odd\n')).toBe('something odd');
  });

  test('secret reference: object or JSON string; key defaults to value', () => {
    expect(secretRef({ namespace: 'a', name: 'b' }, 's')).toEqual({ namespace: 'a', name: 'b', key: 'value' });
    expect(secretRef('{"namespace":"a","name":"b","key":"k"}', 's')).toEqual({ namespace: 'a', name: 'b', key: 'k' });
    expect(() => secretRef({ name: 'b' }, 's')).toThrow('output "kubeconfig_secret" of stack s is not {namespace, name}');
  });

  test('credentials: inline data, files relative to the kubeconfig, tokens; exec plugins refused clearly', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-kc-'));
    fs.writeFileSync(path.join(dir, 'ca.pem'), 'CA');
    const text = [
      'apiVersion: v1',
      'current-context: a',
      'contexts: [{name: a, context: {cluster: c, user: u}}, {name: b, context: {cluster: c, user: e}}]',
      'clusters: [{name: c, cluster: {server: "https://h:6443", certificate-authority: ca.pem}}]',
      'users: [{name: u, user: {token: t0k}}, {name: e, user: {exec: {command: x}}}]',
    ].join('\n');
    expect(credentialsFromKubeconfig(text, 'k', { baseDir: dir })).toEqual({ server: 'https://h:6443', caPem: 'CA', token: 't0k' });
    expect(() => credentialsFromKubeconfig(text, 'k', { baseDir: dir, context: 'b' })).toThrow('k lacks a client certificate or token (exec plugins are not supported) in context "b"');
    expect(() => credentialsFromKubeconfig(text, 'k', { context: 'zz' })).toThrow('k has no context "zz"');
  });

  test('writePrivateFile leaves no temporary file behind and creates directories', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-kc-'));
    const file = path.join(dir, 'a', 'b', 'k.yaml');
    writePrivateFile(file, 'x');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['k.yaml']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
