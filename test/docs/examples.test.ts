/**
 * The code shown in the docs is real: docs/examples/*.ts type-check against the library, run, and
 * appear verbatim in the page that shows them (with the package import instead of the relative one).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { EnvironmentsApp } from '../../lib';
import { useS3State } from '../../docs/examples/remote-state';

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

  it('puts every stack on the S3 backend and the cross-stack reference follows it', () => {
    const envApp = new EnvironmentsApp({ environmentsDir: path.join(ROOT, 'environments'), only: ['example'], appConfig: { outdir } });
    useS3State(envApp, { endpoint: 'https://object-store.example.com', bucket: 'capi-state' });
    envApp.synth();
    const stack = (name: string) => JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', name, 'cdk.tf.json'), 'utf8'));
    const management = stack('example-management');
    const demo = stack('example-demo');
    expect(management.terraform.backend).toEqual({
      s3: expect.objectContaining({ bucket: 'capi-state', key: 'example/example-management.tfstate', endpoints: { s3: 'https://object-store.example.com' } }),
    });
    expect(Object.keys(demo.terraform.backend)).toEqual(['s3']);
    expect(demo.terraform.backend.s3.key).toBe('example/example-demo.tfstate');
    const remote = Object.values(demo.data.terraform_remote_state) as { backend: string; config: { key: string } }[];
    expect(remote).toHaveLength(1);
    expect(remote[0].backend).toBe('s3');
    expect(remote[0].config.key).toBe('example/example-management.tfstate');
  });

  it('is shown verbatim in docs/concepts.md', () => {
    const shown = fs
      .readFileSync(EXAMPLE, 'utf8')
      .replace("from '../../lib';", "from 'capi-openstack-cdktf';")
      .trimEnd();
    expect(fs.readFileSync(path.join(ROOT, 'docs', 'concepts.md'), 'utf8')).toContain(shown);
  });
});
