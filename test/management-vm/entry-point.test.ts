/**
 * The bootstrap's entry point (capi-bootstrap.sh) run for real with stand-in step scripts: order,
 * side-by-side stages, markers, time limits.
 */
import * as fs from 'fs';
import * as path from 'path';
import { renderLibSh } from '../../lib/management-vm/scripts/lib-sh';
import { renderMainSh } from '../../lib/management-vm/scripts/main-sh';
import { tempDir } from './helpers';
import { bash, writeScripts } from './run-scripts';

describe('capi-bootstrap.sh (entry point)', () => {
  function setup(steps: Parameters<typeof renderMainSh>[0], extra: Record<string, string>, dir = tempDir('bootstrap-main-')) {
    const scripts = path.join(dir, 'scripts');
    fs.mkdirSync(scripts);
    writeScripts(scripts, { 'lib.sh': renderLibSh(), 'capi-bootstrap.sh': renderMainSh(steps), ...extra });
    const env = {
      CAPI_BOOTSTRAP_SCRIPT_DIR: scripts,
      CAPI_BOOTSTRAP_STATE_DIR: path.join(dir, 'state'),
      CAPI_BOOTSTRAP_LOG_FILE: path.join(dir, 'bootstrap.log'),
      CAPI_BOOTSTRAP_PROXY_ENV: path.join(dir, 'proxy.env'),
    };
    return { dir, env, main: path.join(scripts, 'capi-bootstrap.sh') };
  }
  const ok = '#!/usr/bin/env bash\necho "step ran with $* proxy=${HTTPS_PROXY:-none} kubeconfig=$KUBECONFIG"\n';

  it('runs the steps in order, logs them and writes the done marker', async () => {
    const { env, main, dir } = setup(
      [
        { name: 'first', command: ['ok.sh', 'a'], timeoutSeconds: 10 },
        { name: 'second', command: ['ok.sh', 'b'], timeoutSeconds: 10 },
      ],
      { 'ok.sh': ok },
    );
    fs.writeFileSync(path.join(dir, 'proxy.env'), "HTTPS_PROXY='http://proxy.example.com:3128'\n");
    const r = await bash(main, [], env);
    expect(r.code).toBe(0);
    const log = fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8');
    expect(log).toMatch(/==> first[\s\S]*step ran with a proxy=http:\/\/proxy.example.com:3128 kubeconfig=\/etc\/capi-bootstrap\/kubeconfig[\s\S]*<== first done[\s\S]*==> second[\s\S]*step ran with b/);
    expect(log).toContain('bootstrap finished');
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'done'))).toBe(true);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'))).toBe(false);
  });

  it('stops at a failing step and records it in the error marker; a later success clears it', async () => {
    const dir = tempDir('bootstrap-main-');
    const { env, main } = setup(
      [
        { name: 'first', command: ['ok.sh'], timeoutSeconds: 10 },
        { name: 'broken', command: ['flaky.sh'], timeoutSeconds: 10 },
        { name: 'never', command: ['ok.sh', 'never'], timeoutSeconds: 10 },
      ],
      { 'ok.sh': ok, 'flaky.sh': `#!/usr/bin/env bash\n[[ -f ${dir}/fixed ]] || { echo "something broke" >&2; exit 3; }\n` },
      dir,
    );
    const r = await bash(main, [], env);
    expect(r.code).toBe(3);
    const marker = fs.readFileSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'), 'utf8');
    expect(marker).toMatch(/^step=broken\nexit_code=3\ntime=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'done'))).toBe(false);
    const log = fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8');
    expect(log).toContain('something broke');
    expect(log).toContain("FAILED in step 'broken' (exit code 3)");
    expect(log).not.toContain('step ran with never');

    fs.writeFileSync(path.join(dir, 'fixed'), '');
    expect((await bash(main, [], env)).code).toBe(0);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'))).toBe(false);
    expect(fs.existsSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'done'))).toBe(true);
  });

  it('runs the branches of a side-by-side stage at once, each step\'s lines labelled, and the next stage after all of them', async () => {
    const { env, main, dir } = setup(
      [
        { name: 'first', command: ['ok.sh', 'a'], timeoutSeconds: 10 },
        {
          sideBySide: [
            // waits for what the other branch writes: only finishes if both run at once
            [{ name: 'waits', command: ['await.sh', 'left'], timeoutSeconds: 20 }, { name: 'after-waits', command: ['ok.sh', 'c'], timeoutSeconds: 10 }],
            [{ name: 'writes', command: ['touch.sh', 'left'], timeoutSeconds: 10 }],
          ],
        },
        { name: 'last', command: ['await.sh', 'after-waits-ran'], timeoutSeconds: 1 },
      ],
      {
        'ok.sh': `#!/usr/bin/env bash\n. "$(dirname "$0")/lib.sh"\nlog "step ran with $*"\n[[ $* != c ]] || touch "$(dirname "$0")/after-waits-ran"\n`,
        'await.sh': '#!/usr/bin/env bash\nfor _ in $(seq 100); do [[ -f "$(dirname "$0")/$1" ]] && exit 0; sleep 0.1; done; exit 7\n',
        'touch.sh': '#!/usr/bin/env bash\nsleep 0.5; touch "$(dirname "$0")/$1"\n',
      },
    );
    const r = await bash(main, [], env);
    expect(r.code).toBe(0);
    const log = fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8');
    expect(log).toMatch(/\[capi-bootstrap\] \[first\] step ran with a\n/);
    expect(log).toMatch(/\[capi-bootstrap\] \[after-waits\] step ran with c\n/);
    for (const step of ['waits', 'writes', 'after-waits', 'last']) expect(log).toMatch(new RegExp(`<== ${step} done in \\d+s`));
    expect(log.indexOf('<== after-waits done')).toBeLessThan(log.indexOf('==> last'));
    expect(fs.existsSync(path.join(dir, 'state', 'done'))).toBe(true);
  });

  it('a failing branch fails the stage once every branch has ended: the marker names its step, nothing after the stage runs', async () => {
    const { env, main, dir } = setup(
      [
        {
          sideBySide: [
            [{ name: 'slow', command: ['slow-ok.sh'], timeoutSeconds: 10 }],
            [{ name: 'broken', command: ['fail.sh'], timeoutSeconds: 10 }, { name: 'never-in-branch', command: ['touch.sh', 'branch'], timeoutSeconds: 10 }],
          ],
        },
        { name: 'never', command: ['touch.sh', 'after'], timeoutSeconds: 10 },
      ],
      {
        'slow-ok.sh': '#!/usr/bin/env bash\nsleep 1; touch "$(dirname "$0")/slow-ran"\n',
        'fail.sh': '#!/usr/bin/env bash\necho "something broke" >&2; exit 5\n',
        'touch.sh': '#!/usr/bin/env bash\ntouch "$(dirname "$0")/$1"\n',
      },
    );
    const r = await bash(main, [], env);
    expect(r.code).toBe(5);
    const scripts = path.join(dir, 'scripts');
    expect(fs.existsSync(path.join(scripts, 'slow-ran'))).toBe(true);
    expect(fs.existsSync(path.join(scripts, 'branch'))).toBe(false);
    expect(fs.existsSync(path.join(scripts, 'after'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'state', 'error'), 'utf8')).toMatch(/^step=broken\nexit_code=5\n/);
    expect(fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8')).toContain("FAILED in step 'broken' (exit code 5)");
  });

  it('refuses a plan it could not run: duplicate step names, a side-by-side stage of one branch', () => {
    const s = { name: 'one', command: ['ok.sh'], timeoutSeconds: 1 };
    expect(() => renderMainSh([s, { sideBySide: [[{ ...s, name: 'two' }], [s]] }])).toThrow('bootstrap steps: step name "one" is used twice');
    expect(() => renderMainSh([{ sideBySide: [[s]] }])).toThrow('bootstrap steps: a side-by-side stage needs at least two branches of at least one step each (stage 1)');
  });

  it('enforces the time limit of a step', async () => {
    const { env, main } = setup([{ name: 'slow', command: ['slow.sh'], timeoutSeconds: 1 }], { 'slow.sh': '#!/usr/bin/env bash\nsleep 30\n' });
    const started = Date.now();
    const r = await bash(main, [], env);
    expect(Date.now() - started).toBeLessThan(25_000); // the step would sleep 30 s; room for a loaded machine
    expect(r.code).toBe(124);
    expect(fs.readFileSync(env.CAPI_BOOTSTRAP_LOG_FILE, 'utf8')).toContain("step 'slow' did not finish within 1s");
    expect(fs.readFileSync(path.join(env.CAPI_BOOTSTRAP_STATE_DIR, 'error'), 'utf8')).toContain('step=slow\nexit_code=124\n');
  });
});
