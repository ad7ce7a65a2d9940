/**
 * Cluster-leftovers cleanup against the REAL local cloud (scripts/local-cloud, with Cinder, and
 * with Octavia when it runs with LOCAL_CLOUD_OCTAVIA=1):
 *
 * 1. the compiled CLI (dist/bin/cleanup-cluster-leftovers.js), logged in with a per-test
 *    application credential, waits while a server of the "cluster" is still on its machine
 *    network, then deletes exactly the volumes and snapshots Cinder CSI would have marked for the
 *    cluster (not those of a cluster whose name extends it, not unmarked ones) and, with Octavia,
 *    the load balancer OCCM made for a Service of the cluster with its floating IP (not the one of
 *    the other cluster); without Octavia it says so;
 * 2. the ClusterLeftoversCleanup construct in a real Terraform stack: `terraform apply` creates an
 *    application credential and the terraform_data, a second plan is empty, `terraform destroy`
 *    runs the cleanup from the destroy provisioner (environment from self.input; it logs in with
 *    the clouds.yaml entry the provider uses) before it deletes the credential, and no log shows
 *    the credential's secret.
 *
 * Needs `npm run build` first (npm run test:e2e does it). Holds /tmp/capi-e2e.lock throughout.
 * Skipped (with a message) when the local cloud is not running or runs without Cinder, unless
 * LOCAL_CLOUD_REQUIRED=1. Resource names start with `e2eclean-<random>`; afterAll sweeps them.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { CSI_KEY, LocalCloud } from './support/cleanup-cloud';
import { probeLocalCloud, readPasswordCloud } from './support/local-cloud-probe';
import { CACHE_DIR, LOCAL_CLOUDS_YAML, REPO, runWithToolchain, tail } from './support/management-cloud';

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const CLOUD = 'local-e2e';
const RUN = `e2eclean-${randomBytes(3).toString('hex')}`;
const SUITE_DIR = path.join(CACHE_DIR, 'e2e', 'cluster-leftovers');
const CLI = path.join(REPO, 'dist', 'bin', 'cleanup-cluster-leftovers.js');
const CONSTRUCT = path.join(REPO, 'dist', 'lib', 'openstack', 'cluster-leftovers.js');

const probe = probeLocalCloud(LOCAL_CLOUDS_YAML, CLOUD);
const runnable = probe.ok && probe.cinder;
if (!runnable && !REQUIRED) {
  console.warn(
    `cluster-leftovers e2e skipped: ${probe.why}. Start the local cloud with Cinder: LOCAL_CLOUD_CINDER=1 scripts/local-cloud/start; ` +
      'set LOCAL_CLOUD_REQUIRED=1 to make this a failure.',
  );
}
const suite = runnable || REQUIRED ? describe : describe.skip;

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

/** Runs the compiled CLI; `running.stdout()` shows the output so far, `running.done` the end. */
function startCli(env: Record<string, string>): { stdout: () => string; done: Promise<Finished>; child: ChildProcess } {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Finished>((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 8 * 60_000);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, seconds: Math.round((Date.now() - started) / 100) / 10 });
    });
  });
  return { stdout: () => stdout, done, child };
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

suite('cluster leftovers cleanup on the local cloud', () => {
  let lock: E2eLock | undefined;
  let cloud: LocalCloud;
  let stackDir: string | undefined;

  beforeAll(async () => {
    if (!runnable) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but ${probe.why}; start it with: LOCAL_CLOUD_CINDER=1 scripts/local-cloud/start`);
    for (const f of [CLI, CONSTRUCT]) if (!fs.existsSync(f)) throw new Error(`${f} is missing: run npm run build first`);
    lock = await acquireE2eLock({ holder: 'cluster-leftovers e2e' });
    cloud = await LocalCloud.login(readPasswordCloud(LOCAL_CLOUDS_YAML, CLOUD));
    fs.mkdirSync(SUITE_DIR, { recursive: true });
  }, 40 * 60_000);

  afterAll(async () => {
    try {
      if (stackDir && fs.existsSync(path.join(stackDir, 'terraform.tfstate'))) {
        const state = JSON.parse(fs.readFileSync(path.join(stackDir, 'terraform.tfstate'), 'utf8'));
        if ((state.resources ?? []).length > 0) {
          await runWithToolchain(['terraform', 'destroy', '-auto-approve', '-input=false', '-no-color'], { cwd: stackDir, cloudsYaml: LOCAL_CLOUDS_YAML, logName: 'cleanup-destroy' });
        }
      }
      if (cloud) {
        const problems = await cloud.sweep(RUN);
        if (problems.length > 0) console.warn(`cluster-leftovers e2e: sweep of ${RUN}* left: ${problems.join('; ')}`);
      }
    } finally {
      await lock?.release();
    }
  }, 15 * 60_000);

  test('the CLI waits for the cluster\'s server, then deletes only the cluster\'s load balancers, volumes and snapshots', async () => {
    const cluster = `${RUN}-web`;
    const credential = await cloud.createApplicationCredential(`${RUN}-cli`);
    const mineA = await cloud.createVolume(`${RUN}-mine-a`, { [CSI_KEY]: cluster, 'csi.storage.k8s.io/pvc/name': 'data-a' });
    const mineB = await cloud.createVolume(`${RUN}-mine-b`, { [CSI_KEY]: cluster });
    await cloud.createSnapshot(mineB, `${RUN}-mine-b-snap`, { [CSI_KEY]: cluster });
    const other = await cloud.createVolume(`${RUN}-other`, { [CSI_KEY]: `${cluster}-2` });
    await cloud.createSnapshot(other, `${RUN}-other-snap`, { [CSI_KEY]: `${cluster}-2` });
    await cloud.createVolume(`${RUN}-plain`, {});
    const attached = await cloud.createVolume(`${RUN}-attached`, { [CSI_KEY]: cluster });
    const network = `k8s-clusterapi-cluster-${RUN}-web`;
    const { serverId, networkId } = await cloud.serverWithVolume(network, `${RUN}-machine`, attached);
    const octavia = cloud.hasService('load-balancer');
    const lbs = octavia ? { mine: await cloud.occmLoadBalancer(cluster, 'web', networkId), other: await cloud.occmLoadBalancer(`${cluster}-2`, 'web', networkId) } : undefined;
    const before = await cloud.volumeNames(RUN);
    expect(before.volumes).toHaveLength(5);

    const run = startCli({
      CAPI_CLEANUP_AUTH_URL: cloud.authUrl,
      CAPI_CLEANUP_APPLICATION_CREDENTIAL_ID: credential.id,
      CAPI_CLEANUP_APPLICATION_CREDENTIAL_SECRET: credential.secret,
      CAPI_CLEANUP_REGION: cloud.region,
      CAPI_CLEANUP_INTERFACE: 'public',
      CAPI_CLEANUP_CLUSTER_NAME: cluster,
      CAPI_CLEANUP_MACHINE_NETWORK: network,
      CAPI_CLEANUP_TIMEOUT_MINUTES: '6',
      CAPI_CLEANUP_POLL_SECONDS: '1',
    });
    try {
      await until('the CLI to wait for the server', () => run.stdout().includes(`waiting for 1 server(s) on network ${network}`), 60_000);
      await new Promise((r) => setTimeout(r, 3000));
      expect(await cloud.volumeNames(RUN)).toEqual(before); // nothing deleted while the "cluster" runs
      const serverGone = Date.now();
      await cloud.deleteServer(serverId);
      const result = await run.done;
      console.log(`cluster-leftovers e2e: CLI ran ${result.seconds} s (server deleted ${Math.round((Date.now() - serverGone) / 1000)} s before it ended)\n${result.stdout}${result.stderr}`);

      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(await cloud.volumeNames(RUN)).toEqual({ volumes: [`${RUN}-other`, `${RUN}-plain`], snapshots: [`${RUN}-other-snap`] });
      expect(await cloud.volume(mineA)).toBeUndefined();
      if (lbs) {
        expect({ lb: await cloud.loadBalancer(lbs.mine.lbId), fip: await cloud.floatingIp(lbs.mine.fipId) }).toEqual({ lb: undefined, fip: undefined });
        expect((await cloud.loadBalancer(lbs.other.lbId))?.provisioning_status).toBe('ACTIVE');
        expect(await cloud.floatingIp(lbs.other.fipId)).toBeDefined();
        expect(result.stdout).toContain('cleanup: load balancers: deleting 1:');
      } else {
        expect(result.stdout).toContain('cleanup: load balancers: no load-balancer endpoint (public, RegionOne) in the catalog: skipped');
      }
      expect(result.stdout).toMatch(new RegExp(`cleanup: network ${network}: no server left after \\d+ s`));
      expect(result.stdout).toContain('cleanup: volume snapshots: deleting 1:');
      expect(result.stdout).toContain('cleanup: volumes: deleting 3:');
      const deletedLbs = lbs ? 1 : 0;
      expect(result.stdout).toMatch(new RegExp(`cleanup: done in \\d+ s: deleted ${deletedLbs} load balancer\\(s\\), ${deletedLbs} floating IP\\(s\\), 0 security group\\(s\\), 1 snapshot\\(s\\), 3 volume\\(s\\)\n$`));
      expect(result.stdout).not.toContain(credential.secret);
    } finally {
      run.child.kill();
      await cloud.deleteApplicationCredential(credential.id);
    }
  }, 15 * 60_000);

  test('terraform destroy runs the cleanup from ClusterLeftoversCleanup, then deletes the credential', async () => {
    const cluster = `${RUN}-tf`;
    // Synthesize a stack from the built library: provider, credential, cleanup.
    const outdir = path.join(SUITE_DIR, RUN);
    const synth = `
      const { App, LocalBackend, TerraformStack } = require(${JSON.stringify(path.join(REPO, 'node_modules', 'cdktf'))});
      const { OpenstackProvider } = require(${JSON.stringify(path.join(REPO, 'dist', 'lib', 'gen', 'openstack', 'provider'))});
      const { IdentityApplicationCredentialV3 } = require(${JSON.stringify(path.join(REPO, 'dist', 'lib', 'gen', 'openstack', 'identity-application-credential-v3'))});
      const { ClusterLeftoversCleanup } = require(${JSON.stringify(CONSTRUCT)});
      const app = new App({ outdir: ${JSON.stringify(outdir)} });
      const stack = new TerraformStack(app, 'leftovers');
      new LocalBackend(stack, { path: 'terraform.tfstate' }); // in the stack directory, not the checkout
      new OpenstackProvider(stack, 'OpenStack', { cloud: ${JSON.stringify(CLOUD)} });
      const credential = new IdentityApplicationCredentialV3(stack, 'Credential', { name: ${JSON.stringify(`${RUN}-tf`)}, unrestricted: false });
      new ClusterLeftoversCleanup(stack, 'Leftovers', {
        clusterName: ${JSON.stringify(cluster)},
        cloud: ${JSON.stringify(CLOUD)},
        region: ${JSON.stringify(cloud.region)},
        timeoutMinutes: 5,
        dependsOn: [credential],
      });
      app.synth();`;
    execFileSync(process.execPath, ['-e', synth], { cwd: REPO, stdio: 'pipe' });
    stackDir = path.join(outdir, 'stacks', 'leftovers');
    const tf = (args: string[], logName: string) =>
      runWithToolchain(['terraform', ...args, '-input=false', '-no-color'], { cwd: stackDir!, cloudsYaml: LOCAL_CLOUDS_YAML, logName, timeoutSeconds: 600 });

    const init = await tf(['init'], 'init');
    expect({ code: init.code, tail: tail(init) }).toMatchObject({ code: 0 });
    const apply = await tf(['apply', '-auto-approve'], 'apply');
    expect({ code: apply.code, tail: tail(apply) }).toMatchObject({ code: 0 });
    expect((await cloud.applicationCredentials()).filter((c) => c.name === `${RUN}-tf`)).toHaveLength(1);
    const plan = await tf(['plan', '-detailed-exitcode'], 'replan');
    expect({ code: plan.code, tail: tail(plan) }).toMatchObject({ code: 0 }); // second plan: no changes

    const mine = await cloud.createVolume(`${RUN}-tf-mine`, { [CSI_KEY]: cluster });
    await cloud.createVolume(`${RUN}-tf-other`, { [CSI_KEY]: `${cluster}-2` });

    const state = JSON.parse(fs.readFileSync(path.join(stackDir, 'terraform.tfstate'), 'utf8'));
    const secret: string = state.resources.find((r: any) => r.type === 'openstack_identity_application_credential_v3').instances[0].attributes.secret;
    expect(secret.length).toBeGreaterThan(20);

    const destroy = await tf(['destroy', '-auto-approve'], 'destroy');
    console.log(`cluster-leftovers e2e: terraform destroy ${destroy.seconds} s\n${tail(destroy, 30)}`);
    expect({ code: destroy.code, tail: tail(destroy) }).toMatchObject({ code: 0 });
    const out = destroy.output;
    expect(out).toMatch(/\(local-exec\): cleanup: volumes: deleting 1: /);
    expect(out).toContain(
      cloud.hasService('load-balancer') ? "(local-exec): cleanup: load balancers: none of the cluster's" : '(local-exec): cleanup: load balancers: no load-balancer endpoint (public, RegionOne) in the catalog: skipped',
    );
    expect(out).not.toContain('output suppressed due to sensitive value');
    // the cleanup finished before Terraform started on the credential it logs in with
    const cleanupDone = out.search(/terraform_data\.Leftovers_Cleanup_[A-Za-z0-9]+: Destruction complete/);
    const credentialGoes = out.search(/openstack_identity_application_credential_v3\.Credential: Destroying/);
    expect(cleanupDone).toBeGreaterThan(-1);
    expect(credentialGoes).toBeGreaterThan(cleanupDone);

    expect(await cloud.volume(mine)).toBeUndefined();
    expect((await cloud.volumeNames(`${RUN}-tf`)).volumes).toEqual([`${RUN}-tf-other`]);
    expect((await cloud.applicationCredentials()).filter((c) => c.name === `${RUN}-tf`)).toHaveLength(0);
    for (const result of [init, apply, plan, destroy]) expect(result.output).not.toContain(secret);
    expect(out).toContain(`project ${cloud.projectId} as user`); // the operator's clouds.yaml login
  }, 20 * 60_000);
});
