/**
 * The plan stage's side-by-side path against real services: a drift check (PIPELINE_DRIFT=1) of an
 * environment with three workload clusters on a brought-your-own management cluster (the local
 * kube-apiserver) and the local OpenStack, planned two at a time and then one at a time. Nothing is
 * applied, so every stack drifts (exit 2); both runs must report the same stacks and counts, and the
 * stacks planned side by side must share the lock entries of the one initialized alone.
 *
 * Skipped (with a message) when the local cloud or the local kube-apiserver is not running, unless
 * LOCAL_CLOUD_REQUIRED=1 / LOCAL_KUBE_REQUIRED=1 (CI's e2e tier) make that a failure.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse, stringify } from 'yaml';
import { PipelineMeta, readMeta, ROOT, runPipeline } from './support/pipeline-run';
import { serviceGate } from './support/service-gate';

const CACHE = process.env.CAPI_OPENSTACK_CDKTF_CACHE ?? path.join(os.homedir(), '.cache', 'capi-openstack-cdktf');
const CLOUDS_YAML = process.env.OS_CLIENT_CONFIG_FILE ?? path.join(CACHE, 'local-cloud', 'clouds.yaml');
const KUBECONFIG = path.join(process.env.LOCAL_KUBE_STATE ?? path.join(CACHE, 'local-kube'), 'kubeconfig');
const { suite, requireRunning } = serviceGate('pipeline fleet e2e', ['local-cloud', 'local-kube']);

const CLUSTERS = ['c0', 'c1', 'c2'];
const STACKS = CLUSTERS.map((c) => `fleet-${c}`);

/** What a run found per stack, without the timings. */
const results = (meta: PipelineMeta) => meta.stacks.map((s) => ({ name: s.name, status: s.status, changes: s.changes })).sort((a, b) => a.name.localeCompare(b.name));

suite('scripts/pipeline/plan plans a fleet side by side (drift check, local cloud + local kube-apiserver)', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-pipeline-fleet-e2e-'));
  const envDir = path.join(work, 'environments');
  const env = (parallelism: number): NodeJS.ProcessEnv => ({
    ...process.env,
    ENVIRONMENT: 'fleet',
    ENVIRONMENTS_DIR: envDir,
    PIPELINE_DIR: path.join(work, `pipeline-${parallelism}`),
    PIPELINE_BACKEND: 'local',
    PIPELINE_BACKEND_CONFIG: JSON.stringify({ path: path.join(work, 'state', '{stack}.tfstate') }),
    PIPELINE_ALLOW_LOCAL_STATE: '1',
    PIPELINE_DRIFT: '1',
    PIPELINE_PARALLELISM: String(parallelism),
    OS_CLIENT_CONFIG_FILE: CLOUDS_YAML,
  });

  beforeAll(() => {
    requireRunning();
    const local = parse(fs.readFileSync(path.join(ROOT, 'environments', 'local.yaml'), 'utf8')) as Record<string, unknown>;
    const [cluster] = Object.values(local.clusters as Record<string, unknown>);
    // The clusters' management cluster is the local kube-apiserver: no management stack to plan.
    const doc: Record<string, unknown> = { ...local, prefix: 'pipefleet', existingManagementCluster: { kubeconfigFile: KUBECONFIG }, clusters: Object.fromEntries(CLUSTERS.map((c) => [c, cluster])) };
    delete doc.management;
    fs.mkdirSync(envDir, { recursive: true });
    fs.writeFileSync(path.join(envDir, 'fleet.yaml'), stringify(doc));
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  let sideBySide: PipelineMeta;
  test('two at a time: every cluster stack planned, each reported as drifted with its counts (exit 2)', async () => {
    const r = await runPipeline('plan', env(2));
    if (r.code !== 2) throw new Error(`expected exit 2 (drift), got ${r.code}:\n${r.output.slice(-6000)}`);
    expect(r.output).toContain('at most 2 at once');
    sideBySide = readMeta(path.join(work, 'pipeline-2'));
    expect(sideBySide.mode).toBe('drift');
    expect(results(sideBySide).map((s) => s.name)).toEqual(STACKS);
    for (const s of sideBySide.stacks) {
      expect(s.status).toBe('drift');
      expect(s.changes?.add).toBeGreaterThan(10);
      expect(s.seconds).toBeGreaterThan(0);
    }
    // The stacks planned beside each other got the lock entries the first init recorded.
    const providerBlocks = (stack: string) =>
      [...fs.readFileSync(path.join(work, 'pipeline-2', 'cdktf.out', 'stacks', stack, '.terraform.lock.hcl'), 'utf8').matchAll(/^provider "[^"]+" \{[\s\S]*?^\}$/gm)].map((m) => m[0]).sort();
    const first = providerBlocks(STACKS[0]);
    expect(first.join('\n')).toMatch(/provider "registry.terraform.io\/hashicorp\/kubernetes"/);
    for (const stack of STACKS.slice(1)) expect(providerBlocks(stack)).toEqual(first);
    for (const stack of STACKS) expect(r.output).toContain(`${stack}: DRIFT:`);
  }, 10 * 60 * 1000);

  test('one at a time finds exactly the same', async () => {
    const r = await runPipeline('plan', env(1));
    if (r.code !== 2) throw new Error(`expected exit 2 (drift), got ${r.code}:\n${r.output.slice(-6000)}`);
    expect(results(readMeta(path.join(work, 'pipeline-1')))).toEqual(results(sideBySide));
  }, 10 * 60 * 1000);
});
