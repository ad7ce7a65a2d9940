import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const GO = ['/usr/local/go/bin/go', ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'go'))].find((p) => fs.existsSync(p));
const CHECKED = ['GONOSUMDB', 'GOPRIVATE', 'GOINSECURE', 'GONOPROXY', 'GOSUMDB'];

/**
 * `go env -w` writes a user configuration file that go reads whenever a variable is unset: the
 * project's Go builds must not inherit a checksum-database exemption from it.
 */
(GO ? describe : describe.skip)('Go builds ignore `go env -w` exemptions from the checksum database', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'go-env-'));
    env = { PATH: `${path.dirname(GO!)}:/usr/bin:/bin`, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GOTOOLCHAIN: 'local' };
    const w = spawnSync(GO!, ['env', '-w', 'GONOSUMDB=*', 'GOPRIVATE=*', 'GOINSECURE=*', 'GONOPROXY=*', 'GOSUMDB=off'], { env, encoding: 'utf8' });
    expect(w.stderr).toBe('');
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  const goEnvAfter = (setup: string) => {
    const r = spawnSync('bash', ['-c', `${setup} && go env ${CHECKED.join(' ')}`], { env, encoding: 'utf8', cwd: ROOT });
    expect(r.stderr).toBe('');
    return r.stdout.replace(/\n$/, '').split('\n');
  };

  test('the exemptions are in effect for a plain go (the test plants them)', () => {
    expect(goEnvAfter('true')).toEqual(['*', '*', '*', '*', 'off']);
  });

  test('scripts/toolchain (provider builds): none of them applies', () => {
    expect(goEnvAfter('. scripts/toolchain/lib.sh && toolchain_go_env')).toEqual(['', '', '', '', 'sum.golang.org']);
    expect(fs.readFileSync(path.join(ROOT, 'scripts/toolchain/build.sh'), 'utf8')).toMatch(/^toolchain_go_env\b/m);
  });

  test('scripts/local-* (kube-apiserver, controllers, S3 builds): none of them applies', () => {
    expect(goEnvAfter('. scripts/local-kube/lib.sh')).toEqual(['', '', '', '', 'sum.golang.org']);
    for (const lib of ['local-capi', 'local-s3']) {
      expect(fs.readFileSync(path.join(ROOT, 'scripts', lib, 'lib.sh'), 'utf8')).toContain('../local-kube/lib.sh');
    }
  });
});
