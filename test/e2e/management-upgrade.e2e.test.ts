/**
 * Controller upgrade of a management cluster that holds a running workload cluster, through the
 * code a user's deploy runs (`capi-openstack management upgrade`): Cluster API core and kubeadm
 * from UPGRADE_FROM (an older minor the Go module proxy serves) to the pinned version, with the real
 * controllers (scripts/local-capi) against the local kube-apiserver and the local OpenStack.
 *
 * What is simulated, and why: the management VM (as in the control-loop e2e, the local
 * kube-apiserver with the controllers as processes); clusterctl's provider inventory, written by
 * scripts/local-capi start as `clusterctl init` writes it; the providers' releases, replaced by a
 * local clusterctl repository holding each provider's CRDs from its Go module and its own
 * metadata.yaml (scripts/local-capi/repository), since the controllers here are processes and not
 * the release's Deployments; clusterctl's scale-down of the old Deployments, replaced by stopping
 * the processes before the upgrade; and the roll-out of the new ones, replaced by starting the
 * processes at the pinned version, which re-points the webhooks and the CRDs' conversion.
 *
 * The repository is pinned in the environment (`management.providerManifests`, as an operator pins
 * a mirror): a file changed after pinning is refused before the backup and before anything
 * changes; the upgrade then installs the verified files only, with a user HOME whose
 * `~/.cluster-api` would swap the core components (it is never read).
 *
 * Asserted: clusterctl's inventory at the new versions, a backup taken first, no OpenStack resource
 * created or deleted (listing by id equal), no Machine replaced (same uids), the stored objects
 * readable at their storage version, the workload re-plan empty, and a scale-up afterwards
 * reconciled by the upgraded controllers.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseEnvironment } from '../../lib/config/load';
import { manifestVersions } from '../../lib/config/provider-manifests';
import { BASE_VARIANT } from './helpers/control-loop-variant';
import { bash, CAPI, Day2Harness, missingServices, script, STACK } from './helpers/management-day2';
import { hostileHome, PLANTED_CONFIG_MAP, pinRepository } from './helpers/pinned-repository';
import { LOCAL_CAPI_STATE } from './support/lane-paths';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { projectListing, ProjectListing } from './support/project-listing';
import { ok } from './support/workload-kube';
import { expectExit } from './support/workload-process';

/** The Cluster API version the suite starts at (scripts/local-capi/lib.sh; scripts/local-capi/build builds it) and the pinned one it upgrades to. */
const UPGRADE_FROM = bash('. scripts/local-capi/lib.sh && echo "$LOCAL_CAPI_UPGRADE_FROM"');
const UPGRADE_TO = bash('. scripts/local-capi/lib.sh && echo "$CAPI_VERSION"', { ...process.env, LOCAL_CAPI_CLUSTER_API_VERSION: '' });
const AT_START = { LOCAL_CAPI_CLUSTER_API_VERSION: UPGRADE_FROM };
const AT_TARGET = { LOCAL_CAPI_CLUSTER_API_VERSION: UPGRADE_TO };
const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1';
const why = missingServices();
if (why.length > 0 && !REQUIRED) console.warn(`management upgrade e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length === 0 || REQUIRED ? describe : describe.skip;

const timer = phaseTimer('management upgrade e2e');
const { timings, log, timed } = timer;
const findings: string[] = [];

suite(`controller upgrade in place (Cluster API core and kubeadm ${UPGRADE_FROM} → ${UPGRADE_TO}) with a running workload cluster`, () => {
  const h = new Day2Harness('upgrade', log);
  let deployed = false;
  let beforeDeploy: ProjectListing;
  let before: ProjectListing;
  let machineUids: string[] = [];
  let repository: string;
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy failed; see the first failing test');
  };
  const providerVersions = async () =>
    (ok(await h.client.get('/apis/clusterctl.cluster.x-k8s.io/v1alpha3/providers'), 'listing providers', [200]).items as any[]).map((p) => `${p.metadata.name} ${p.version}`).sort();

  beforeAll(async () => {
    // the management cluster as an earlier release left it: its CRDs and controllers at UPGRADE_FROM
    beforeDeploy = await h.begin(why, 'management upgrade e2e', timed, AT_START);
    h.project.writeVariant({ ...BASE_VARIANT, clusterApiVersion: UPGRADE_FROM });
    repository = path.join(h.project.dir, 'clusterctl-repository');
    const r = script('local-capi/repository', [repository, UPGRADE_TO]);
    if (r.status !== 0) throw new Error(`scripts/local-capi/repository failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  }, 45 * 60_000);

  afterAll(async () => {
    try {
      // the CRDs are at UPGRADE_TO now: the next suite gets a fresh local kube-apiserver, as local-kube installs it
      await h.end(true);
    } finally {
      writeSuiteSummary('management-upgrade', timer, { stack: STACK, findings, controllerLogs: path.join(LOCAL_CAPI_STATE, 'logs', h.runId) });
    }
  });

  test(`a workload cluster is deployed and running on the controllers at ${UPGRADE_FROM}`, async () => {
    machineUids = (await h.deployRunning(timed)).map((m) => m.metadata.uid).sort();
    deployed = true;
    before = await projectListing(h.openstack);
  });

  test(`management upgrade from the pinned repository: a changed file is refused before anything happens; then a backup, clusterctl upgrade apply of core and kubeadm to ${UPGRADE_TO}, the inventory says so`, async () => {
    needDeploy();
    // the operator's version bump: the new versions and the checksums of their files
    const bumped = parseEnvironment(h.project.writeVariant({ ...BASE_VARIANT, clusterApiVersion: UPGRADE_TO }), path.join(h.project.envDir, 'local.yaml'));
    h.project.writeVariant({ ...BASE_VARIANT, clusterApiVersion: UPGRADE_TO, providerManifests: pinRepository(repository, manifestVersions(bumped.spec)) });
    const tRefused = Date.now();
    const clusterctl = bash('. scripts/local-capi/lib.sh && controller_bin clusterctl', { ...process.env, ...AT_TARGET });
    const changed = path.join(repository, 'cluster-api', UPGRADE_TO, 'core-components.yaml');
    const pinnedBytes = fs.readFileSync(changed);
    fs.appendFileSync(changed, '# changed after pinning\n');
    const refused = h.management('upgrade', ['--repository', repository], clusterctl);
    fs.writeFileSync(changed, pinnedBytes);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`coreComponents (${changed}) has SHA-256 `);
    expect(refused.stderr).toContain(': not used, nothing was changed');
    expect(fs.existsSync(path.join(h.backupDir, 'local')) ? fs.readdirSync(path.join(h.backupDir, 'local')) : []).toEqual([]);
    expect(await providerVersions()).toContain(`cluster-api ${UPGRADE_FROM}`);
    timings['refused upgrade (changed file) (s)'] = Math.round((Date.now() - tRefused) / 100) / 10;
    const t0 = Date.now();
    // the stand-in for clusterctl scaling the old Deployments down: the processes stop (their
    // webhook configurations and CRD conversion go with them, as the release's would be replaced)
    const stopped = script('local-capi/stop', [], process.env, 120_000);
    if (stopped.status !== 0) throw new Error(`scripts/local-capi/stop failed: ${stopped.stderr.slice(-2000)}`);
    const r = h.management('upgrade', ['--repository', repository], clusterctl, { HOME: hostileHome(h.project.dir, repository, UPGRADE_TO) });
    if (r.status !== 0) throw new Error(`management upgrade failed (${r.status}):\n${r.stderr.slice(-4000)}`);
    timings['upgrade command (s)'] = Math.round((Date.now() - t0) / 100) / 10;
    expect(r.stderr).toContain(`11 pinned component files verified by their SHA-256 (from ${repository})`);
    // what ~/.cluster-api/overrides would have added to the core components is not there
    expect(ok(await h.client.get(`/api/v1/configmaps?fieldSelector=metadata.name%3D${PLANTED_CONFIG_MAP}`), 'listing ConfigMaps', [200]).items).toEqual([]);
    expect(r.stdout).toContain(`upgraded cluster-api ${UPGRADE_FROM} → ${UPGRADE_TO}, bootstrap-kubeadm ${UPGRADE_FROM} → ${UPGRADE_TO}, control-plane-kubeadm ${UPGRADE_FROM} → ${UPGRADE_TO}`);
    expect(fs.readdirSync(path.join(h.backupDir, 'local'))).toHaveLength(1);
    expect(await providerVersions()).toEqual(['addon-helm v0.6.4', `bootstrap-kubeadm ${UPGRADE_TO}`, `cluster-api ${UPGRADE_TO}`, `control-plane-kubeadm ${UPGRADE_TO}`, 'infrastructure-openstack v0.14.7']);
    // the roll-out's stand-in: the processes start at the new version, their webhooks re-pointed
    await timed('controllers started at the new version', async () => h.startControllers(AT_TARGET));
    const running = fs.readFileSync(`/proc/${fs.readFileSync(path.join(LOCAL_CAPI_STATE, 'run', 'capi.pid'), 'utf8').trim()}/cmdline`, 'utf8');
    expect(running).toContain(`cluster-api@${UPGRADE_TO}/capi`);
    const again = h.management('upgrade', ['--repository', repository], clusterctl);
    expect(again.stdout).toContain(`already run Cluster API ${UPGRADE_TO}`);
    timings['upgrade start to new controllers running (s)'] = Math.round((Date.now() - t0) / 100) / 10;
  });

  test('nothing in OpenStack changed, no Machine was replaced, the objects read back, the re-plan is empty', async () => {
    needDeploy();
    expect((await h.machinesRunning(3)).map((m) => m.metadata.uid).sort()).toEqual(machineUids);
    expect(await projectListing(h.openstack)).toEqual(before);
    for (const [apiVersion, plural] of [[CAPI, 'clusters'], [CAPI, 'machinedeployments'], [CAPI, 'machinesets'], ['controlplane.cluster.x-k8s.io/v1beta2', 'kubeadmcontrolplanes'], ['bootstrap.cluster.x-k8s.io/v1beta2', 'kubeadmconfigs']]) {
      expect((await h.list(plural, apiVersion)).length).toBeGreaterThan(0);
    }
    const { changes } = await timed('re-plan after the upgrade', () => h.project.plan());
    expect(changes).toEqual([]);
  });

  test('a scale-up after the upgrade is reconciled by the upgraded controllers', async () => {
    needDeploy();
    h.project.writeVariant({ ...BASE_VARIANT, clusterApiVersion: UPGRADE_TO, workerCount: 3 });
    await h.project.synth();
    const { changes } = await h.project.plan();
    expect(changes.map((c) => c.actions.join())).toEqual(['update']);
    expectExit(await h.project.applyPlan(), 'terraform apply (worker count)');
    const machines = await timed('scale-up to 4 machines running', () => h.machinesRunning(4));
    expect(machines.map((m) => m.metadata.uid).filter((u) => machineUids.includes(u)).sort()).toEqual(machineUids);
  });

  test('destroy leaves the project listing as it was before the deploy', async () => {
    needDeploy();
    await h.destroyStack(timed);
    deployed = false;
    expect(await projectListing(h.openstack)).toEqual(beforeDeploy);
  });
});
