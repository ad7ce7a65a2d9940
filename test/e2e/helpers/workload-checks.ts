/**
 * The longer checks of the workload-cluster e2e suite, on the suite's one deployment: the
 * kubeconfig command against the Secret CAPI writes, the destroy order, and removing what an
 * interrupted run left.
 */
import * as fs from 'fs';
import * as path from 'path';
import { KubeClient } from '../../../lib/runtime/readiness/kube-client';
import { CSI_KEY, LocalCloud } from '../support/cleanup-cloud';
import { probeLocalCloud, readPasswordCloud } from '../support/local-cloud-probe';
import { CLUSTER_FINALIZER, deleteNamespaceAndWait, getObject, ok, releaseClusterFinalizers, waitFor } from '../support/workload-kube';
import { OpenStackSession } from '../support/workload-openstack';
import { expectExit, ROOT, run, start, tail } from '../support/workload-process';
import { WorkloadProject } from '../support/workload-project';

/** What the checks share with the suite. */
export interface WorkloadSuiteContext {
  readonly project: WorkloadProject;
  readonly client: KubeClient;
  readonly openstack: OpenStackSession;
  readonly namespace: string;
  readonly namePrefix: string;
  readonly cloudName: string;
  readonly cloudsYaml: string;
  readonly cluster: string;
  readonly outputs: Record<string, any>;
  readonly timings: Record<string, number>;
  readonly notes: string[];
  readonly log: (line: string) => void;
  readonly timed: <T>(phase: string, fn: () => Promise<T>) => Promise<T>;
}

/** Cloud resources of the cluster by name (also leftovers of an interrupted run). */
export async function cloudResources(openstack: OpenStackSession, namePrefix: string) {
  const creds = await openstack.applicationCredentials(namePrefix);
  const fips = (await openstack.floatingIps(`description=${encodeURIComponent(`${namePrefix} Kubernetes API`)}`)).filter((f) => f.description === `${namePrefix} Kubernetes API`);
  const groups = (await openstack.serverGroups()).filter((g) => g.name.startsWith(`${namePrefix}-`));
  return { creds, fips, groups };
}

/** Removes whatever a failed or interrupted run left (by name), after releasing the Cluster finalizer. */
export async function removeLeftovers(c: Pick<WorkloadSuiteContext, 'client' | 'openstack' | 'namespace' | 'namePrefix' | 'log'>, when: string): Promise<string[]> {
  const { client, openstack, namespace, namePrefix, log } = c;
  const removed: string[] = [];
  for (const c of await releaseClusterFinalizers(client, namespace)) removed.push(`finalizer of Cluster ${c}`);
  const ns = await client.get(`/api/v1/namespaces/${namespace}`);
  if (ns.kind === 'response' && ns.status === 200) {
    await deleteNamespaceAndWait(client, namespace);
    removed.push(`namespace ${namespace}`);
  }
  const { creds, fips, groups } = await cloudResources(openstack, namePrefix);
  for (const c of creds) {
    await openstack.deleteIfPresent('identity', `/v3/users/${openstack.userId}/application_credentials/${c.id}`);
    removed.push(`application credential ${c.name}`);
  }
  for (const f of fips) {
    await openstack.deleteIfPresent('network', `/v2.0/floatingips/${f.id}`);
    removed.push(`floating IP ${f.floating_ip_address}`);
  }
  for (const g of groups) {
    await openstack.deleteIfPresent('compute', `/os-server-groups/${g.id}`);
    removed.push(`server group ${g.name}`);
  }
  if (removed.length > 0) log(`${when}: removed ${removed.join(', ')}`);
  return removed;
}

/** The kubeconfig command: a clear message before CAPI wrote the Secret, the kubeconfig after. */
export async function expectKubeconfigCommand(c: WorkloadSuiteContext): Promise<void> {
  const { project, client, namespace, outputs, timed } = c;
  const CLUSTER = c.cluster;
  expect(outputs.kubeconfig_secret).toEqual({ namespace, name: `${CLUSTER}-kubeconfig`, key: 'value' });
  const cli = (out: string) =>
    run('node', [path.join(ROOT, 'dist', 'bin', 'capi-openstack.js'), 'kubeconfig', project.envName, CLUSTER, '--dir', 'environments', '--out', out], {
      cwd: project.dir,
      env: project.processEnv,
      timeoutMs: 120_000,
    });
  // before CAPI wrote it: a clear message
  const early = await cli('early.kubeconfig');
  expect(early.code).not.toBe(0);
  expect(early.output).toContain(`secret ${namespace}/${CLUSTER}-kubeconfig on the management cluster`);
  expect(early.output).toContain('does not exist (yet)');
  expect(fs.existsSync(path.join(project.dir, 'early.kubeconfig'))).toBe(false);

  // the Secret CAPI writes (type cluster.x-k8s.io/secret, key "value"), owned by the Cluster
  const host = new URL(outputs.api_endpoint).hostname;
  const workloadKubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    `clusters:\n- name: ${CLUSTER}\n  cluster:\n    server: https://${host}:6443\n    certificate-authority-data: ${Buffer.from('e2e-test-ca').toString('base64')}`,
    `contexts:\n- name: ${CLUSTER}-admin@${CLUSTER}\n  context:\n    cluster: ${CLUSTER}\n    user: ${CLUSTER}-admin`,
    `current-context: ${CLUSTER}-admin@${CLUSTER}`,
    `users:\n- name: ${CLUSTER}-admin\n  user:\n    token: e2e-test-token`,
    '',
  ].join('\n');
  ok(
    await client.request('POST', `/api/v1/namespaces/${namespace}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'cluster.x-k8s.io/secret',
      metadata: { name: `${CLUSTER}-kubeconfig`, namespace, labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
      data: { value: Buffer.from(workloadKubeconfig).toString('base64') },
    }),
    'creating the kubeconfig Secret',
    [201],
  );
  const r = await timed('kubeconfig CLI', () => cli('e2e.kubeconfig'));
  expectExit(r, 'capi-openstack kubeconfig');
  const file = path.join(project.dir, 'e2e.kubeconfig');
  expect(fs.readFileSync(file, 'utf8')).toBe(workloadKubeconfig);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(r.output).toContain(`wrote e2e.kubeconfig (workload cluster ${CLUSTER} of ${project.envName}, API https://${host}:6443)`);
  expect(r.output).not.toContain('e2e-test-token');
}

/** Destroy: the Cluster first, Terraform waits for CAPI, the leftovers cleanup beside it, credentials last, nothing left. */
export async function expectOrderlyDestroy(c: WorkloadSuiteContext): Promise<void> {
  const run = await destroyHoldingTheCluster(c);
  const cleanupLines = expectDestroyOrder(c, run);
  await expectNothingLeft(c, run, cleanupLines);
}

/** What the destroy run left to look at. */
interface DestroyRun {
  readonly manifests: ReturnType<WorkloadProject['manifests']>;
  readonly clusterRes: ReturnType<WorkloadProject['manifests']>[number];
  readonly state: string[];
  readonly credential: { id: string };
  readonly volumes?: LocalCloud;
  readonly csiVolumes?: { mine: string; other: string };
  readonly result: Awaited<ReturnType<typeof start>['done']>;
  readonly releasedAt: number;
}

/** Runs terraform destroy while CAPI (the finalizer) holds the Cluster, checks what must stay meanwhile, then releases it. */
async function destroyHoldingTheCluster(c: WorkloadSuiteContext): Promise<DestroyRun> {
  const { project, client, openstack, namespace, namePrefix, cloudName, timings, notes } = c;
  const CLUSTER = c.cluster;
  const CLOUDS_YAML = c.cloudsYaml;
  const manifests = project.manifests();
  const clusterRes = manifests.find((m) => m.kind === 'Cluster')!;
  const cluster = await getObject(client, clusterRes);
  expect(cluster.metadata.finalizers).toEqual([CLUSTER_FINALIZER]); // held since the controller simulation
  const credential = (await cloudResources(openstack, namePrefix)).creds[0];
  const state = (await project.stateList()).filter((a) => !a.startsWith('data.'));
  expect(state.length).toBeGreaterThan(manifests.length);

  // What the cluster's Cinder CSI would have left: a volume marked with this cluster's name (the
  // destroy must delete it) and one of another cluster (it must stay).
  const volumes = probeLocalCloud(CLOUDS_YAML, cloudName).cinder ? await LocalCloud.login(readPasswordCloud(CLOUDS_YAML, cloudName)) : undefined;
  const csiVolumes = volumes
    ? { mine: await volumes.createVolume(`${namePrefix}-pvc-data`, { [CSI_KEY]: namePrefix }), other: await volumes.createVolume(`${namePrefix}-x-pvc-data`, { [CSI_KEY]: `${namePrefix}-x` }) }
    : undefined;
  if (!csiVolumes) notes.push('no Cinder in the local cloud: the leftover volume check was not run');

  const t0 = Date.now();
  const destroy = start(project.processEnv.TERRAFORM_BINARY_NAME || 'terraform', ['destroy', '-auto-approve', '-input=false', '-no-color'], {
    cwd: project.stackDir,
    env: project.processEnv,
    timeoutMs: 15 * 60_000,
  });
  const seen = (re: RegExp) => destroy.lines.some((l) => re.test(l.text));
  // Terraform deletes the Cluster; CAPI (the finalizer) keeps it until the cluster is torn down
  await waitFor('the Cluster to get a deletionTimestamp', 120_000, async () => ((await getObject(client, clusterRes))?.metadata.deletionTimestamp ? true : undefined));
  const heldFrom = Date.now();
  const HOLD_MS = 8_000;
  while (Date.now() - heldFrom < HOLD_MS) {
    expect(destroy.child.exitCode).toBeNull(); // still waiting
    expect((await openstack.applicationCredentials(namePrefix)).map((c) => c.id)).toEqual([credential.id]);
    ok(await client.get(`/api/v1/namespaces/${namespace}/secrets/${CLUSTER}-cloud-credentials`), 'the clouds.yaml Secret while the Cluster is deleted', [200]);
    await new Promise((r) => setTimeout(r, 1_000));
  }
  expect(seen(/kubernetes_secret_v1\.CloudsSecret: Destroying/)).toBe(false);
  expect(seen(/openstack_identity_application_credential_v3\.\S+: Destroying/)).toBe(false);
  expect(seen(new RegExp(`kubernetes_manifest\\.${clusterRes.resource}: Destruction complete`))).toBe(false);
  // CAPI has finished: the finalizer goes, the API server deletes the Cluster
  const releasedAt = Date.now() - t0;
  expect(await releaseClusterFinalizers(client, namespace)).toEqual([CLUSTER]);
  const result = await destroy.done;
  timings['destroy (terraform destroy, incl. Cluster finalizer hold)'] = Math.round(result.seconds * 10) / 10;
  timings['destroy after the finalizer was released'] = Math.round((result.seconds - releasedAt / 1000) * 10) / 10;
  expectExit(result, 'terraform destroy');
  expect(result.output).toMatch(/Destroy complete! Resources: \d+ destroyed/);

  return { manifests, clusterRes, state, credential, volumes, csiVolumes, result, releasedAt };
}

/** The order, from the time-stamped destroy output; returns the cleanup's output lines. */
function expectDestroyOrder(c: WorkloadSuiteContext, run: DestroyRun): string[] {
  const { namePrefix, notes } = c;
  const CLUSTER = c.cluster;
  const { manifests, clusterRes, state, result, releasedAt } = run;
  // the order, from the time-stamped destroy output
  const at = (re: RegExp) => {
    const l = result.lines.find((x) => re.test(x.text));
    if (!l) throw new Error(`no line ${re} in the destroy output:\n${tail(result)}`);
    return l.atMs;
  };
  const clusterGone = at(new RegExp(`kubernetes_manifest\\.${clusterRes.resource}: Destruction complete`));
  expect(clusterGone).toBeGreaterThanOrEqual(releasedAt - 1_000);
  const destroying = result.lines.filter((l) => /^\S+: Destroying\.\.\./.test(l.text));
  const isCleanup = (text: string) => text.startsWith('terraform_data.Leftovers_');
  const others = destroying.filter((l) => !l.text.includes(clusterRes.resource) && !isCleanup(l.text));
  expect(others.length).toBe(state.length - 2);
  for (const l of others) expect({ line: l.text, afterClusterGone: l.atMs >= clusterGone }).toEqual({ line: l.text, afterClusterGone: true });
  const credentialStart = at(/openstack_identity_application_credential_v3\.\S+: Destroying/);
  // the leftovers cleanup runs alongside the Cluster deletion (it waits for the machines itself),
  // logs in with the operator's clouds.yaml entry, and is done before the credential goes
  expect(at(/^terraform_data\.Leftovers_\S+: Destroying/)).toBeLessThan(clusterGone);
  expect(at(/^terraform_data\.Leftovers_\S+: Destruction complete/)).toBeLessThanOrEqual(credentialStart);
  const cleanupLines = result.lines.filter((l) => /^terraform_data\.Leftovers_\S+ \(local-exec\): /.test(l.text)).map((l) => l.text.replace(/^\S+ \(local-exec\): /, ''));
  expect(cleanupLines.join('\n')).toMatch(new RegExp(`capi-local-e2e-${CLUSTER}|${namePrefix}`));
  notes.push(`leftovers cleanup output: ${cleanupLines.join(' | ')}`);
  expect(credentialStart).toBeGreaterThanOrEqual(at(/kubernetes_secret_v1\.CloudsSecret: Destruction complete/));
  // everything that hands the credential to CAPO / the add-ons is gone before it (templates carry none)
  for (const m of manifests.filter((x) => !x.kind.endsWith('Template'))) {
    const done = result.lines.find((x) => x.text.startsWith(`kubernetes_manifest.${m.resource}: Destruction complete`));
    // a manifest the garbage collector removed first is reported "already deleted" (warning) and completes too
    expect({ manifest: m.resource, doneBeforeCredential: done !== undefined && done.atMs <= credentialStart }).toEqual({ manifest: m.resource, doneBeforeCredential: true });
  }
  notes.push(`destroy order: Cluster gone at ${(clusterGone / 1000).toFixed(1)}s (finalizer released at ${(releasedAt / 1000).toFixed(1)}s), credential deletion started at ${(credentialStart / 1000).toFixed(1)}s`);

  return cleanupLines;
}

/** Nothing left: Kubernetes, OpenStack, state; the cluster's volume deleted, the other cluster's kept. */
async function expectNothingLeft(c: WorkloadSuiteContext, run: DestroyRun, cleanupLines: string[]): Promise<void> {
  const { project, client, openstack, namespace, namePrefix } = c;
  const { manifests, volumes, csiVolumes } = run;
  // nothing left: Kubernetes, OpenStack, state
  const nsAfter = await client.get(`/api/v1/namespaces/${namespace}`);
  expect(nsAfter.kind === 'response' ? nsAfter.status : nsAfter.reason).toBe(404);
  for (const m of manifests) expect(await getObject(client, m)).toBeUndefined();
  expect(await cloudResources(openstack, namePrefix)).toEqual({ creds: [], fips: [], groups: [] });
  expect(await project.stateList()).toEqual([]);
  if (volumes && csiVolumes) {
    expect(await volumes.volume(csiVolumes.mine)).toBeUndefined();
    expect((await volumes.volume(csiVolumes.other))?.status).toBe('available');
    await volumes.call('DELETE', 'volume', `/volumes/${csiVolumes.other}`, undefined, [202, 404]);
    expect(cleanupLines.join('\n')).toMatch(/cleanup: volumes: deleting 1:/);
  }}
