/**
 * cleanupClusterLeftovers against a fake OpenStack API served on 127.0.0.1: which resources it
 * deletes (and keeps), in what order, with which requests; pagination, project scoping, catalog
 * lookup, token renewal, waiting for slow deletes and attached volumes, errors and the deadline.
 */
import { CleanupError, cleanupClusterLeftovers } from '../../../lib/runtime/cleanup/leftovers';
import { OpenStackApiError } from '../../../lib/runtime/openstack-session';
import { makeTestPki, TestPki } from '../readiness/support/pki';
import { CREDENTIAL_ID, CREDENTIAL_NAME, CREDENTIAL_SECRET, FakeOpenStack, FakeOptions, OTHER_PROJECT, PROJECT, USER } from './support/fake-openstack';
import { CLUSTER, CSI, options, lb, fip, vol, populate, ids } from './support/leftovers-fixtures';

let fake: FakeOpenStack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeOptions = {}): Promise<FakeOpenStack> {
  fake = await FakeOpenStack.start(options);
  return fake;
}

describe('cleanupClusterLeftovers', () => {
  test('deletes exactly the cluster\'s load balancers, floating IPs, security groups, snapshots and volumes', async () => {
    const f = await start({ adminView: true });
    populate(f);
    const lines: string[] = [];
    const result = await cleanupClusterLeftovers(options(f, lines));

    expect(ids(f.loadbalancers)).toEqual(['lb3', 'lb4', 'lb5', 'lb6', 'lb7', 'lb8']);
    expect(ids(f.floatingips)).toEqual(['f3', 'f4', 'f5', 'f6']);
    expect(ids(f.securityGroups)).toEqual(['sg2', 'sg3']);
    expect(ids(f.snapshots)).toEqual(['s2']);
    expect(ids(f.volumes)).toEqual(['v3', 'v4', 'v6', 'v7']);
    expect(result.deleted.map((d) => `${d.kind} ${d.id}`).sort()).toEqual(
      ['floating IP f1', 'floating IP f2', 'load balancer lb1', 'load balancer lb2', 'security group sg1', 'volume snapshot s1', 'volume v1', 'volume v2', 'volume v5'].sort(),
    );
    expect(result.kept.map((k) => `${k.kind} ${k.id}`).sort()).toEqual(['floating IP f3', 'load balancer lb6', 'load balancer lb8']);
    expect(result.kept.find((k) => k.id === 'lb6')!.reason).toContain('kube_service_capi-prod-api_default_api');
    expect(result.kept.find((k) => k.id === 'lb8')!.reason).toContain('capi-prod-api');
    expect(result.projectId).toBe(PROJECT);

    // Load balancers go with cascade, first; snapshots before volumes; nothing else is touched.
    const mutations = f.mutations();
    expect(mutations).toEqual([
      '/lb/v2/lbaas/loadbalancers/lb1?cascade=true',
      '/lb/v2/lbaas/loadbalancers/lb2?cascade=true',
      '/net/v2.0/floatingips/f1',
      '/net/v2.0/floatingips/f2',
      '/net/v2.0/security-groups/sg1',
      `/vol/v3/${PROJECT}/snapshots/s1`,
      `/vol/v3/${PROJECT}/volumes/v1`,
      `/vol/v3/${PROJECT}/volumes/v2`,
      `/vol/v3/${PROJECT}/volumes/v5`,
    ].map((p) => `DELETE ${p}`));
    // Listings are asked for the credential's project only, and follow every page.
    const listings = f.requests.filter((r) => r.method === 'GET' && /\/(loadbalancers|floatingips|security-groups)\?/.test(r.path));
    expect(listings.every((r) => r.path.includes(`project_id=${PROJECT}`))).toBe(true);
    expect(f.requests.some((r) => r.path.includes('/lb/v2/lbaas/loadbalancers?') && r.path.includes('marker=lb6'))).toBe(true);
    // The public endpoint in RegionOne, never the internal one or another region's.
    expect(f.requests.some((r) => r.path.startsWith('/wrong-'))).toBe(false);
    // Every API call after the login carries the token.
    expect(f.requests.filter((r) => !r.path.includes('/auth/tokens')).every((r) => r.token === 'tok-1')).toBe(true);

    expect(lines[0]).toContain(`cluster "${CLUSTER}", project ${PROJECT} as application credential ac-1, interface public, region RegionOne`);
    expect(lines).toContainEqual(expect.stringContaining('load balancers: deleting 2: lb1'));
    expect(lines).toContainEqual(expect.stringMatching(/floating IP f3 .* kept: still associated with port port-of-a-server/));
    expect(lines[lines.length - 1]).toMatch(/^cleanup: done in \d+ s: deleted 2 load balancer\(s\), 2 floating IP\(s\), 1 security group\(s\), 1 snapshot\(s\), 3 volume\(s\); kept 3/);
    expect(lines.join('\n')).not.toContain(CREDENTIAL_SECRET);
  });

  test('a project without Octavia and Cinder: those parts are skipped with a line saying so', async () => {
    const f = await start({ services: ['network'] });
    f.floatingips.push(fip('f2', `Floating IP for Kubernetes external service default/old from cluster ${CLUSTER}`, null));
    const lines: string[] = [];
    const result = await cleanupClusterLeftovers(options(f, lines));
    expect(result.skippedServices).toEqual(['load-balancer', 'block-storage']);
    expect(lines).toContainEqual('cleanup: load balancers: no load-balancer endpoint (public, RegionOne) in the catalog: skipped');
    expect(lines).toContainEqual('cleanup: volumes and snapshots: no block-storage / volumev3 endpoint (public, RegionOne) in the catalog: skipped');
    expect(f.floatingips).toHaveLength(0);
  });

  test('the volumev3 catalog type works as well as block-storage', async () => {
    const f = await start({ services: ['network', 'volumev3'] });
    f.volumes.push(vol('v1', { [CSI]: CLUSTER }));
    await cleanupClusterLeftovers(options(f, []));
    expect(f.volumes).toHaveLength(0);
  });

  test('a wrong secret: Keystone\'s 401 in one message that names the credential, never the secret', async () => {
    const f = await start();
    const run = cleanupClusterLeftovers(options(f, [], { auth: { type: 'application_credential', id: CREDENTIAL_ID, secret: 'wrong-secret-9876' } }));
    await expect(run).rejects.toThrow(OpenStackApiError);
    await expect(run).rejects.toThrow(/Keystone refused application credential ac-1: POST http:\/\/127\.0\.0\.1:\d+\/identity\/v3\/auth\/tokens: HTTP 401 \(unknown, expired or a wrong secret\)/);
    await run.catch((e: Error) => expect(e.message).not.toContain('wrong-secret-9876'));
    expect(f.requests[0].body.auth).toEqual({ identity: { methods: ['application_credential'], application_credential: { id: CREDENTIAL_ID, secret: 'wrong-secret-9876' } } });
  });

  test('password login with a project scope (a clouds.yaml user), and an application credential by name', async () => {
    const f = await start();
    f.volumes.push(vol('v1', { [CSI]: CLUSTER }));
    const lines: string[] = [];
    await cleanupClusterLeftovers(options(f, lines, { auth: { type: 'password', user: { name: USER.name }, password: USER.password, project: { name: USER.project } } }));
    expect(f.requests[0].body.auth).toEqual({
      identity: { methods: ['password'], password: { user: { name: 'operator', domain: { name: 'Default' }, password: USER.password } } },
      scope: { project: { name: 'proj', domain: { name: 'Default' } } },
    });
    expect(lines[0]).toContain(`project ${PROJECT} as user operator (domain Default), project proj (domain Default)`);
    expect(lines.join('\n')).not.toContain(USER.password);
    expect(f.volumes).toHaveLength(0);

    await expect(
      cleanupClusterLeftovers(options(f, [], { auth: { type: 'password', user: { name: USER.name }, password: 'nope-nope', project: { name: USER.project } } })),
    ).rejects.toThrow(/Keystone refused user operator \(domain Default\), project proj \(domain Default\): .*HTTP 401 \(wrong user, password or project\)/);
    await cleanupClusterLeftovers(options(f, [], { auth: { type: 'application_credential', name: CREDENTIAL_NAME, user: { id: USER.id }, secret: CREDENTIAL_SECRET } }));
  });

  test('an expired token: logs in again once and carries on', async () => {
    const f = await start();
    populate(f);
    let expired = false;
    f.onRequest = (r) => {
      if (!expired && r.path.startsWith('/net/v2.0/floatingips?')) {
        expired = true;
        f.expireTokens();
      }
    };
    await cleanupClusterLeftovers(options(f, []));
    expect(f.requests.filter((r) => r.path.includes('/auth/tokens'))).toHaveLength(2);
    expect(ids(f.volumes)).toEqual(['v3', 'v4', 'v6', 'v7']);
  });

  test('waits for slow deletes, busy load balancers and attached volumes', async () => {
    const f = await start();
    f.deletePolls = 3;
    f.loadbalancers.push(lb('lb1', `kube_service_${CLUSTER}_default_web`, { provisioning_status: 'PENDING_UPDATE' }));
    f.volumes.push(vol('v1', { [CSI]: CLUSTER }, { status: 'in-use', attachments: [{ server_id: 'srv-1' }] }));
    let gets = 0;
    let volumeGets = 0;
    f.onRequest = (r) => {
      if (r.method !== 'GET') return;
      gets += 1;
      if (gets === 6) f.loadbalancers[0].provisioning_status = 'ACTIVE';
      if (r.path.endsWith('/volumes/v1') && ++volumeGets === 4) Object.assign(f.volumes[0], { status: 'available', attachments: [] });
    };
    await cleanupClusterLeftovers(options(f, []));
    expect(f.loadbalancers).toHaveLength(0);
    expect(f.volumes).toHaveLength(0);
    // no DELETE while the load balancer was busy or the volume attached
    expect(f.mutations()).toEqual(['DELETE /lb/v2/lbaas/loadbalancers/lb1?cascade=true', `DELETE /vol/v3/${PROJECT}/volumes/v1`]);
  });

  test('a server error on delete is retried', async () => {
    const f = await start();
    f.loadbalancers.push(lb('lb1', `kube_service_${CLUSTER}_default_web`));
    f.inject('DELETE', /loadbalancers\/lb1$/, 503, 2);
    await cleanupClusterLeftovers(options(f, []));
    expect(f.loadbalancers).toHaveLength(0);
    expect(f.mutations().filter((m) => m.includes('lb1'))).toHaveLength(3);
  });

  test('a refused delete fails the run with one line, after the rest is done', async () => {
    const f = await start();
    f.securityGroups.push({ id: 'sg1', name: 'lb-sg', description: `Security Group for default/web Service LoadBalancer in cluster ${CLUSTER}`, project_id: PROJECT });
    f.volumes.push(vol('v1', { [CSI]: CLUSTER }));
    f.inject('DELETE', /security-groups\/sg1$/, 403);
    const run = cleanupClusterLeftovers(options(f, []));
    await expect(run).rejects.toThrow(CleanupError);
    await run.catch((e: Error) => {
      expect(e.message).toMatch(/^1 of the cluster's resources could not be deleted within \d+ s: security group sg1 \(lb-sg\) DELETE http:\/\/127\.0\.0\.1:\d+\/net\/v2\.0\/security-groups\/sg1: HTTP 403/);
      expect(e.message).not.toContain('\n');
    });
    expect(f.volumes).toHaveLength(0);
  });

  test('the deadline: names what is left and why', async () => {
    const f = await start();
    f.volumes.push(vol('v1', { [CSI]: CLUSTER }, { status: 'in-use', attachments: [{ server_id: 'srv-1' }] }));
    const started = Date.now();
    const run = cleanupClusterLeftovers(options(f, [], { timeoutMs: 400, pollIntervalMs: 50 }));
    await expect(run).rejects.toThrow(/volume v1 \(pvc-v1, 1 GiB\) still in-use \(attached to server srv-1\) when the time ran out/);
    expect(Date.now() - started).toBeLessThan(60_000); // a 0.4 s deadline; without one the polls go on until the test's time limit (jest.config.js)
    expect(f.mutations()).toEqual([]);
  });

  test('a volume with a snapshot Cinder CSI did not make for the cluster is reported, not forced', async () => {
    const f = await start();
    f.volumes.push(vol('v1', { [CSI]: CLUSTER }));
    f.snapshots.push({ id: 'manual', name: 'by-hand', volume_id: 'v1', status: 'available', metadata: {} });
    await expect(cleanupClusterLeftovers(options(f, []))).rejects.toThrow(/volume v1 \(pvc-v1, 1 GiB\) has snapshots Cinder CSI did not make for this cluster \(manual\)/);
    expect(f.snapshots).toHaveLength(1);
  });

  test('waits until no server of the project is on the machine network before deleting anything', async () => {
    const f = await start();
    populate(f);
    const net = 'k8s-clusterapi-cluster-capi-prod-web-web';
    f.networks.push({ id: 'n1', name: net, project_id: PROJECT }, { id: 'n2', name: `${net}-2`, project_id: PROJECT });
    f.ports.push(
      { id: 'p1', network_id: 'n1', device_owner: 'compute:nova', device_id: 'srv-1', project_id: PROJECT },
      { id: 'p2', network_id: 'n1', device_owner: 'compute:nova', device_id: 'amphora-1', project_id: OTHER_PROJECT }, // Octavia's
      { id: 'p3', network_id: 'n1', device_owner: 'network:router_interface', device_id: 'r1', project_id: PROJECT },
      { id: 'p4', network_id: 'n2', device_owner: 'compute:nova', device_id: 'srv-other', project_id: PROJECT },
    );
    let portLooks = 0;
    f.onRequest = (r) => {
      if (r.path.startsWith('/net/v2.0/ports?') && ++portLooks === 3) f.ports.splice(0, 1); // CAPI deleted the server
    };
    const lines: string[] = [];
    await cleanupClusterLeftovers(options(f, lines, { machineNetworkName: net }));
    const firstDelete = f.requests.findIndex((r) => r.method === 'DELETE');
    const lastPortLook = f.requests.map((r) => r.path.startsWith('/net/v2.0/ports?')).lastIndexOf(true);
    expect(portLooks).toBe(3);
    expect(lastPortLook).toBeLessThan(firstDelete);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^cleanup: network ${net}: no server left`)));
    expect(ids(f.volumes)).toEqual(['v3', 'v4', 'v6', 'v7']);
  });

  test('a machine network that is gone does not hold anything up; servers that stay fail the run before any delete', async () => {
    const f = await start();
    populate(f);
    const lines: string[] = [];
    await cleanupClusterLeftovers(options(f, lines, { machineNetworkName: 'k8s-clusterapi-cluster-gone' }));
    expect(lines).toContainEqual('cleanup: network k8s-clusterapi-cluster-gone does not exist (any more): no server of the cluster is left');

    const g = await FakeOpenStack.start();
    try {
      populate(g);
      g.networks.push({ id: 'n1', name: 'net', project_id: PROJECT });
      g.ports.push({ id: 'p1', network_id: 'n1', device_owner: 'compute:az1', device_id: 'srv-1', project_id: PROJECT });
      await expect(cleanupClusterLeftovers(options(g, [], { machineNetworkName: 'net', timeoutMs: 300, pollIntervalMs: 50 }))).rejects.toThrow(
        /the cluster's servers are still on network net after \d+ s \(srv-1\): CAPI has not deleted the machines yet; nothing was deleted/,
      );
      expect(g.mutations()).toEqual([]);
    } finally {
      await g.close();
    }
  });

  test('dry run: lists, deletes nothing', async () => {
    const f = await start();
    populate(f);
    const lines: string[] = [];
    const result = await cleanupClusterLeftovers(options(f, lines, { dryRun: true }));
    expect(f.mutations()).toEqual([]);
    expect(result.deleted.map((d) => d.id).sort()).toEqual(['f1', 'f2', 'lb1', 'lb2', 's1', 'sg1', 'v1', 'v2', 'v5']);
    expect(lines[lines.length - 1]).toMatch(/^cleanup: dry run done in \d+ s: would delete 2 load balancer/);
  });

  test('volume deletion turned off: volumes and snapshots stay', async () => {
    const f = await start();
    populate(f);
    await cleanupClusterLeftovers(options(f, [], { deleteVolumes: false }));
    expect(f.volumes).toHaveLength(7);
    expect(f.snapshots).toHaveLength(2);
    expect(f.loadbalancers.find((l) => l.id === 'lb1')).toBeUndefined();
  });

  test('Cinder CSI under another name than OCCM', async () => {
    const f = await start();
    populate(f);
    await cleanupClusterLeftovers(options(f, [], { csiClusterName: `${CLUSTER}-2` }));
    expect(ids(f.volumes)).toEqual(['v1', 'v2', 'v4', 'v5', 'v6', 'v7']);
    expect(ids(f.snapshots)).toEqual(['s1']);
    expect(f.loadbalancers.find((l) => l.id === 'lb1')).toBeUndefined();
  });

  describe('HTTPS with a private CA', () => {
    let pki: TestPki;
    beforeAll(() => {
      pki = makeTestPki();
    });
    afterAll(() => pki.cleanup());

    test('trusted through caPem; refused without it', async () => {
      const f = await start({ tls: { keyPem: pki.server.keyPem, certPem: pki.server.certPem } });
      f.volumes.push(vol('v1', { [CSI]: CLUSTER }));
      await expect(cleanupClusterLeftovers(options(f, []))).rejects.toThrow(/Keystone does not answer: POST https:\/\/127\.0\.0\.1:\d+\/identity\/v3\/auth\/tokens: .*(certificate|self.signed)/i);
      await cleanupClusterLeftovers(options(f, [], { caPem: pki.ca.certPem }));
      expect(f.volumes).toHaveLength(0);
    });
  });
});
