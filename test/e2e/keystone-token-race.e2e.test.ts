/**
 * The local cloud's Keystone must check an application credential's roles against the token of the
 * request that creates it. Keystone 22's AuthContextMiddleware keeps the token it validated in an
 * attribute of its one instance, so with several uwsgi threads a request could run on another
 * request's token: the workload stack's credential (member + load-balancer_member) was refused for
 * an "unassigned role" while other users' requests were in flight.
 *
 * scripts/local-cloud/keystone-token-race starts a second Keystone from the configuration this
 * checkout writes (scripts/local-cloud/lib/config.sh), on the running cloud's database and keys,
 * and creates the lane user's credentials with both roles while the admin's token is validated
 * and role assignments empty Keystone's cache; every creation must succeed.
 *
 * @e2e-global keystone-port-5095 the second Keystone listens on 127.0.0.1:5095
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { LOCAL_CLOUDS_YAML } from './support/lane-paths';
import { serviceGate } from './support/service-gate';
import { ROOT } from './support/workload-process';

const gate = serviceGate('keystone token race e2e', ['local-cloud']);

gate.suite('keystone as the local cloud configures it', () => {
  beforeAll(() => gate.requireRunning());

  test('credentials with member + load-balancer_member are never checked against another request\'s token', () => {
    const r = spawnSync(path.join(ROOT, 'scripts', 'local-cloud', 'keystone-token-race'), ['30'], {
      encoding: 'utf8',
      timeout: 5 * 60_000,
      env: { ...process.env, OS_CLIENT_CONFIG_FILE: LOCAL_CLOUDS_YAML },
    });
    const out = `${r.stdout}${r.stderr}`;
    expect({ status: r.status, out }).toEqual({ status: 0, out: expect.stringMatching(/: [1-9]\d* credentials created, 0 refused/) });
  }, 6 * 60_000);
});
