/**
 * Loss of the management cluster, and its restore from a backup, with the real controllers
 * (scripts/local-capi: CAPI core, kubeadm, CAPO + ORC, CAAPH with their webhooks) against the local
 * kube-apiserver and the local OpenStack. A workload cluster is deployed and running (simulated data
 * plane, see support/simulated-workload.ts); `capi-openstack management backup` writes the
 * encrypted backup with the clusterctl built from the Cluster API module (scripts/local-capi
 * build); then the management cluster is lost: controllers stopped, the local kube-apiserver's
 * data wiped (scripts/local-kube stop --wipe: etcd, certificates). A fresh kube-apiserver with the
 * controllers installed again stands in for the new management VM; `capi-openstack management
 * restore` brings the clusters back.
 *
 * Asserted: after the restore the Cluster is ready again with the same servers, the project
 * listing (every resource by id) equals the one before the loss, the workload stack's re-plan is
 * empty, and a scale-up is reconciled by the controllers of the new management cluster.
 *
 * Simulated: the management VM (the local kube-apiserver and controllers as local processes, as
 * in the control-loop e2e) and the workload cluster's data plane.
 */
import * as fs from 'fs';
import * as path from 'path';
import { BASE_VARIANT, CLUSTER } from './helpers/control-loop-variant';
import { CAPI, Day2Harness, missingServices, STACK } from './helpers/management-day2';
import { LOCAL_CAPI_STATE } from './support/lane-paths';
import { phaseTimer, writeSuiteSummary } from './support/phase-timer';
import { projectListing, ProjectListing } from './support/project-listing';
import { getObject, ok, waitFor } from './support/workload-kube';
import { expectExit } from './support/workload-process';

const REQUIRED = process.env.LOCAL_CAPI_REQUIRED === '1';
const OSC = 'infrastructure.cluster.x-k8s.io/v1beta1';
const why = missingServices();
if (why.length > 0 && !REQUIRED) console.warn(`management restore e2e skipped: ${why.join('; ')}; LOCAL_CAPI_REQUIRED=1 makes this a failure`);
const suite = why.length === 0 || REQUIRED ? describe : describe.skip;

const timer = phaseTimer('management restore e2e');
const { timings, log, timed } = timer;

suite('the management cluster is lost and restored from its backup: every cluster resumes, nothing in OpenStack changes', () => {
  const h = new Day2Harness('restore', log);
  let deployed = false;
  let beforeLoss: ProjectListing;
  let beforeDeploy: ProjectListing;
  let serversBefore: string[] = [];
  const needDeploy = () => {
    if (!deployed) throw new Error('the deploy failed; see the first failing test');
  };

  beforeAll(async () => {
    beforeDeploy = await h.begin(why, 'management restore e2e', timed);
  }, 45 * 60_000);

  afterAll(async () => {
    try {
      await h.end(false);
    } finally {
      writeSuiteSummary('management-restore', timer, { stack: STACK, findings: [], controllerLogs: path.join(LOCAL_CAPI_STATE, 'logs', h.runId) });
    }
  });

  test('a workload cluster is deployed and running', async () => {
    deployed = (await h.deployRunning(timed)).length === 3;
    serversBefore = await h.servers();
    expect(serversBefore).toHaveLength(3);
  });

  test('management backup writes an encrypted backup of every cluster', async () => {
    needDeploy();
    const t0 = Date.now();
    const r = h.management('backup');
    timings['backup (s)'] = Math.round((Date.now() - t0) / 100) / 10;
    if (r.status !== 0) throw new Error(`management backup failed (${r.status}):\n${r.stderr.slice(-3000)}`);
    const [file] = fs.readdirSync(path.join(h.backupDir, 'local'));
    const bytes = fs.readFileSync(path.join(h.backupDir, 'local', file));
    timings['backup size (bytes)'] = bytes.length;
    expect(r.stdout).toMatch(new RegExp(`wrote .*${file} \\(1 clusters, \\d+ objects`));
    expect(bytes.toString('latin1')).not.toContain('OpenStackCluster');
    expect((fs.statSync(path.join(h.backupDir, 'local', file)).mode & 0o777).toString(8)).toBe('600');
    expect(h.management('backups').stdout).toContain(`1 clusters (${h.namespace}/${CLUSTER})`);
    // clusterctl resumed the cluster it paused while reading
    expect((await getObject(h.client, { apiVersion: CAPI, kind: 'Cluster', name: CLUSTER, namespace: h.namespace })).spec.paused).toBeFalsy();
  });

  test('the management cluster is lost: controllers stopped, its data wiped; a fresh one holds no cluster', async () => {
    needDeploy();
    beforeLoss = await projectListing(h.openstack);
    await h.stopSim();
    await timed('loss: controllers stopped, kube-apiserver wiped and started anew', async () => h.loseManagementCluster());
    await timed('controllers installed again', async () => h.startControllers());
    expect(ok(await h.client.get(`/apis/${CAPI}/clusters`), 'listing Clusters', [200]).items).toEqual([]);
  });

  test('management restore: the Cluster is ready again on the same servers, OpenStack unchanged, the re-plan empty', async () => {
    needDeploy();
    const t0 = Date.now();
    const r = h.management('restore');
    if (r.status !== 0) throw new Error(`management restore failed (${r.status}):\n${r.stderr.slice(-3000)}`);
    expect(r.stdout).toMatch(/^restored 1 clusters \(\d+ objects\)/);
    timings['restore command (s)'] = Math.round((Date.now() - t0) / 100) / 10;
    await timed('workload API server up again', () => h.startSim());
    await timed('restore to OpenStackCluster ready', () =>
      waitFor('the OpenStackCluster to be ready again', 10 * 60_000, async () => ((await getObject(h.client, { apiVersion: OSC, kind: 'OpenStackCluster', name: CLUSTER, namespace: h.namespace }))?.status?.ready === true ? true : undefined), 2_000),
    );
    await timed('restore to machines running', () => h.machinesRunning(3));
    timings['restore to Cluster ready (s)'] = Math.round((Date.now() - t0) / 100) / 10;
    expect(await h.servers()).toEqual(serversBefore);
    expect(await projectListing(h.openstack)).toEqual(beforeLoss);
    const { changes } = await timed('re-plan after the restore', () => h.project.plan());
    expect(changes).toEqual([]);
  });

  test('a scale-up after the restore is reconciled by the new management cluster', async () => {
    needDeploy();
    h.project.writeVariant({ ...BASE_VARIANT, workerCount: 3 });
    await h.project.synth();
    const { changes } = await h.project.plan();
    expect(changes.map((c) => c.actions.join())).toEqual(['update']);
    expectExit(await h.project.applyPlan(), 'terraform apply (worker count)');
    await timed('scale-up to 4 machines running', () => h.machinesRunning(4));
    const now = await h.servers();
    expect(now).toHaveLength(4);
    expect(now.filter((s) => serversBefore.includes(s))).toEqual(serversBefore);
  });

  test('destroy leaves the project listing as it was before the deploy', async () => {
    needDeploy();
    await h.destroyStack(timed);
    deployed = false;
    expect(await projectListing(h.openstack)).toEqual(beforeDeploy);
    expect(await h.project.stateList()).toEqual([]);
  });
});
