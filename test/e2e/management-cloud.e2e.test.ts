/**
 * `cdktf deploy` of the management stack against the REAL loopback OpenStack of scripts/local-cloud
 * (Keystone, Neutron, Nova with the fake virt driver, Glance, Cinder), checked through the
 * OpenStack APIs, then re-planned, changed, destroyed; plus the plan-time errors of a bad
 * environment (wrong credentials, missing flavor / image / external network).
 *
 * Runs the real cdktf CLI on the built app (dist/main.js, rebuilt in beforeAll) in a working dir
 * per run under ~/.cache/capi-openstack-cdktf/e2e/management-cloud/ holding a variant of
 * environments/local.yaml (own resource prefix) and the stack's local state. A run that died
 * before its destroy is cleaned up by the next run (its state is still there).
 *
 * Holds /tmp/capi-e2e.lock for the whole suite (test/e2e/support/e2e-lock.ts).
 *
 * Skipped (with a message) when the local cloud is not running, unless LOCAL_CLOUD_REQUIRED=1
 * (CI's e2e tier), where that is a failure.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { readExpected, ruleText, expectedManagementRules, single, expectSuccess, errorHeadlines, errorSection, looksLikeStackTrace, expectDeployedResources } from './helpers/management-cloud-checks';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { AppDir, buildAppOnce, CACHE_DIR, cdktf, CliResult, LOCAL_CLOUDS_YAML, makeAppDir, runWithToolchain, stateResourceCount, tail, writeLocalEnvironment } from './support/management-cloud';
import { diffListings, formatDiff, listProjectResources, ListingEntry, OpenStackApi, readCloudEntry } from './support/openstack-api';

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const CLOUD = 'local-e2e';
const ADMIN_CLOUD = 'local-admin';
/** Resource names start with `<prefix>-local-`; unique to this suite. */
const PREFIX = 'e2emgmt';
const NAME = `${PREFIX}-local`;
const SUITE_DIR = path.join(CACHE_DIR, 'e2e', 'management-cloud');
const STACK = 'local-management';
/** The CIDR step 3 adds to management.apiAllowedCidrs. */
const ADDED_CIDR = '192.0.2.128/25';

/** Is Keystone of the local cloud answering? (synchronous: decides describe vs describe.skip) */
function cloudAnswers(): { ok: boolean; why: string } {
  if (!fs.existsSync(LOCAL_CLOUDS_YAML)) return { ok: false, why: `${LOCAL_CLOUDS_YAML} does not exist` };
  let authUrl: string;
  try {
    authUrl = readCloudEntry(LOCAL_CLOUDS_YAML, CLOUD).authUrl;
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
  const probe = spawnSync(process.execPath, ['-e', `fetch(${JSON.stringify(authUrl)}, { signal: AbortSignal.timeout(8000) }).then((r) => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1))`], {
    timeout: 10_000,
  });
  return probe.status === 0 ? { ok: true, why: '' } : { ok: false, why: `Keystone at ${authUrl} does not answer` };
}

const availability = cloudAnswers();
if (!availability.ok && !REQUIRED) {
  console.warn(
    `management cloud e2e skipped: the local cloud is not running (${availability.why}). Start it with scripts/local-cloud/start; set LOCAL_CLOUD_REQUIRED=1 to make this a failure.`,
  );
}
const suite = availability.ok || REQUIRED ? describe : describe.skip;

suite('management stack on the local OpenStack (cdktf deploy / plan / destroy)', () => {
  const expected = readExpected();
  let lock: E2eLock | undefined;
  let runDir: string;
  let app: AppDir;
  let api: OpenStackApi;
  let admin: OpenStackApi;
  let before: ListingEntry[] = [];
  let afterDeploy: ListingEntry[] = [];
  let deployed = false;
  const timings: Record<string, number> = {};
  const report: string[] = [];
  const logDir = () => path.join(runDir, 'logs');
  const run = (args: string[], logName: string, dir: AppDir = app, cloudsYaml = LOCAL_CLOUDS_YAML, timeoutSeconds = 600) =>
    cdktf(args, { cwd: dir.dir, cloudsYaml, logName, timeoutSeconds, logDir: runDir ? logDir() : undefined });
  const terraform = (args: string[], logName: string) =>
    runWithToolchain(['terraform', `-chdir=${app.stackDir}`, ...args], { cwd: app.dir, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: logDir() });

  /** Destroys what a run dir's state still holds (an earlier run that died, or this run's afterAll). */
  async function destroyLeftovers(dir: AppDir, why: string): Promise<void> {
    if (stateResourceCount(dir.stateFile) === 0) return;
    console.log(`management cloud e2e: ${why}: destroying what ${dir.stateFile} still holds`);
    const result = await run(['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy-leftovers', dir);
    if (result.code === 0 && stateResourceCount(dir.stateFile) === 0) return;
    // cdktf refuses when the app no longer synthesizes this stack; terraform on the synthesized dir still works.
    const fallback = await runWithToolchain(['terraform', `-chdir=${dir.stackDir}`, 'destroy', '-auto-approve', '-input=false'], {
      cwd: dir.dir,
      cloudsYaml: LOCAL_CLOUDS_YAML,
      logName: 'destroy-leftovers-terraform',
      logDir: runDir ? logDir() : undefined,
    });
    if (fallback.code !== 0 || stateResourceCount(dir.stateFile) !== 0) {
      throw new Error(`could not destroy the leftovers in ${dir.dir}:\n${tail(result, 20)}\n${tail(fallback, 20)}`);
    }
  }

  beforeAll(async () => {
    if (!availability.ok) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but the local cloud is not running (${availability.why}): run scripts/local-cloud/start first`);
    lock = await acquireE2eLock({ holder: 'management cloud e2e' });

    buildAppOnce();

    api = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, CLOUD));
    admin = await OpenStackApi.login(readCloudEntry(LOCAL_CLOUDS_YAML, ADMIN_CLOUD));
    if (expected.bootVolumeSizeGb > 0 && !api.hasService('volumev3') && !api.hasService('block-storage')) {
      throw new Error(
        `environments/local.yaml boots from a ${expected.bootVolumeSizeGb} GB volume but the local cloud has no Cinder: restart it with LOCAL_CLOUD_CINDER=1 scripts/local-cloud/start (or set management.bootVolumeSizeGb: 0)`,
      );
    }

    // Earlier runs that died before their destroy: their state is still in their run dir.
    fs.mkdirSync(SUITE_DIR, { recursive: true });
    for (const old of fs.readdirSync(SUITE_DIR).filter((d) => d.startsWith('run-'))) {
      runDir = path.join(SUITE_DIR, old);
      const oldApp = makeAppDir(path.join(SUITE_DIR, old));
      await destroyLeftovers(oldApp, `leftover run dir ${old}`);
      fs.rmSync(oldApp.dir, { recursive: true, force: true });
    }
    runDir = path.join(SUITE_DIR, `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    app = makeAppDir(runDir);
    writeLocalEnvironment(app, [
      [['prefix'], PREFIX],
      [['management', 'waitForReady'], false],
    ]);

    before = await listProjectResources(api);
    const stale = before.filter((e) => e.split(' ').slice(2).join(' ').startsWith(NAME));
    if (stale.length > 0) {
      throw new Error(`resources named ${NAME}-* already exist in project ${CLOUD} and no state of this suite holds them; delete them first:\n${stale.join('\n')}`);
    }
  }, 40 * 60 * 1000);

  afterAll(async () => {
    try {
      if (app) await destroyLeftovers(app, 'cleanup after the suite');
      if (app && process.env.KEEP_E2E_DIR !== '1') {
        // Keep the CLI logs of the last run for post-mortems; the rest (state, cdktf.out) goes.
        const lastLogs = path.join(SUITE_DIR, 'last-run-logs');
        fs.rmSync(lastLogs, { recursive: true, force: true });
        if (fs.existsSync(logDir())) fs.renameSync(logDir(), lastLogs);
        fs.rmSync(app.dir, { recursive: true, force: true });
        console.log(`management cloud e2e: CLI logs of this run in ${lastLogs}`);
      }
    } finally {
      await lock?.release();
      if (report.length > 0) console.log(report.join('\n'));
    }
  }, 15 * 60 * 1000);

  test('1. cdktf deploy creates every resource with the configured properties', async () => {
    const result = await run(['deploy', STACK, '--auto-approve'], 'deploy');
    timings.deploy = result.seconds;
    deployed = stateResourceCount(app.stateFile) > 0;
    expectSuccess(result, 'cdktf deploy');
    expect(result.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);

    const outputsRun = await terraform(['output', '-json'], 'outputs');
    expectSuccess(outputsRun, 'terraform output');
    const outputs = JSON.parse(outputsRun.output.slice(outputsRun.output.indexOf('{'))) as Record<string, { value: string }>;
    await expectDeployedResources({ api, admin, expected, outputs, stateFile: app.stateFile, name: NAME, cloudAuthUrl: readCloudEntry(LOCAL_CLOUDS_YAML, CLOUD).authUrl });

    afterDeploy = await listProjectResources(api);
    const created = diffListings(before, afterDeploy);
    expect(created.removed).toEqual([]);
    const createdTypes = [...new Set(created.added.map((e) => e.split(' ')[0]))].sort();
    expect(createdTypes).toEqual(
      expect.arrayContaining(['floatingip', 'network', 'port', 'router', 'security-group', 'security-group-rule', 'server', 'subnet']),
    );
    expect(createdTypes).not.toContain('application-credential'); // the VM gets no OpenStack credential
    for (const entry of created.added.filter((e) => /^(network|subnet|router|security-group|server) /.test(e))) {
      expect(entry.split(' ').slice(2).join(' ')).toMatch(new RegExp(`^${NAME}-`));
    }
    report.push(`management cloud e2e: resources created by cdktf deploy (${created.added.length}):\n${formatDiff(created)}`);
  });

  test('2. a second cdktf plan reports no changes', async () => {
    if (!deployed) throw new Error('nothing deployed (step 1 failed)');
    const result = await run(['plan', STACK], 'replan');
    timings.replan = result.seconds;
    expectSuccess(result, 'cdktf plan');
    expect(result.output).toContain('No changes. Your infrastructure matches the configuration.');
    expect(result.output).not.toMatch(/Plan: \d+ to add/);
    expect(result.output).not.toContain('Changes to Outputs');
  });

  test('3. adding an allowed CIDR plans exactly one new rule; deploy converges', async () => {
    if (!deployed) throw new Error('nothing deployed (step 1 failed)');
    writeLocalEnvironment(app, [
      [['prefix'], PREFIX],
      [['management', 'waitForReady'], false],
      [['management', 'apiAllowedCidrs'], [...expected.apiAllowedCidrs, ADDED_CIDR]],
    ]);
    const plan = await run(['plan', STACK], 'plan-added-cidr');
    expectSuccess(plan, 'cdktf plan with an added CIDR');
    expect(plan.output).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    const shown = await terraform(['show', '-json', 'plan'], 'show-plan-added-cidr');
    expectSuccess(shown, 'terraform show -json plan');
    const planJson = JSON.parse(shown.output.slice(shown.output.indexOf('{')));
    const changes = (planJson.resource_changes as any[]).filter((c) => c.mode === 'managed' && !(c.change.actions.length === 1 && c.change.actions[0] === 'no-op'));
    expect(changes.map((c) => ({ type: c.type, actions: c.change.actions }))).toEqual([{ type: 'openstack_networking_secgroup_rule_v2', actions: ['create'] }]);
    expect(changes[0].change.after).toMatchObject({ direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 6443, port_range_max: 6443, remote_ip_prefix: ADDED_CIDR });

    const apply = await run(['deploy', STACK, '--auto-approve'], 'deploy-added-cidr');
    expectSuccess(apply, 'cdktf deploy with an added CIDR');
    expect(apply.output).toMatch(/Apply complete! Resources: 1 added, 0 changed, 0 destroyed/);
    const group = single((await api.network(`/security-groups?name=${NAME}-mgmt`)).security_groups, 'security group', `${NAME}-mgmt`);
    const rules = ((await api.network(`/security-group-rules?security_group_id=${group.id}`)).security_group_rules as any[]).map(ruleText).sort();
    expect(rules).toEqual(expectedManagementRules([...expected.apiAllowedCidrs, ADDED_CIDR], expected.sshAllowedCidrs));

    const again = await run(['plan', STACK], 'replan-added-cidr');
    expectSuccess(again, 'cdktf plan after the change');
    expect(again.output).toContain('No changes. Your infrastructure matches the configuration.');
  });

  test('4. cdktf destroy leaves no resource of the environment: full listings before and after are equal', async () => {
    if (!deployed) throw new Error('nothing deployed (step 1 failed)');
    const result = await run(['destroy', STACK, '--auto-approve', '--ignore-missing-stack-dependencies'], 'destroy');
    timings.destroy = result.seconds;
    expectSuccess(result, 'cdktf destroy');
    expect(result.output).toMatch(/Destroy complete! Resources: \d+ destroyed/);
    expect(stateResourceCount(app.stateFile)).toBe(0);
    deployed = false;
    const after = await listProjectResources(api);
    const diff = diffListings(before, after);
    report.push(`management cloud e2e: listing before deploy vs after destroy (${before.length} vs ${after.length} entries):\n${formatDiff(diff)}`);
    expect(diff).toEqual({ added: [], removed: [] });
  });

  describe('5. a bad environment fails the plan with a message naming what is wrong', () => {
    const variant = (name: string, changes: ReadonlyArray<readonly [readonly (string | number)[], unknown]>): AppDir => {
      const dir = makeAppDir(path.join(runDir, name));
      writeLocalEnvironment(dir, [[['prefix'], PREFIX], [['management', 'waitForReady'], false], ...changes]);
      return dir;
    };
    const expectPlanFailure = (result: CliResult, names: RegExp[]) => {
      expect(result.code).not.toBe(0);
      expect(result.code).not.toBeNull();
      expect(result.output).not.toMatch(/Creating\.\.\.|Apply complete/);
      expect(looksLikeStackTrace(result.output)).toBe(false);
      const section = errorSection(result.output);
      if (section.length === 0 || section.length > 30) throw new Error(`expected a short error report, got ${section.length} lines: ${tail(result, 60)}`);
      for (const name of names) if (!name.test(section.join('\n'))) throw new Error(`the error does not match ${name}: ${tail(result, 40)}`);
      return section;
    };

    test('wrong credentials: one error naming the failed authentication', async () => {
      const dir = variant('wrong-credentials', []);
      const clouds = parse(fs.readFileSync(LOCAL_CLOUDS_YAML, 'utf8'));
      clouds.clouds[CLOUD].auth.password = 'not-the-password';
      const cloudsFile = path.join(dir.dir, 'clouds.yaml');
      fs.writeFileSync(cloudsFile, JSON.stringify(clouds), { mode: 0o600 });
      const result = await run(['plan', STACK], 'plan-wrong-credentials', dir, cloudsFile);
      expectPlanFailure(result, [/auth\/tokens/, /401/, /requires authentication/]);
      expect(errorHeadlines(result.output)).toHaveLength(1);
    });

    test('missing flavor: the error names the flavor', async () => {
      const result = await run(['plan', STACK], 'plan-missing-flavor', variant('missing-flavor', [[['management', 'flavor'], 'e2e-missing-flavor']]));
      expectPlanFailure(result, [/openstack_compute_flavor_v2\.\S+\["e2e-missing-flavor"\]/, /returned no results/]);
    });

    test('missing image: the precondition names the image and the project', async () => {
      const result = await run(['plan', STACK], 'plan-missing-image', variant('missing-image', [[['management', 'image'], 'e2e-missing-image']]));
      expectPlanFailure(result, [/Image "e2e-missing-image" not found/, new RegExp(`project "${readCloudEntry(LOCAL_CLOUDS_YAML, CLOUD).projectName}"`)]);
    });

    test('cdktf deploy of a bad environment stops at the plan and creates nothing', async () => {
      // cdktf-cli 0.21 loses the diagnostics of a failed plan inside `deploy` (its output ends with
      // "Invoking Terraform CLI failed with exit code 1"); `cdktf plan` shows them (tests above).
      const result = await run(['deploy', STACK, '--auto-approve'], 'deploy-missing-image', variant('deploy-missing-image', [[['management', 'image'], 'e2e-missing-image']]));
      expect(result.code).not.toBe(0);
      expect(result.code).not.toBeNull();
      expect(result.output).not.toMatch(/Creating\.\.\.|Apply complete/);
      expect(diffListings(before, await listProjectResources(api))).toEqual({ added: [], removed: [] });
    });

    test('missing external network: the error names the network', async () => {
      const result = await run(['plan', STACK], 'plan-missing-network', variant('missing-network', [[['network', 'externalNetworkName'], 'e2e-missing-network']]));
      expectPlanFailure(result, [/openstack_networking_network_v2\.\S+\["e2e-missing-network"\]/, /returned no results/]);
    });

    test('nothing was created by the failed plans', async () => {
      const diff = diffListings(before, await listProjectResources(api));
      expect(diff).toEqual({ added: [], removed: [] });
      if (Object.keys(timings).length) report.push(`management cloud e2e timings (s): ${JSON.stringify(Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v * 10) / 10])))}`);
    });
  });
});
