/**
 * The CI examples (.github/workflows, .gitlab-ci.yml): third-party code pinned by commit or
 * digest, downloads checked before use, deploys only from protected refs, and the plan job never
 * holds what reads a saved plan or applies it.
 */
import { spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';

const ROOT = path.join(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const workflowFiles = fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith('.yml'));
const workflow = (f: string) => parse(fs.readFileSync(path.join(WORKFLOWS, f), 'utf8'));
const gitlabText = fs.readFileSync(path.join(ROOT, '.gitlab-ci.yml'), 'utf8');
const gitlab = parse(gitlabText);

/** Every `uses:` of a workflow with the steps' env, by job. */
const steps = (wf: any) => Object.entries<any>(wf.jobs).flatMap(([job, j]) => (j.steps ?? []).map((s: any) => ({ job, ...s })));

describe('GitHub workflows', () => {
  test.each(workflowFiles)('%s: every action is pinned by a full commit SHA, the release named in a comment', (f) => {
    const lines = fs.readFileSync(path.join(WORKFLOWS, f), 'utf8').split('\n').filter((l) => /^\s*(-\s*)?uses:/.test(l));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  test.each(workflowFiles)('%s: every job that gets secrets runs only for protected refs, in a GitHub environment', (f) => {
    for (const [name, job] of Object.entries<any>(workflow(f).jobs)) {
      expect([name, String(job.if)]).toEqual([name, expect.stringMatching(/^github\.ref_protected( &&|$)/)]);
      expect([name, job.environment]).toEqual([name, expect.stringMatching(/^\$\{\{ (inputs|matrix)\.environment \}\}/)]);
    }
  });

  test('deploy.yml: the plan job can encrypt plans (public key, a variable) but holds nothing that decrypts them; the approved apply job does', () => {
    const wf = workflow('deploy.yml');
    expect(wf.jobs.plan.environment).toBe('${{ inputs.environment }}-plan');
    expect(wf.jobs.apply.environment).toBe('${{ inputs.environment }}');
    const planEnv = JSON.stringify(steps(wf).filter((s) => s.job === 'plan').map((s) => s.env ?? {}));
    expect(planEnv).toContain('"PIPELINE_PLAN_RECIPIENT":"${{ vars.PIPELINE_PLAN_RECIPIENT }}"');
    expect(planEnv).not.toMatch(/PIPELINE_PLAN_KEY|PIPELINE_PLAN_PRIVATE_KEY/);
    const applyEnv = JSON.stringify(steps(wf).filter((s) => s.job === 'apply').map((s) => s.env ?? {}));
    expect(applyEnv).toContain('"PIPELINE_PLAN_PRIVATE_KEY":"${{ secrets.PIPELINE_PLAN_PRIVATE_KEY }}"');
    expect(applyEnv).not.toContain('PIPELINE_PLAN_KEY"');
  });

  test('Go and Terraform are exact releases, the ones the GitLab example pins by SHA-256', () => {
    const versions = workflowFiles.flatMap((f) => {
      const wf = workflow(f);
      const resolve = (v: string) => String(v).replace(/^\$\{\{ env\.(\w+) \}\}$/, (_m, name) => wf.env[name]);
      return steps(wf)
        .filter((s) => /^actions\/setup-go@|^hashicorp\/setup-terraform@/.test(s.uses ?? ''))
        .map((s) => [f, s.job, s.uses.split('@')[0], resolve(s.with['go-version'] ?? s.with.terraform_version)]);
    });
    expect(versions.length).toBeGreaterThanOrEqual(8);
    for (const [f, job, action, version] of versions) {
      const pinned = action === 'actions/setup-go' ? gitlab.variables.GO_VERSION : gitlab.variables.TERRAFORM_VERSION;
      expect([f, job, action, version]).toEqual([f, job, action, pinned]);
    }
    expect(gitlab.variables.GO_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test('npm runs no install script of a dependency', () => {
    const installs = workflowFiles.flatMap((f) => steps(workflow(f)).filter((s) => /npm (ci|install)/.test(s.run ?? '')).map((s) => [f, s.job, s.run]));
    expect(installs.length).toBe(4);
    for (const [f, job, run] of installs) expect([f, job, run]).toEqual([f, job, expect.stringContaining(' --ignore-scripts')]);
  });

  test('backup.yml writes to the bucket from an environment of its own, not the read-only plan one', () => {
    expect(workflow('backup.yml').jobs.backup.environment).toBe('${{ matrix.environment }}-backup');
  });
});

describe('.gitlab-ci.yml', () => {
  /** The first workflow rule that matches decides, as in GitLab. */
  const runs = (vars: Record<string, string>) => {
    for (const rule of gitlab.workflow.rules) {
      const cond: string | undefined = rule.if;
      const holds = cond === undefined || cond.split('||').some((alt) => alt.split('&&').every((c) => {
        const m = c.trim().match(/^\$(\w+) (==|!=) (null|"[^"]*")$/)!;
        const value = vars[m[1]];
        const equal = m[3] === 'null' ? value === undefined : value === JSON.parse(m[3]);
        return m[2] === '==' ? equal : !equal;
      }));
      if (holds) return rule.when !== 'never';
    }
    return false;
  };

  test('pipelines run only for protected refs, with an environment named', () => {
    expect(runs({ ENVIRONMENT: 'prod', CI_COMMIT_REF_PROTECTED: 'true' })).toBe(true);
    expect(runs({ ENVIRONMENT: 'prod', CI_COMMIT_REF_PROTECTED: 'false' })).toBe(false);
    expect(runs({ ENVIRONMENT: 'prod' })).toBe(false);
    expect(runs({ ENVIRONMENT: '', CI_COMMIT_REF_PROTECTED: 'true' })).toBe(false);
  });

  test('the image is pinned by digest', () => {
    expect(gitlab['.setup'].image).toMatch(/^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
  });

  describe('Go and Terraform from the runner cache: the pinned SHA-256 is checked in every job, not only after a download', () => {
    // The tool script of .setup, run as GitLab runs it, against a cache prepared here (nothing is downloaded).
    let dir: string;
    let cache: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-tools-'));
      cache = path.join(dir, 'cache');
      fs.mkdirSync(path.join(cache, 'cli'), { recursive: true });
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** A release archive holding one executable that says where it came from; its SHA-256. */
    function archive(kind: 'go' | 'terraform', says: string): string {
      const src = fs.mkdtempSync(path.join(dir, `${kind}-`));
      const bin = kind === 'go' ? path.join(src, 'go', 'bin', 'go') : path.join(src, 'terraform');
      fs.mkdirSync(path.dirname(bin), { recursive: true });
      fs.writeFileSync(bin, `#!/bin/sh\necho ${says}\n`, { mode: 0o755 });
      const file = kind === 'go' ? path.join(cache, 'cli', 'go1.0.0.linux-amd64.tar.gz') : path.join(cache, 'cli', 'terraform_1.0.0_linux_amd64.zip');
      const made =
        kind === 'go'
          ? spawnSync('tar', ['-C', src, '-czf', file, 'go'])
          : spawnSync('python3', ['-c', 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z: z.write(sys.argv[2], "terraform")', file, bin]);
      expect(made.status).toBe(0);
      return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    }

    const tools = (sums: { go: string; terraform: string }) =>
      spawnSync('bash', ['-eo', 'pipefail', '-c', `${gitlab['.setup'].before_script[0]}\ngo; terraform`], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: dir, CI_PROJECT_DIR: dir, CAPI_OPENSTACK_CDKTF_CACHE: cache, GO_VERSION: '1.0.0', GO_SHA256: sums.go, TERRAFORM_VERSION: '1.0.0', TERRAFORM_SHA256: sums.terraform },
      });

    test('cached archives with the pinned SHA-256 are unpacked afresh and used', () => {
      const r = tools({ go: archive('go', 'go-from-archive'), terraform: archive('terraform', 'terraform-from-archive') });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('go-from-archive\nterraform-from-archive\n');
      expect(r.stdout).not.toContain('downloading');
    });

    test('a cached Go archive that changed is refused, and neither it nor an unpacked copy left in the cache runs', () => {
      const sums = { go: archive('go', 'go-from-archive'), terraform: archive('terraform', 'terraform-from-archive') };
      archive('go', 'go-changed-in-the-cache');
      // what earlier versions of this file cached and reused unchecked
      const unpacked = path.join(cache, 'cli', 'go-1.0.0', 'go', 'bin', 'go');
      fs.mkdirSync(path.dirname(unpacked), { recursive: true });
      fs.writeFileSync(unpacked, '#!/bin/sh\necho go-unpacked-in-the-cache\n', { mode: 0o755 });
      const r = tools(sums);
      expect(r.status).not.toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(/go-changed-in-the-cache|go-unpacked-in-the-cache/);
      expect(r.stderr).toContain(`${path.join(cache, 'cli', 'go1.0.0.linux-amd64.tar.gz')} does not have the pinned SHA-256 ${sums.go}`);
    });

    test('the pinned sums are SHA-256 values', () => {
      expect(gitlab.variables.GO_SHA256).toMatch(/^[0-9a-f]{64}$/);
      expect(gitlab.variables.TERRAFORM_SHA256).toMatch(/^[0-9a-f]{64}$/);
      expect(gitlab['.setup'].before_script[0]).not.toMatch(/curl [^\n]*\| *(tar|sh|bash)/);
    });
  });

  test('npm ci and the toolchain build run without the job\'s variables in their environment, and without install scripts', () => {
    const commands: string[] = gitlab['.setup'].before_script.slice(1);
    const builds = commands.filter((c) => /\bnpm\b/.test(c));
    expect(builds).toEqual(['scripts/pipeline/without-secrets npm ci --no-audit --no-fund --ignore-scripts', 'scripts/pipeline/without-secrets npm run toolchain']);
  });

  test('the state is not GitLab-managed by default (every Developer could read it)', () => {
    const backend = gitlab.variables.PIPELINE_BACKEND;
    expect(typeof backend === 'object' ? backend.value : backend).toBe('');
    expect(gitlabText).not.toMatch(/PIPELINE_GITLAB_STATE_READERS_ACKNOWLEDGED:/);
  });

  test('every artifact that holds plans, plan text or backups is for developers only', () => {
    const withArtifacts = Object.entries<any>(gitlab).filter(([, job]) => job && typeof job === 'object' && job.artifacts);
    expect(withArtifacts.map(([name]) => name).sort()).toEqual(['backup', 'drift', 'plan']);
    for (const [name, job] of withArtifacts) expect([name, job.artifacts.access]).toEqual([name, 'developer']);
  });

  test('plan and apply read variables of different environment scopes; the apply is manual', () => {
    expect(gitlab.plan.environment.name).toBe('plan/$ENVIRONMENT');
    expect(gitlab.drift.environment.name).toBe('plan/$ENVIRONMENT');
    expect(gitlab.apply.environment.name).toBe('$ENVIRONMENT');
    expect(gitlab.backup.environment.name).toBe('backup/$ENVIRONMENT');
    expect(gitlab.apply.rules[0].when).toBe('manual');
    expect(gitlab.apply.needs).toEqual([{ job: 'plan', artifacts: true }]);
    expect(gitlabText).not.toContain('PIPELINE_PLAN_KEY');
  });
});
