/** Synthesis prints the environment files' warnings: one line per open workload API, with file and line. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';
import { ROOT } from './synthesize';

const example = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');

function warningsOf(text: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-warnings-'));
  fs.writeFileSync(path.join(dir, 'lab.yaml'), text);
  const lines: string[] = [];
  new EnvironmentsApp({ environmentsDir: dir, only: [], appConfig: { outdir: path.join(dir, 'out') }, onWarning: (l) => lines.push(l) });
  fs.rmSync(dir, { recursive: true, force: true });
  return lines;
}

describe('EnvironmentsApp warnings', () => {
  test('one line per cluster whose API is open by default; none once the file says so', () => {
    const two = example.replace('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: []') + '  second:\n    network: { nodeCidr: 10.9.0.0/20 }\n';
    // the example shares one project (no management.cloud): one line for it first, see management-project.test.ts
    const shared = expect.stringMatching(/^warning: .*lab\.yaml:\d+:\d+: management\.cloud: the management VM and its boot volume .* with the workload clusters/);
    const lines = warningsOf(two);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual(shared);
    expect(lines[1]).toMatch(/^warning: .*lab\.yaml:\d+:\d+: clusters\.demo\.apiAllowedCidrs: the Kubernetes API of cluster "demo" is reachable from anywhere \(the default\)/);
    expect(lines[2]).toMatch(/clusters\.second\.apiAllowedCidrs: the Kubernetes API of cluster "second"/);
    expect(warningsOf(example)).toEqual([shared]);
    expect(warningsOf(example.replace('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: [0.0.0.0/0]'))).toEqual([shared]);
  });

  test('by default the lines go to stderr', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-warnings-'));
    fs.writeFileSync(path.join(dir, 'lab.yaml'), example.replace('    apiAllowedCidrs: [198.51.100.0/24]', '    apiAllowedCidrs: []'));
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      new EnvironmentsApp({ environmentsDir: dir, only: [], appConfig: { outdir: path.join(dir, 'out') } });
      expect(spy.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/^warning: .*management\.cloud: .*\n$/), expect.stringMatching(/^warning: .*clusters\.demo\.apiAllowedCidrs: .*\n$/)]);
    } finally {
      spy.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
