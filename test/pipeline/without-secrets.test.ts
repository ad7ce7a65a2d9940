/**
 * Install and build steps (npm ci, npm run toolchain, npm run build) run through
 * scripts/pipeline/without-secrets: only an allowlist of the environment reaches them, so a job's
 * secrets (GitLab puts every variable of a job into every command's environment) do not.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'pipeline', 'without-secrets');

/** The environment a command started through the wrapper sees. */
function seen(env: Record<string, string>): { status: number | null; env: Record<string, string>; stderr: string } {
  const r = spawnSync(SCRIPT, [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.env))'], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
  return { status: r.status, env: r.status === 0 ? JSON.parse(r.stdout) : {}, stderr: r.stderr };
}

describe('scripts/pipeline/without-secrets', () => {
  const secrets = {
    OPENSTACK_CLOUDS_YAML: '/builds/infra.tmp/OPENSTACK_CLOUDS_YAML',
    PIPELINE_PLAN_PRIVATE_KEY: '-----BEGIN PGP PRIVATE KEY BLOCK-----',
    AWS_ACCESS_KEY_ID: 'AKIA',
    AWS_SECRET_ACCESS_KEY: 'secret',
    CI_JOB_TOKEN: 'glcbt-token',
    TF_HTTP_PASSWORD: 'token',
    CAPI_OPENSTACK_BACKUP_KEY: 'backup-key',
    GOOGLE_APPLICATION_CREDENTIALS: '/creds.json',
  };

  test("a job's secrets do not reach the command; what installs and builds need does", () => {
    const needed = {
      HOME: '/root',
      npm_config_cache: '/builds/infra/.npm',
      npm_config_registry: 'https://npm.example.com/',
      GOPROXY: 'https://proxy.golang.org',
      https_proxy: 'http://proxy:3128',
      CAPI_OPENSTACK_CDKTF_CACHE: '/builds/infra/.toolchain-cache',
      CI: 'true',
      GITLAB_CI: 'true',
    };
    const r = seen({ ...secrets, ...needed });
    expect(r.stderr).toBe('');
    for (const name of Object.keys(secrets)) expect([name, r.env[name]]).toEqual([name, undefined]);
    expect(r.env).toMatchObject(needed);
  });

  test('PIPELINE_INSTALL_ENV passes more names; a value that is no list of names is refused', () => {
    expect(seen({ ...secrets, PIPELINE_INSTALL_ENV: 'MIRROR_URL  NPM_TOKEN', MIRROR_URL: 'https://m', NPM_TOKEN: 't' }).env).toMatchObject({ MIRROR_URL: 'https://m', NPM_TOKEN: 't' });
    const bad = seen({ PIPELINE_INSTALL_ENV: 'OK $(id)' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('PIPELINE_INSTALL_ENV must list variable names separated by spaces, found "$(id)"');
  });
});
