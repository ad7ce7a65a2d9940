/**
 * GitLab-managed Terraform state is readable by every Developer of the project through the API,
 * and the management stack's state holds the CA key, the admin key and every cluster's credential:
 * scripts/pipeline/lib.sh refuses PIPELINE_BACKEND=gitlab unless the pipeline settings
 * acknowledge who can read it, naming the project.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');

const backend = (extra: Record<string, string>) =>
  spawnSync('bash', ['-c', '. scripts/pipeline/lib.sh && pipeline_backend_config && printf "%s\\n%s\\n" "$BACKEND_TYPE" "$BACKEND_CONFIG"'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent', PIPELINE_BACKEND: 'gitlab', CI_API_V4_URL: 'https://gitlab.example.com/api/v4', CI_PROJECT_ID: '42', CI_PROJECT_PATH: 'infra/clouds', ...extra },
  });

describe('scripts/pipeline/lib.sh: PIPELINE_BACKEND=gitlab', () => {
  test('is refused without the acknowledgement, saying who can read the state and what to use instead', () => {
    const r = backend({});
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('every member of infra/clouds with the Developer role or higher can read through the API');
    expect(r.stderr).toContain("the management cluster's CA key, its admin key and every cluster's cloud credential");
    expect(r.stderr).toContain('give the environment file a stateBackend');
    expect(r.stderr).toContain('set the CI/CD variable PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED=infra/clouds');
  });

  test('an acknowledgement that names another project (a copied setting) is refused, showing what was found', () => {
    const r = backend({ PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED: 'infra/other\n::x' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED=infra/clouds, found "infra/other?::x"');
  });

  test('with the project named, the GitLab state of each stack is used', () => {
    const r = backend({ PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED: 'infra/clouds' });
    expect(r.stderr).toBe('');
    const [type, config] = r.stdout.trim().split('\n');
    expect(type).toBe('http');
    expect(JSON.parse(config).address).toBe('https://gitlab.example.com/api/v4/projects/42/terraform/state/{stack}');
  });

  test('other backends need no acknowledgement', () => {
    const r = backend({ PIPELINE_BACKEND: 's3', PIPELINE_BACKEND_CONFIG: '{"bucket":"capi-state","key":"{stack}.tfstate"}' });
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('s3');
  });
});
