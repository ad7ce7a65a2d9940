/**
 * The CI examples (.github/workflows, .gitlab-ci.yml): third-party code pinned by commit or
 * digest, downloads checked before use, deploys only from protected refs, and the plan job never
 * holds what reads a saved plan or applies it.
 */
import * as fs from 'fs';
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

  test('every download is checked against a pinned SHA-256 before it is unpacked', () => {
    const script: string = gitlab['.setup'].before_script[0];
    const downloads = [...script.matchAll(/curl -fsSLo (\S+) /g)].map((m) => m[1]);
    expect(downloads).toEqual(['/tmp/go.tar.gz', '/tmp/terraform.zip']);
    for (const file of downloads) {
      const check = script.indexOf(`  ${file}" | sha256sum -c -`);
      expect(check).toBeGreaterThan(script.indexOf(file));
      const firstUse = Math.min(...[`-xzf ${file}`, `-e ${file}`].map((u) => script.indexOf(u)).filter((i) => i >= 0));
      expect(check).toBeLessThan(firstUse);
    }
    expect(script).not.toMatch(/curl [^\n]*\| *tar/);
    expect(gitlab.variables.GO_SHA256).toMatch(/^[0-9a-f]{64}$/);
    expect(gitlab.variables.TERRAFORM_SHA256).toMatch(/^[0-9a-f]{64}$/);
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
