/** `state`: what it refuses before talking to any store or cloud. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../../lib/app/environments-app';
import { memoryIo } from '../../../lib/runtime/cli/io';
import { runCli } from '../../../lib/runtime/cli/main';
import { findS3Credentials } from '../../../lib/runtime/state/s3-client';

const LOCAL = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'environments', 'local.yaml'), 'utf8');

function project(withBackend: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-cli-'));
  fs.mkdirSync(path.join(dir, 'environments'));
  const backend = withBackend ? 'stateBackend:\n  endpoint: http://127.0.0.1:9\n  bucket: capi-state\n' : '';
  fs.writeFileSync(path.join(dir, 'environments', 'local.yaml'), `${LOCAL}\n${backend}`);
  return dir;
}

async function run(dir: string, argv: string[], env: NodeJS.ProcessEnv = { HOME: dir }) {
  const io = memoryIo(dir, env);
  const code = await runCli(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('capi-openstack state', () => {
  test('an unknown action is a usage error naming the actions', async () => {
    const r = await run(project(true), ['state', 'push', 'local']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('expected one of credentials, migrate, status, unlock, probe, found "push"');
  });

  test('unlock needs the stack; the other actions take none', async () => {
    expect((await run(project(true), ['state', 'unlock', 'local'])).err).toContain('name the stack');
    expect((await run(project(true), ['state', 'status', 'local', 'local-management'])).code).toBe(2);
  });

  test('an environment on local state is told how to share it', async () => {
    const r = await run(project(false), ['state', 'status', 'local']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('environment local keeps local state: add stateBackend (endpoint, bucket)');
  });

  test('without S3 credentials the message says where they come from', async () => {
    const r = await run(project(true), ['state', 'migrate', 'local']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('no S3 credentials for http://127.0.0.1:9: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on OpenStack: eval "$(capi-openstack state credentials local)")');
  });

  test('stacks recorded by an earlier synth: the store the environment file names now (stateBackend added, not synthesized again)', async () => {
    const dir = project(false);
    const previous = process.cwd();
    process.chdir(dir);
    try {
      new EnvironmentsApp({ environmentsDir: path.join(dir, 'environments'), only: ['local'], appConfig: { outdir: path.join(dir, 'cdktf.out') }, onWarning: () => undefined }).synth();
    } finally {
      process.chdir(previous);
    }
    fs.appendFileSync(path.join(dir, 'environments', 'local.yaml'), 'stateBackend:\n  endpoint: http://127.0.0.1:9\n  bucket: capi-state\n');
    const r = await run(dir, ['state', 'status', 'local']);
    expect([r.code, r.err]).toEqual([1, 'error: no S3 credentials for http://127.0.0.1:9: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (on OpenStack: eval "$(capi-openstack state credentials local)")']);
    const unknown = await run(dir, ['state', 'unlock', 'local', 'local-web'], { HOME: dir, AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
    expect([unknown.code, unknown.err]).toEqual([2, 'error: environment local has no stack local-web in the app synthesized at cdktf.out (stacks: local-management, local-e2e)']);
  });

  test('credentials: environment variables first, then the profile of the shared credentials file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aws-'));
    const file = path.join(dir, 'credentials');
    fs.writeFileSync(file, '[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n[team]\naws_access_key_id = T\naws_secret_access_key = TS\n');
    expect(findS3Credentials({ AWS_ACCESS_KEY_ID: 'E', AWS_SECRET_ACCESS_KEY: 'ES', AWS_SHARED_CREDENTIALS_FILE: file })?.credentials).toEqual({ accessKeyId: 'E', secretAccessKey: 'ES', sessionToken: undefined });
    expect(findS3Credentials({ AWS_SHARED_CREDENTIALS_FILE: file })?.credentials.accessKeyId).toBe('D');
    expect(findS3Credentials({ AWS_SHARED_CREDENTIALS_FILE: file, AWS_PROFILE: 'team' })).toEqual({ credentials: { accessKeyId: 'T', secretAccessKey: 'TS', sessionToken: undefined }, source: `profile team of ${file}` });
    expect(findS3Credentials({ AWS_SHARED_CREDENTIALS_FILE: file, AWS_PROFILE: 'none' })).toBeUndefined();
    expect(findS3Credentials({ HOME: dir })).toBeUndefined();
  });
});
