/**
 * The code shown in the docs is real: docs/examples/*.ts type-check against the library, run, and
 * appear verbatim in the page that shows them (with the package import instead of the relative one).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { EnvironmentsApp } from '../../lib';
import { useGitLabState } from '../../docs/examples/remote-state';

const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLE = path.join(ROOT, 'docs', 'examples', 'remote-state.ts');

describe('docs/examples/remote-state.ts', () => {
  let outdir: string;
  beforeAll(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-remote-state-'));
  });
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  it('type-checks against the library', () => {
    const read = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT);
    const program = ts.createProgram([EXAMPLE], { ...parsed.options, noEmit: true, incremental: false });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && path.resolve(d.file.fileName) === EXAMPLE)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });

  it('puts every stack on its own GitLab state, named after the stack (not <env>-<env>-management), with its lock, and the cross-stack reference follows it', () => {
    const envApp = new EnvironmentsApp({ environmentsDir: path.join(ROOT, 'environments'), only: ['example'], appConfig: { outdir } });
    useGitLabState(envApp, { projectApiUrl: 'https://gitlab.example.com/api/v4/projects/42/' });
    envApp.synth();
    const stack = (name: string) => JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', name, 'cdk.tf.json'), 'utf8'));
    const state = 'https://gitlab.example.com/api/v4/projects/42/terraform/state/example-management';
    expect(stack('example-management').terraform.backend).toEqual({
      http: {
        address: state,
        lock_address: `${state}/lock`,
        unlock_address: `${state}/lock`,
        lock_method: 'POST',
        unlock_method: 'DELETE',
        retry_wait_min: 5,
      },
    });
    const demo = stack('example-demo');
    expect(demo.terraform.backend.http.address).toBe('https://gitlab.example.com/api/v4/projects/42/terraform/state/example-demo');
    const remote = Object.values(demo.data.terraform_remote_state) as { backend: string; config: { address: string } }[];
    expect(remote).toHaveLength(1);
    expect(remote[0].backend).toBe('http');
    expect(remote[0].config.address).toBe(state);
  });

  it('is shown verbatim in docs/concepts.md', () => {
    const shown = fs
      .readFileSync(EXAMPLE, 'utf8')
      .replace("from '../../lib';", "from 'capi-openstack-cdktf';")
      .trimEnd();
    expect(fs.readFileSync(path.join(ROOT, 'docs', 'concepts.md'), 'utf8')).toContain(shown);
  });
});
