/**
 * Tier 2: every stack of every environment file, synthesized by the real `cdktf synth`, passes
 * `terraform init` (offline, from the provider mirror) and `terraform validate`.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdktf-validate-'));

function terraform(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync('terraform', args, { cwd, env, encoding: 'utf8' });
}

describe('terraform validate of every synthesized stack', () => {
  beforeAll(() => {
    if (!process.env.TF_CLI_CONFIG_FILE || !fs.existsSync(process.env.TF_CLI_CONFIG_FILE)) {
      throw new Error('TF_CLI_CONFIG_FILE is not set to the offline mirror config: run through `npm run test:e2e` (it sources scripts/toolchain/env.sh)');
    }
    execFileSync('npx', ['cdktf', 'synth', '--output', outdir], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, ENVIRONMENT: '' } });
  });
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  const envFiles = fs.readdirSync(path.join(ROOT, 'environments')).filter((f) => f.endsWith('.yaml'));

  test('synthesizes the stacks of every environment file', () => {
    const stacks = fs.readdirSync(path.join(outdir, 'stacks'));
    for (const f of envFiles) expect(stacks).toContain(`${f.replace(/\.yaml$/, '')}-management`);
  });

  test('each stack initializes offline and validates', () => {
    const stacks = fs.readdirSync(path.join(outdir, 'stacks')).sort();
    const failures: string[] = [];
    for (const stack of stacks) {
      const dir = path.join(outdir, 'stacks', stack);
      const init = terraform(['init', '-input=false', '-no-color'], dir);
      if (init.status !== 0) {
        failures.push(`${stack}: terraform init failed:\n${init.stderr}${init.stdout.slice(-2000)}`);
        continue;
      }
      // The lock file pins every provider the stack requires (`~> x.y.z`) to the mirror's build of
      // that release x.y.z, with its constraint and hashes from the mirror.
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'cdk.tf.json'), 'utf8'));
      const lock = fs.readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8');
      for (const [name, req] of Object.entries<any>(json.terraform.required_providers)) {
        const release = String(req.version).replace(/^~> /, '').replace(/\./g, '\\.');
        const block = new RegExp(`provider "[^"]*/${req.source.split('/').pop()}" \\{\\s*version\\s*=\\s*"${release}"\\s*constraints\\s*=\\s*"~> ${release}"[\\s\\S]*?h1:`);
        if (!block.test(lock)) failures.push(`${stack}: lock file lacks ${name} ${req.version} (resolved to its release, with an h1 hash)`);
      }
      const validate = terraform(['validate', '-no-color', '-json'], dir);
      const result = JSON.parse(validate.stdout);
      if (!result.valid) failures.push(`${stack}: ${JSON.stringify(result.diagnostics, null, 1)}`);
    }
    expect(failures).toEqual([]);
  });

  test('a plan with --var environment of another environment is refused with a clear message', () => {
    const dir = path.join(outdir, 'stacks', 'example-management');
    const plan = terraform(['plan', '-input=false', '-no-color', '-var', 'environment=local'], dir);
    expect(plan.status).not.toBe(0);
    expect(plan.stderr.replace(/\s+/g, ' ')).toContain('This stack belongs to environment "example"; --var environment must be "example" or omitted');
  });
});
