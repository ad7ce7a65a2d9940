/**
 * The operator commands on a platform team's own composition (test/support/team-composition.ts):
 * an environment built in code (no file anywhere), the management cluster in stack
 * `platform-capi`, two workload clusters in stack `apps`. The commands find the stacks, their
 * output names and the environment's settings in what the app synthesized. The app is synthesized
 * for real; "deployed" here means each stack directory, with its synthesized records and a local
 * backend, initialised by the real `terraform` and given a state whose outputs carry the names the
 * records give (the e2e consumer suite deploys such a stack on the local cloud).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { renderKubeconfig } from '../../../lib/kubeconfig/kubeconfig';
import { readStackRecords } from '../../../lib/config/stack-records';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { BACKUP_FORMAT, sealBackup } from '../../../lib/runtime/management/backup-archive';
import { synthTeamApp, teamEnvironment, TEAM_MANAGEMENT_STACK, TEAM_WORKLOAD_STACK } from '../../support/team-composition';
import { makeTlsFixture, TlsFixture } from './support/tls-fixture';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tfEnv = { ...process.env, CHECKPOINT_DISABLE: '1' };
const REPO = path.resolve(__dirname, '..', '..', '..');

/** The outputs of a synthesized stack, "deployed": its JSON reduced to records and a local backend, initialised, with `values` in its state. */
function deploy(outdir: string, stack: string, values: (names: Record<string, string>[]) => Record<string, { value: unknown; sensitive?: boolean }>): void {
  const dir = path.join(outdir, 'stacks', stack);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8'));
  const names = readStackRecords(json, stack)!.clusters.map((c) => c.outputs as Record<string, string>);
  const state = path.join(outdir, '..', `terraform.${stack}.tfstate`);
  // providers are not installed in the unit tier: only what `terraform output` needs stays
  fs.writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify({ '//': json['//'], terraform: { backend: { local: { path: state } } } }));
  execFileSync('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env: tfEnv, stdio: 'pipe' });
  const outputs = values(names);
  fs.writeFileSync(
    state,
    JSON.stringify({
      version: 4,
      terraform_version: '1.11.4',
      serial: 1,
      lineage: '7a1c2f5e-0000-4000-8000-000000000002',
      outputs: Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, { value: o.value, type: typeof o.value === 'string' ? 'string' : ['object', { namespace: 'string', name: 'string', key: 'string' }], ...(o.sensitive ? { sensitive: true } : {}) }])),
      resources: [],
      check_results: null,
    }),
  );
}

async function run(cwd: string, argv: string[], env: NodeJS.ProcessEnv = { ...tfEnv, HOME: cwd }) {
  const io = memoryIo(cwd, env);
  const code = await runCli(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n'), io };
}

describe('operator commands on stacks of a team\'s own ids, environment built in code', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'team-stacks-'));
  const outdir = path.join(work, 'cdktf.out');
  let tls: TlsFixture;
  let server: https.Server;
  let url: string;
  let mgmtKubeconfig: string;
  const requests: string[] = [];
  const webKubeconfig = renderKubeconfig({ clusterName: 'web', server: 'https://192.0.2.60:6443', caCertificateBase64: 'Q0E=', clientCertificateBase64: 'Q0VSVA==', clientKeyBase64: 'S0VZ' });

  beforeAll(async () => {
    tls = makeTlsFixture(work, 'mgmt');
    server = https.createServer({ key: tls.serverKeyPem, cert: tls.serverCertPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      requests.push(req.url ?? '');
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET' && req.url === '/api/v1/namespaces/team-acme-web/secrets/web-kubeconfig') {
        res.end(JSON.stringify({ kind: 'Secret', data: { value: b64(webKubeconfig) } }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ kind: 'Status', message: 'not found' }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mgmtKubeconfig = renderKubeconfig({ clusterName: TEAM_MANAGEMENT_STACK, server: url, caCertificateBase64: b64(tls.caPem), clientCertificateBase64: b64(tls.clientCertPem), clientKeyBase64: b64(tls.clientKeyPem) });
    synthTeamApp(teamEnvironment(), outdir);
    deploy(outdir, TEAM_MANAGEMENT_STACK, ([m]) => ({ [m.kubeconfig]: { value: mgmtKubeconfig, sensitive: true }, [m.api_endpoint]: { value: url } }));
    deploy(outdir, TEAM_WORKLOAD_STACK, (clusters) =>
      Object.fromEntries(clusters.map((c, i) => [c.kubeconfig_secret, { value: { namespace: `team-acme-${['web', 'api'][i]}`, name: `${['web', 'api'][i]}-kubeconfig`, key: 'value' } }])),
    );
  }, 120_000);

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  test('kubeconfig <env>: the management cluster\'s kubeconfig output of the stack the app recorded, whatever its id and output name', async () => {
    const r = await run(work, ['kubeconfig', 'acme']);
    expect([r.code, r.err]).toEqual([0, `kubeconfig: reading outputs of stack ${TEAM_MANAGEMENT_STACK} (terraform output)…`]);
    expect(fs.readFileSync(path.join(work, 'acme.kubeconfig'), 'utf8')).toBe(mgmtKubeconfig);
    expect(r.out).toBe(`wrote acme.kubeconfig (management cluster of acme, API ${url}); try: KUBECONFIG=acme.kubeconfig kubectl get nodes`);
  });

  test('kubeconfig <env> <cluster>: the Secret the cluster\'s own output names, one of two clusters in one stack', async () => {
    const r = await run(work, ['kubeconfig', 'acme', 'web']);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(work, 'acme-web.kubeconfig'), 'utf8')).toBe(webKubeconfig);
    expect(requests[requests.length - 1]).toBe('/api/v1/namespaces/team-acme-web/secrets/web-kubeconfig');
    expect(r.err).toContain(`kubeconfig: reading outputs of stack ${TEAM_WORKLOAD_STACK} (terraform output)…`);
  });

  test("the help's example: --management-stack names the stack, and its recorded output name is used", async () => {
    const r = await run(work, ['kubeconfig', 'acme', '--management-stack', TEAM_MANAGEMENT_STACK, '--out', 'named.kubeconfig']);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(work, 'named.kubeconfig'), 'utf8')).toBe(mgmtKubeconfig);
  });

  test('--app-dir: from another directory, the project is named', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'team-elsewhere-'));
    const r = await run(elsewhere, ['kubeconfig', 'acme', 'web', '--app-dir', work]);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(elsewhere, 'acme-web.kubeconfig'), 'utf8')).toBe(webKubeconfig);
  });

  test('a cluster the environment does not have is named with those it has', async () => {
    const r = await run(work, ['kubeconfig', 'acme', 'mobile']);
    expect(r.code).toBe(1);
    expect(r.io.stderr.pop()).toBe('error: environment acme has no cluster "mobile" in the app synthesized at cdktf.out (clusters: api, web); after changing the environment, run `cdktf synth` again');
  });

  test('state: the stacks of an environment on local state are named, with their backends', async () => {
    const r = await run(work, ['state', 'status', 'acme']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'error: environment acme keeps local state (stacks platform-capi: local, apps: local in the app synthesized at cdktf.out): give it stateBackend (endpoint, bucket) to share it',
    );
  });

  test('management backups <env>: the environment built in code keeps its backups where its settings say', async () => {
    const header = { format: BACKUP_FORMAT, environment: 'acme', createdAt: '2026-11-25T18:00:00.000Z', clusters: ['team-acme-web/web'], objects: 12, clusterctlVersion: 'v1.12.10' } as const;
    fs.mkdirSync(path.join(work, 'backups', 'acme'), { recursive: true });
    fs.writeFileSync(path.join(work, 'backups', 'acme', 'acme-20261125T180000Z.capi-backup'), sealBackup({ header, namespaces: {}, namespaceMetadata: {} }, 'an-operator-key-of-enough-length'));
    const r = await run(work, ['management', 'backups', 'acme']);
    expect([r.code, r.out]).toEqual([0, 'acme-20261125T180000Z.capi-backup  2026-11-25T18:00:00.000Z  1 clusters (team-acme-web/web)  12 objects  clusterctl v1.12.10']);
  });

  test('footprint <env>: the settings the app recorded, named as built in code', async () => {
    const r = await run(work, ['footprint', 'acme']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('Footprint of environment acme ("acme" (built in code, recorded in cdktf.out/stacks/apps/cdk.tf.json), cloud testcloud, resources named team-acme-*)');
  });

  test('an environment neither in a file nor in the app: both places named', async () => {
    const r = await run(work, ['footprint', 'nope']);
    const noDir = 'the environment directory environments does not exist (give a path to a .yaml file, or use --dir to point at the directory)';
    expect(r.io.stderr.pop()).toBe(`error: no environment "nope": ${noDir}; the app synthesized at cdktf.out records none of that name (environments: acme)`);
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'team-bare-'));
    expect((await run(bare, ['state', 'status', 'acme'])).io.stderr.pop()).toBe(
      `error: no environment "acme": ${noDir}; an environment built in code is read from the app's synthesized output, and there is none at cdktf.out: run \`cdktf synth\` first (or give --app-dir)`,
    );
  });
});

describe('state on a team\'s stacks in a shared store', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'team-state-'));
  beforeAll(() => {
    synthTeamApp(teamEnvironment({ stateBackend: { endpoint: 'http://127.0.0.1:9', bucket: 'team-state' } }), path.join(work, 'cdktf.out'));
  }, 60_000);

  test('state status|unlock <env> <stack> find the stacks of their own ids and their S3 backends (no "has no stack platform-capi")', async () => {
    expect((await run(work, ['state', 'status', 'acme'])).err).toBe(
      'error: no S3 credentials for http://127.0.0.1:9: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on OpenStack: eval "$(capi-openstack state credentials acme)")',
    );
    const creds = { ...tfEnv, HOME: work, AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' };
    const unknown = await run(work, ['state', 'unlock', 'acme', 'acme-management'], creds);
    expect([unknown.code, unknown.err]).toEqual([2, 'error: environment acme has no stack acme-management in the app synthesized at cdktf.out (stacks: platform-capi, apps)']);
    // the team's stack is found: the store is asked for its lock (nothing listens on port 9)
    const unlock = await run(work, ['state', 'unlock', 'acme', TEAM_MANAGEMENT_STACK], creds);
    expect(unlock.code).toBe(1);
    expect(unlock.err).toMatch(/^error: .*127\.0\.0\.1:9/);
  });

  test('management backups <env> of an environment built in code: in its state store', async () => {
    const r = await run(work, ['management', 'backups', 'acme']);
    expect(r.err).toContain('error: environment acme keeps its backups in its state store (http://127.0.0.1:9): export AWS_ACCESS_KEY_ID');
  });
});

describe('validate --app-dir: what the team\'s app builds', () => {
  /** A cdktf project whose app builds the team composition from this checkout's sources. */
  function project(input: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'team-validate-'));
    fs.writeFileSync(path.join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
    fs.writeFileSync(
      path.join(dir, 'main.js'),
      `require(${JSON.stringify(path.join(REPO, 'test', 'runtime', 'cli', 'support', 'ts-register.js'))});
const { App } = require(${JSON.stringify(path.join(REPO, 'node_modules', 'cdktf'))});
const { environmentFromObject } = require(${JSON.stringify(path.join(REPO, 'lib', 'index.ts'))});
const { buildTeamApp, teamEnvironmentInput } = require(${JSON.stringify(path.join(REPO, 'test', 'support', 'team-composition.ts'))});
const app = new App();
buildTeamApp(app, environmentFromObject('acme', ${input}));
app.synth();
`,
    );
    return dir;
  }

  test('each environment the app recorded: ok with its clusters and stacks, and the warnings of its settings', async () => {
    const r = await run(REPO, ['validate', '--app-dir', project("teamEnvironmentInput({ clusters: { web: { kubernetesVersion: 'v1.34.x' } } })")]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('ok  "acme" (built in code by the app) (1 cluster; stacks platform-capi, apps)');
    expect(r.err).toMatch(/^validate: running the app of \S+ \(as cdktf synth does\)…\n/);
    expect(r.err).toMatch(/\nwarning: "acme" \(built in code by the app\): clusters\.web\.kubernetesVersion: Kubernetes v1\.34 /);
    // no featureFlags: ingress-nginx by the old default, warned once (the construct's annotation, worded for the default, is recognised)
    expect(r.err.match(/clusters\.web\.addons\.ingressNginx: /g)).toHaveLength(1);
    expect(r.err).toMatch(/\nwarning: "acme" \(built in code by the app\): clusters\.web\.addons\.ingressNginx: ingress-nginx \(cluster "web"\) is retired upstream/);
  }, 120_000);

  test('an app that fails on its environment: the error it died of, without the stack frames; exit 1', async () => {
    const r = await run(REPO, ['validate', '--app-dir', project("teamEnvironmentInput({ network: { externalNetworkName: 'public', managementCidr: '10.0.0.0/33' } })")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/\nEnvironmentConfigError: Invalid environment "acme" \(given in code\) \(1 problem\):\n {2}network\.managementCidr: .*\nthe app of \S+ failed \(exit 1\): nothing it builds can be deployed$/);
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 120_000);

  test('validate in a cdktf project without environment files points at --app-dir', async () => {
    const r = await run(project('teamEnvironmentInput()'), ['validate']);
    expect([r.code, r.err]).toEqual([1, 'error: environment directory environments does not exist (use --dir to point at it); for the environments your app builds (in code too): capi-openstack validate --app-dir .']);
  });

  test('a directory that is no cdktf project', async () => {
    const r = await run(REPO, ['validate', '--app-dir', 'lib']);
    expect([r.code, r.err]).toEqual([1, 'validate: running the app of lib (as cdktf synth does)…\nerror: lib/cdktf.json does not exist (--app-dir names a cdktf project)']);
  });
});
