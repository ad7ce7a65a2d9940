/**
 * Saved plans between the plan and apply jobs: encrypted to a public key whose private half only
 * the apply job holds (scripts/pipeline/lib.sh seal_plan / unseal_plan, real gpg).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const HAS_GPG = spawnSync('gpg', ['--version']).status === 0;

/** A fresh key pair without passphrase, armored: [public, private]. */
function keyPair(dir: string, uid: string): [string, string] {
  const home = fs.mkdtempSync(path.join(dir, 'gnupg-'));
  const gpg = (...args: string[]) => spawnSync('gpg', ['--homedir', home, '--batch', '--quiet', ...args], { encoding: 'utf8' });
  const made = gpg('--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'cert', 'never');
  expect(made.status).toBe(0);
  const fpr = gpg('--list-keys', '--with-colons', uid).stdout.split('\n').find((l) => l.startsWith('fpr:'))!.split(':')[9];
  expect(gpg('--passphrase', '', '--quick-add-key', fpr, 'cv25519', 'encr', 'never').status).toBe(0);
  return [gpg('--armor', '--export', uid).stdout, gpg('--armor', '--pinentry-mode', 'loopback', '--passphrase', '', '--export-secret-keys', uid).stdout];
}

(HAS_GPG ? describe : describe.skip)('scripts/pipeline/lib.sh: plans encrypted to the apply job\'s public key', () => {
  let dir: string;
  let pub: string;
  let priv: string;
  let otherPriv: string;
  const PLAN = Buffer.from('PK\u0003\u0004 a saved plan with "admin_key": "-----BEGIN PRIVATE KEY-----"');
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-seal-'));
    [pub, priv] = keyPair(dir, 'apply <apply@pipeline.test>');
    [, otherPriv] = keyPair(dir, 'other <other@pipeline.test>');
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const stage = (fn: 'seal_plan' | 'unseal_plan' | 'plan_key_required', stackDir: string, env: Record<string, string>) =>
    spawnSync('bash', ['-c', `. scripts/pipeline/lib.sh && ${fn} "$1"`, fn, stackDir], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, ...env } });

  function sealed(): string {
    const stack = fs.mkdtempSync(path.join(dir, 'stack-'));
    fs.writeFileSync(path.join(stack, 'pipeline.tfplan'), PLAN);
    const r = stage('seal_plan', stack, { PIPELINE_PLAN_RECIPIENT: pub });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return stack;
  }

  test('the plan stage, holding only the public key, leaves no clear plan and cannot read what it wrote', () => {
    const stack = sealed();
    expect(fs.readdirSync(stack)).toEqual(['pipeline.tfplan.gpg']);
    expect(fs.readFileSync(path.join(stack, 'pipeline.tfplan.gpg')).includes(Buffer.from('PRIVATE KEY'))).toBe(false);
    const r = stage('unseal_plan', stack, { PIPELINE_PLAN_RECIPIENT: pub });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('set PIPELINE_PLAN_PRIVATE_KEY (the private half of the plan stage\'s PIPELINE_PLAN_RECIPIENT)');
    expect(fs.existsSync(path.join(stack, 'pipeline.tfplan'))).toBe(false);
  });

  test('the apply stage with the private half gets the plan back byte for byte, readable by its owner only', () => {
    const stack = sealed();
    const r = stage('unseal_plan', stack, { PIPELINE_PLAN_PRIVATE_KEY: priv });
    expect(r.stderr).toBe('');
    expect(fs.readFileSync(path.join(stack, 'pipeline.tfplan'))).toEqual(PLAN);
    expect(fs.statSync(path.join(stack, 'pipeline.tfplan')).mode & 0o077).toBe(0);
  });

  test('another private key is refused with a message naming both variables', () => {
    const r = stage('unseal_plan', sealed(), { PIPELINE_PLAN_PRIVATE_KEY: otherPriv });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PIPELINE_PLAN_PRIVATE_KEY is not the private half of the plan stage\'s PIPELINE_PLAN_RECIPIENT, or the artifact was modified');
  });

  test('in CI a plan job without a key is refused; the public key alone is enough', () => {
    expect(stage('plan_key_required', dir, { GITLAB_CI: 'true' }).stderr).toContain('PIPELINE_PLAN_RECIPIENT is not set');
    expect(stage('plan_key_required', dir, { GITHUB_ACTIONS: 'true', PIPELINE_PLAN_RECIPIENT: pub }).status).toBe(0);
  });
});
