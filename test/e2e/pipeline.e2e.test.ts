/**
 * The CI pipeline scripts against the local OpenStack (scripts/local-cloud): scripts/pipeline/plan
 * then scripts/pipeline/apply for the management stack of environments/local.yaml (with this
 * suite's own resource prefix and state folder), a second plan that finds nothing to do, and the
 * teardown through the same two stages (PIPELINE_DESTROY=1), which must leave nothing behind.
 *
 * Holds /tmp/capi-e2e.lock for the whole suite. Skipped (with a message) when the local cloud is
 * not running, unless LOCAL_CLOUD_REQUIRED=1 (CI's e2e tier).
 */
import { spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse, stringify } from 'yaml';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { readMeta, ROOT, runPipeline, ScriptResult, stackResult, stateResources } from './support/pipeline-run';
import { cloudEntryFromFile, OpenStackSession } from './support/workload-openstack';

const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const CLOUDS_YAML = process.env.OS_CLIENT_CONFIG_FILE ?? path.join(CACHE, 'local-cloud', 'clouds.yaml');
const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const cloudUp = spawnSync(path.join(ROOT, 'scripts', 'local-cloud', 'status'), [], { encoding: 'utf8' }).status === 0 && fs.existsSync(CLOUDS_YAML);
if (!cloudUp && !REQUIRED) {
  console.warn('pipeline e2e skipped: the local cloud is not running (scripts/local-cloud/start; set LOCAL_CLOUD_REQUIRED=1 to make this a failure)');
}
const suite = cloudUp || REQUIRED ? describe : describe.skip;

/** Resource names of this suite start with `<prefix>-local`. */
const PREFIX = 'pipee2e';
const STACK = 'local-management';

/** Fails with the script's output, not just its exit code. */
function expectSuccess(r: ScriptResult): void {
  if (r.code !== 0) throw new Error(`pipeline script exited with ${r.code}:\n${r.output.slice(-6000)}`);
}

/** Encrypts the saved plans (they embed state secrets); a random key per run. */
const PLAN_KEY = randomBytes(24).toString('base64');

suite('scripts/pipeline plan + apply against the local cloud', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-pipeline-e2e-'));
  const envDir = path.join(work, 'environments');
  const pipelineDir = path.join(work, 'pipeline-out');
  const stateDir = path.join(work, 'state');
  const stateFile = path.join(stateDir, `${STACK}.tfstate`);
  let lock: E2eLock | undefined;

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    ENVIRONMENT: 'local',
    ENVIRONMENTS_DIR: envDir,
    PIPELINE_DIR: pipelineDir,
    PIPELINE_BACKEND: 'local',
    PIPELINE_BACKEND_CONFIG: JSON.stringify({ path: path.join(stateDir, '{stack}.tfstate') }),
    PIPELINE_ALLOW_LOCAL_STATE: '1',
    // Other work may commit to this checkout between plan and apply; CI applies at the planned commit.
    PIPELINE_ALLOW_OTHER_COMMIT: '1',
    OS_CLIENT_CONFIG_FILE: CLOUDS_YAML,
    PIPELINE_PLAN_KEY: PLAN_KEY,
    ...extra,
  });

  async function leftovers(): Promise<string[]> {
    const session = await OpenStackSession.login(cloudEntryFromFile(CLOUDS_YAML, 'local-e2e'));
    const mine = (items: { name?: string }[]) => items.map((i) => i.name ?? '').filter((n) => n.startsWith(`${PREFIX}-`));
    return [
      ...mine((await session.get('compute', '/servers')).servers).map((n) => `server ${n}`),
      ...mine((await session.get('network', '/v2.0/networks')).networks).map((n) => `network ${n}`),
      ...mine((await session.get('network', '/v2.0/routers')).routers).map((n) => `router ${n}`),
      ...mine((await session.get('network', '/v2.0/security-groups')).security_groups).map((n) => `security group ${n}`),
      ...mine((await session.get('network', '/v2.0/ports')).ports).map((n) => `port ${n}`),
      ...mine((await session.get('identity', `/v3/users/${session.userId}/application_credentials`)).application_credentials).map((n) => `application credential ${n}`),
    ];
  }

  beforeAll(async () => {
    lock = await acquireE2eLock({ holder: 'pipeline e2e', log: (l) => process.stderr.write(`${l}\n`) });
    const local = parse(fs.readFileSync(path.join(ROOT, 'environments', 'local.yaml'), 'utf8')) as Record<string, unknown>;
    fs.mkdirSync(envDir, { recursive: true });
    fs.writeFileSync(path.join(envDir, 'local.yaml'), stringify({ ...local, prefix: PREFIX }));
    const before = await leftovers();
    if (before.length > 0) throw new Error(`resources of an earlier pipeline e2e run are still in the local cloud (delete them first): ${before.join(', ')}`);
  }, 45 * 60 * 1000);

  afterAll(async () => {
    try {
      // A failed test must not leave the management stack behind for the next suite.
      if (stateResources(stateFile).length > 0) {
        const dir = path.join(pipelineDir, 'cdktf.out', 'stacks', STACK);
        spawnSync('bash', ['-c', 'source scripts/toolchain/env.sh && terraform -chdir="$1" destroy -auto-approve -input=false -no-color', 'cleanup', dir], {
          cwd: ROOT,
          env: env(),
          stdio: 'inherit',
        });
      }
    } finally {
      await lock?.release();
      fs.rmSync(work, { recursive: true, force: true });
    }
  }, 20 * 60 * 1000);

  test('plan saves a plan for the management stack and defers the cluster stack', async () => {
    const r = await runPipeline('plan', env());
    expect(r.output).toContain('[pipeline');
    expectSuccess(r);
    const meta = readMeta(pipelineDir);
    expect(meta.environment).toBe('local');
    expect(meta.mode).toBe('apply');
    expect(meta.applyOrder).toEqual([STACK]);
    const mgmt = stackResult(meta, STACK);
    expect(mgmt.status).toBe('changes');
    expect(mgmt.changes!.add).toBeGreaterThan(10);
    expect(mgmt.changes!.destroy).toBe(0);
    expect(mgmt.seconds).toBeGreaterThan(0); // per-stack time, also a column of summary.md
    expect(stackResult(meta, 'local-e2e')).toMatchObject({ status: 'deferred', detail: `waiting for ${STACK} to be applied` });
    // the saved plan only encrypted (a clear tfplan is a zip: "PK")
    const stackDir = path.join(pipelineDir, 'cdktf.out', 'stacks', STACK);
    expect(fs.existsSync(path.join(stackDir, 'pipeline.tfplan'))).toBe(false);
    expect(fs.readFileSync(path.join(stackDir, 'pipeline.tfplan.gpg')).subarray(0, 2).toString('latin1')).not.toBe('PK');
    expect(fs.existsSync(path.join(pipelineDir, 'cdktf.out', 'stacks', 'local-e2e', 'pipeline.tfplan.gpg'))).toBe(false);
    const planText = fs.readFileSync(path.join(pipelineDir, 'plans', `${STACK}.txt`), 'utf8');
    expect(planText).toMatch(/Plan: \d+ to add, 0 to change, 0 to destroy/);
    // Reviewers see the plan; key material never shows.
    expect(planText).not.toMatch(/PRIVATE KEY/);
    expect(fs.readFileSync(path.join(pipelineDir, 'summary.md'), 'utf8')).toContain('deferred');
    // Nothing was created yet.
    expect(stateResources(stateFile)).toEqual([]);
  });

  test('apply refuses saved plans of another environment or another commit', async () => {
    const r = await runPipeline('apply', env({ ENVIRONMENT: 'example' }));
    expect(r.code).not.toBe(0);
    expect(r.output).toContain('the saved plans in');
    expect(r.output).toContain('are for environment "local", not "example"');
    const metaFile = path.join(pipelineDir, 'pipeline.json');
    const original = fs.readFileSync(metaFile, 'utf8');
    try {
      fs.writeFileSync(metaFile, JSON.stringify({ ...JSON.parse(original), commit: '0'.repeat(40) }));
      const other = await runPipeline('apply', env({ PIPELINE_ALLOW_OTHER_COMMIT: '' }));
      expect(other.code).not.toBe(0);
      expect(other.output).toContain(`the plans were made at commit ${'0'.repeat(40)}`);
    } finally {
      fs.writeFileSync(metaFile, original);
    }
    // In CI, state files on the runner would be lost: refused before anything is planned.
    const ci = await runPipeline('plan', env({ CI: 'true', PIPELINE_ALLOW_LOCAL_STATE: '', PIPELINE_DIR: path.join(work, 'ci-refused') }));
    expect(ci.code).not.toBe(0);
    expect(ci.output).toContain('CI=true but the stacks keep their state in local files on this runner (backend: local)');
    expect(ci.output).not.toContain('terraform plan');
    // In GitHub Actions or GitLab CI, saved plans are never left in clear
    const gh = await runPipeline('plan', env({ GITHUB_ACTIONS: 'true', PIPELINE_PLAN_KEY: '', PIPELINE_DIR: path.join(work, 'gh-refused') }));
    expect(gh.code).not.toBe(0);
    expect(gh.output).toContain('PIPELINE_PLAN_RECIPIENT is not set');
    // a wrong key does not decrypt, and nothing is applied
    const wrong = await runPipeline('apply', env({ PIPELINE_PLAN_KEY: 'not-the-key' }));
    expect(wrong.code).not.toBe(0);
    expect(wrong.output).toContain('wrong PIPELINE_PLAN_KEY or a modified artifact');
    expect(stateResources(stateFile)).toEqual([]);
  });

  test('apply refuses a forged plan (an extra local-exec, digests and summary made to match) before it changes anything', async () => {
    // What a plan job that was taken over can do: plan a configuration of its own making, encrypt
    // it to the apply job's key and record its digests. The plan text would not show the command.
    const stackDir = path.join(pipelineDir, 'cdktf.out', 'stacks', STACK);
    const marker = path.join(work, 'forged-plan-ran');
    const saved = ['cdk.tf.json', 'pipeline.tfplan.gpg'].map((f) => [path.join(stackDir, f), fs.readFileSync(path.join(stackDir, f))] as const);
    const metaFile = path.join(pipelineDir, 'pipeline.json');
    saved.push([metaFile, fs.readFileSync(metaFile)]);
    try {
      const config = JSON.parse(fs.readFileSync(path.join(stackDir, 'cdk.tf.json'), 'utf8'));
      config.resource.terraform_data = { ...config.resource.terraform_data, pwn: { input: 'x', provisioner: [{ 'local-exec': { command: `touch ${marker}` } }] } };
      fs.writeFileSync(path.join(stackDir, 'cdk.tf.json'), JSON.stringify(config, null, 2));
      const forge = spawnSync(
        'bash',
        ['-c', 'set -e; . scripts/pipeline/lib.sh; . scripts/toolchain/env.sh; terraform -chdir="$1" plan -input=false -no-color -lock=false -out=pipeline.tfplan >/dev/null; node scripts/pipeline/review.js digests "$1/pipeline.tfplan"; seal_plan "$1"', 'forge', stackDir],
        { cwd: ROOT, env: env(), encoding: 'utf8' },
      );
      expect(forge.stderr).toBe('');
      const [configDigest, planDigest] = forge.stdout.trim().split(' ');
      const meta = JSON.parse(saved[2][1].toString('utf8'));
      meta.stacks = meta.stacks.map((st: { name: string }) => (st.name === STACK ? { ...st, configDigest, planDigest } : st));
      fs.writeFileSync(metaFile, JSON.stringify(meta));
      const r = await runPipeline('apply', env());
      expect(r.code).toBe(1);
      expect(r.output).toContain(`${STACK}: refusing the saved plan: it is not the reviewed plan of the configuration this job synthesized from commit`);
      expect(r.output).toContain('cdk.tf.json: resource.terraform_data.pwn is only in the plan (it holds a provisioner)');
      expect(r.output).not.toContain('terraform apply pipeline.tfplan');
      expect(fs.existsSync(marker)).toBe(false);
      expect(stateResources(stateFile)).toEqual([]);
      expect(fs.existsSync(path.join(pipelineDir, 'cdktf.apply', 'stacks', STACK, 'pipeline.tfplan'))).toBe(false); // clear copy gone
    } finally {
      for (const [file, bytes] of saved) fs.writeFileSync(file, bytes);
    }
  });

  test('apply applies exactly the saved plan; a rerun resumes without applying twice', async () => {
    const r = await runPipeline('apply', env());
    expectSuccess(r);
    expect(r.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
    expect(stateResources(stateFile)).toEqual(expect.arrayContaining([expect.stringMatching(/^openstack_compute_instance_v2\./), expect.stringMatching(/^openstack_networking_router_v2\./)]));
    expect(r.output).toContain('deferred at plan time');
    expect(r.output).toMatch(new RegExp(`${STACK}: the saved plan holds this job's synthesis of [0-9a-f]{40} and the reviewed digests`));
    // the digest the summary asked reviewers to approve is the one the apply checked
    const reviewDigest = /Review digest `(sha256:[0-9a-f]{64})`/.exec(fs.readFileSync(path.join(pipelineDir, 'summary.md'), 'utf8'))![1];
    expect(r.output).toContain(`review digest ${reviewDigest} (commit `);
    for (const dir of ['cdktf.out', 'cdktf.apply']) expect(fs.existsSync(path.join(pipelineDir, dir, 'stacks', STACK, 'pipeline.tfplan'))).toBe(false); // clear copy gone
    const again = await runPipeline('apply', env());
    expectSuccess(again);
    expect(again.output).toContain(`${STACK}: already applied by an earlier run of this stage, skipped`);
  });

  test('a second plan finds no changes and saves nothing to apply', async () => {
    const r = await runPipeline('plan', env({ PIPELINE_STACKS: STACK }));
    expectSuccess(r);
    const meta = readMeta(pipelineDir);
    expect(stackResult(meta, STACK).status).toBe('no-changes');
    expect(stackResult(meta, 'local-e2e').status).toBe('skipped');
    expect(meta.applyOrder).toEqual([]);
    const apply = await runPipeline('apply', env());
    expectSuccess(apply);
    expect(apply.output).toContain('nothing to apply');
  });

  test('the drift check: exit 0 while nothing drifted, exit 2 naming the stack after a change outside Terraform', async () => {
    const driftEnv = env({ PIPELINE_DRIFT: '1', PIPELINE_STACKS: STACK, PIPELINE_PLAN_KEY: '', GITHUB_ACTIONS: 'true', PIPELINE_DIR: path.join(work, 'drift') });
    const clean = await runPipeline('plan', driftEnv);
    expect({ code: clean.code, none: clean.output.includes('No stack drifted: every plan is empty.') }).toEqual({ code: 0, none: true });
    // someone removes the management API rule by hand
    const session = await OpenStackSession.login(cloudEntryFromFile(CLOUDS_YAML, 'local-e2e'));
    const [group] = (await session.get('network', `/v2.0/security-groups?name=${PREFIX}-local-mgmt`)).security_groups;
    const rule = (group.security_group_rules as { id: string; port_range_min: number | null }[]).find((r) => r.port_range_min === 6443)!;
    expect((await session.request('DELETE', 'network', `/v2.0/security-group-rules/${rule.id}`)).status).toBe(204);
    const drifted = await runPipeline('plan', driftEnv);
    expect(drifted.code).toBe(2);
    const meta = readMeta(path.join(work, 'drift'));
    expect(meta.mode).toBe('drift');
    expect(stackResult(meta, STACK)).toMatchObject({ status: 'drift', changes: { add: 1, change: 0, destroy: 0 } });
    expect(drifted.output).toContain('Drifted from the configuration (a plan shows changes): `local-management`.');
    expect(fs.readdirSync(path.join(work, 'drift', 'cdktf.out', 'stacks', STACK)).filter((f) => f.startsWith('pipeline.tfplan'))).toEqual([]);
  });

  test('the destroy plan + apply remove everything the stack created', async () => {
    const plan = await runPipeline('plan', env({ PIPELINE_DESTROY: '1', PIPELINE_STACKS: STACK }));
    expectSuccess(plan);
    const meta = readMeta(pipelineDir);
    expect(meta.mode).toBe('destroy');
    expect(meta.applyOrder).toEqual([STACK]);
    expect(stackResult(meta, STACK).changes).toMatchObject({ add: 0, change: 0 });
    expect(stackResult(meta, STACK).changes!.destroy).toBeGreaterThan(10);
    const apply = await runPipeline('apply', env());
    expectSuccess(apply);
    expect(apply.output).toMatch(/Destroy complete! Resources: \d+ destroyed|Apply complete! Resources: 0 added, 0 changed, \d+ destroyed/);
    expect(stateResources(stateFile)).toEqual([]);
    expect(await leftovers()).toEqual([]);
  });
});
