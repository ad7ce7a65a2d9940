/**
 * Destructive commands touch only what their environment owns, against the REAL local cloud
 * (scripts/local-cloud with Cinder; with Octavia when it runs with LOCAL_CLOUD_OCTAVIA=1).
 *
 * Two environments of one prefix share a project: `acme` (clusters `demo`, `eu-web`) and
 * `acme-eu` (clusters `demo`, `web`). Every name of acme-eu starts with `<prefix>-acme-`, and
 * acme's cluster `eu-web` has the very name of acme-eu's cluster `web`. Their stacks' resources
 * exist with the names the stacks give them, recorded in local states; acme also has what a killed
 * deploy leaves (a second network, floating IP and boot volume in no state), and each cluster has
 * what OCCM and Cinder CSI leave (a load balancer with its floating IP, a volume).
 *
 * 1. `capi-openstack orphans acme --delete` deletes exactly acme's unrecorded resources; acme-eu's
 *    twin API floating IP is kept with why; every other resource survives (listing by id).
 * 2. Destroying acme: the compiled leftovers cleanup deletes acme `demo`'s load balancer, floating
 *    IP and volume, none of acme-eu `demo`'s, and for the twin name deletes nothing; after the
 *    stacks' resources are gone, `orphans acme` finds nothing, and all of acme-eu survives.
 *
 * Needs `npm run build` first (npm run test:e2e does it). Holds /tmp/capi-e2e.lock. Skipped (with
 * a message) when the local cloud is not running or has no Cinder, unless LOCAL_CLOUD_REQUIRED=1.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { CSI_KEY, LocalCloud } from './support/cleanup-cloud';
import { acquireE2eLock, E2eLock } from './support/e2e-lock';
import { probeLocalCloud, readPasswordCloud } from './support/local-cloud-probe';
import { CACHE_DIR, LOCAL_CLOUDS_YAML, REPO, runWithToolchain, tail } from './support/management-cloud';
import { Made, destroy, floatingIp, ids, managementResources, surviving, writeEnvironment, writeStack } from './support/ownership-world';

const REQUIRED = process.env.LOCAL_CLOUD_REQUIRED === '1';
const CLOUD = 'local-e2e';
const PREFIX = `e2eown${randomBytes(3).toString('hex')}`;
const APP = path.join(CACHE_DIR, 'e2e', 'orphans-ownership');
const CAPI = path.join(REPO, 'dist', 'bin', 'capi-openstack.js');
const CLEANUP = path.join(REPO, 'dist', 'bin', 'cleanup-cluster-leftovers.js');
const name = (env: string, cluster: string) => `${PREFIX}-${env}-${cluster}`;

const probe = probeLocalCloud(LOCAL_CLOUDS_YAML, CLOUD);
const runnable = probe.ok && probe.cinder;
if (!runnable && !REQUIRED) console.warn(`orphans-ownership e2e skipped: ${probe.why}. Start LOCAL_CLOUD_CINDER=1 scripts/local-cloud/start; LOCAL_CLOUD_REQUIRED=1 makes this a failure.`);
const suite = runnable || REQUIRED ? describe : describe.skip;

suite('two environments of one prefix in one project: each destroys only its own', () => {
  let lock: E2eLock | undefined;
  let cloud: LocalCloud;
  let octavia = false;
  /** acme's stacks (recorded in its states), acme-eu's, acme's unrecorded leftovers of a killed deploy. */
  const acme: Record<string, Made[]> = {};
  let acmeEu: Made[] = [];
  let interrupted: Made[] = [];
  const leftovers: Record<string, Made[]> = {};
  const run = (argv: string[], logName: string, env: Record<string, string> = {}) =>
    runWithToolchain(['node', ...argv], { cwd: APP, cloudsYaml: LOCAL_CLOUDS_YAML, logName, logDir: path.join(APP, 'logs'), env, timeoutSeconds: 300 });
  const orphans = (...extra: string[]) => run([CAPI, 'orphans', 'acme', ...extra], `orphans${extra.join('')}`);
  const cleanup = (cluster: string) =>
    run([CLEANUP], `cleanup-${cluster}`, { CAPI_CLEANUP_CLOUD: CLOUD, CAPI_CLEANUP_CLOUDS_FILE: LOCAL_CLOUDS_YAML, CAPI_CLEANUP_CLUSTER_NAME: cluster, CAPI_CLEANUP_TIMEOUT_MINUTES: '3', CAPI_CLEANUP_POLL_SECONDS: '1' });

  /** What OCCM and Cinder CSI leave for a cluster: a load balancer with its floating IP (with Octavia), a volume. */
  async function controllerLeftovers(cluster: string, vipNetwork: string): Promise<Made[]> {
    const made: Made[] = [{ kind: 'volume', id: await cloud.createVolume(`${PREFIX}-pvc-${cluster}`, { [CSI_KEY]: cluster }), name: cluster }];
    if (octavia) {
      const { lbId, fipId } = await cloud.occmLoadBalancer(cluster, 'web', vipNetwork);
      made.push({ kind: 'load balancer', id: lbId, name: cluster }, { kind: 'floating IP', id: fipId, name: cluster });
    }
    return made;
  }

  beforeAll(async () => {
    if (!runnable) throw new Error(`LOCAL_CLOUD_REQUIRED=1 but the local cloud is not usable (${probe.why})`);
    for (const file of [CAPI, CLEANUP]) if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
    lock = await acquireE2eLock({ holder: 'orphans-ownership e2e' });
    cloud = await LocalCloud.login(readPasswordCloud(LOCAL_CLOUDS_YAML, CLOUD));
    octavia = cloud.hasService('load-balancer');
    if (!octavia) console.warn('orphans-ownership e2e: no Octavia in the catalog (LOCAL_CLOUD_OCTAVIA=1): load balancers are left out');
    fs.rmSync(APP, { recursive: true, force: true });
    fs.mkdirSync(APP, { recursive: true });
    fs.writeFileSync(path.join(APP, 'cdktf.json'), `${JSON.stringify({ language: 'typescript', app: `node ${path.join(REPO, 'dist', 'main.js')}` })}\n`);
    writeEnvironment(APP, 'acme', PREFIX, ['demo', 'eu-web']);
    writeEnvironment(APP, 'acme-eu', PREFIX, ['demo', 'web']);

    acme.management = await managementResources(cloud, `${PREFIX}-acme`, '10.231.0.0/24');
    for (const c of ['demo', 'eu-web']) acme[c] = [{ kind: 'floating IP', id: await floatingIp(cloud, `${name('acme', c)} Kubernetes API`), name: c }];
    acmeEu = await managementResources(cloud, `${PREFIX}-acme-eu`, '10.232.0.0/24');
    for (const c of ['demo', 'web']) acmeEu.push({ kind: 'floating IP', id: await floatingIp(cloud, `${name('acme-eu', c)} Kubernetes API`), name: c });
    writeStack(APP, 'acme-management', acme.management);
    for (const c of ['demo', 'eu-web']) writeStack(APP, `acme-${c}`, acme[c]);
    for (const stack of ['acme-management', 'acme-demo', 'acme-eu-web']) {
      const result = await runWithToolchain(['terraform', 'init', '-input=false'], { cwd: path.join(APP, 'cdktf.out', 'stacks', stack), cloudsYaml: LOCAL_CLOUDS_YAML, logName: `init-${stack}`, logDir: path.join(APP, 'logs') });
      expect({ stack, code: result.code, tail: result.code === 0 ? '' : tail(result) }).toEqual({ stack, code: 0, tail: '' });
    }
    // what a deploy killed mid-apply leaves: created, never recorded
    interrupted = await managementResources(cloud, `${PREFIX}-acme`, '10.233.0.0/24');
    // the clusters' own network, where OCCM puts its load balancers' addresses
    const vip = (await cloud.call('POST', 'network', '/v2.0/networks', { network: { name: `${PREFIX}-vip` } })).body.network.id;
    await cloud.call('POST', 'network', '/v2.0/subnets', { subnet: { network_id: vip, name: `${PREFIX}-vip`, cidr: '10.234.0.0/24', ip_version: 4 } });
    for (const cluster of [name('acme', 'demo'), name('acme-eu', 'demo'), name('acme-eu', 'web')]) leftovers[cluster] = await controllerLeftovers(cluster, vip);
  }, 10 * 60 * 1000);

  afterAll(async () => {
    try {
      if (cloud) {
        // the stacks' named ports first: the sweep deletes networks, which refuse while a port is on them
        const ports = (await cloud.call('GET', 'network', `/v2.0/ports?project_id=${cloud.projectId}`)).body.ports as { id: string; name: string; device_owner: string }[];
        for (const p of ports.filter((x) => x.name.startsWith(PREFIX) && x.device_owner === '')) await cloud.call('DELETE', 'network', `/v2.0/ports/${p.id}`, undefined, [204, 404]);
        const problems = await cloud.sweep(PREFIX);
        const groups = (await cloud.call('GET', 'network', `/v2.0/security-groups?project_id=${cloud.projectId}`)).body.security_groups as { id: string; name: string }[];
        for (const g of groups.filter((x) => x.name.startsWith(PREFIX))) await cloud.call('DELETE', 'network', `/v2.0/security-groups/${g.id}`, undefined, [204, 404, 409]);
        if (problems.length > 0) console.warn(`orphans-ownership e2e: sweep problems: ${problems.join('; ')}`);
      }
    } finally {
      await lock?.release();
    }
  }, 10 * 60 * 1000);

  test('1. orphans --delete deletes acme\'s unrecorded resources only; acme-eu\'s twin API floating IP is kept with why', async () => {
    const listed = await orphans();
    for (const id of ids(interrupted)) expect(listed.output).toMatch(new RegExp(`orphan \\S+( \\S+)? ${id} `));
    const twin = acmeEu.find((m) => m.name === 'web')!.id;
    expect(listed.output).toContain(`kept floating IP ${twin} (${name('acme-eu', 'web')} Kubernetes API): prefix "${PREFIX}", environment "acme-eu", cluster "web" gives the same name`);
    for (const id of ids(acmeEu).filter((i) => i !== twin)) expect(listed.output).not.toContain(id);
    expect(listed.code).toBe(3);

    const deleted = await orphans('--delete');
    expect({ code: deleted.code, tail: deleted.code === 3 ? '' : tail(deleted) }).toEqual({ code: 3, tail: '' });
    expect(await surviving(cloud, interrupted)).toEqual([]);
    const everythingElse = [...acmeEu, ...Object.values(acme).flat(), ...Object.values(leftovers).flat()];
    expect(await surviving(cloud, everythingElse)).toEqual(ids(everythingElse));
  }, 5 * 60 * 1000);

  test('2. destroying acme: its cleanup deletes what OCCM and Cinder CSI left for acme demo, nothing of acme-eu, nothing for a twin name', async () => {
    const own = await cleanup(name('acme', 'demo'));
    expect({ code: own.code, tail: own.code === 0 ? '' : tail(own) }).toEqual({ code: 0, tail: '' });
    expect(await surviving(cloud, leftovers[name('acme', 'demo')])).toEqual([]);
    const other = [...leftovers[name('acme-eu', 'demo')], ...leftovers[name('acme-eu', 'web')]];
    expect(await surviving(cloud, other)).toEqual(ids(other));

    // acme eu-web and acme-eu web are one name: two API floating IPs say so, and nothing is deleted
    const twin = await cleanup(name('acme', 'eu-web'));
    expect({ code: twin.code, tail: twin.code === 0 ? '' : tail(twin) }).toEqual({ code: 0, tail: '' });
    expect(twin.output).toContain(`NOTHING DELETED: 2 floating IPs are described "${name('acme', 'eu-web')} Kubernetes API"`);
    expect(await surviving(cloud, other)).toEqual(ids(other));

    // the stacks' destroy; then nothing of acme is left that orphans could find, and all of acme-eu is there
    for (const stack of Object.keys(acme)) {
      await destroy(cloud, acme[stack]);
      writeStack(APP, stack === 'management' ? 'acme-management' : `acme-${stack}`, []);
    }
    await cloud.waitFor('acme\'s boot volume deleted', async () => (await surviving(cloud, acme.management.filter((m) => m.kind === 'volume'))).length === 0);
    const after = await orphans('--delete');
    expect(after.output).toContain('no orphans: every resource with a name of environment acme is in a state of its stacks');
    expect(await surviving(cloud, Object.values(acme).flat())).toEqual([]);
    expect(await surviving(cloud, [...acmeEu, ...other])).toEqual(ids([...acmeEu, ...other]));
  }, 5 * 60 * 1000);
});
