import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'pipeline', 'stacks.js');

describe('scripts/pipeline/stacks.js record-lines: a wave of results in one write', () => {
  let dir: string;
  let meta: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-records-'));
    meta = path.join(dir, 'pipeline.json');
    fs.writeFileSync(meta, JSON.stringify({ environment: 'dev', mode: 'apply', stacks: [], applyOrder: [] }));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[], input?: string) => spawnSync('node', [SCRIPT, ...args], { encoding: 'utf8', input });
  const read = () => JSON.parse(fs.readFileSync(meta, 'utf8'));

  test('records every line in order, with counts and seconds, and lists only stacks with changes for the apply', () => {
    const r = run(['record-lines', meta], 'dev-a\tchanges\t\t3 1 0 1\t4\ndev-b\tno-changes\t\t\t2\ndev-c\tdrift\t\t0 2 0 0\t3\n');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(read().stacks).toEqual([
      { name: 'dev-a', status: 'changes', seconds: 4, changes: { add: 3, change: 1, destroy: 0, replace: 1 } },
      { name: 'dev-b', status: 'no-changes', seconds: 2 },
      { name: 'dev-c', status: 'drift', seconds: 3, changes: { add: 0, change: 2, destroy: 0, replace: 0 } },
    ]);
    expect(read().applyOrder).toEqual(['dev-a']);
  });

  test('gives the same document as one record call per stack', () => {
    run(['record', meta, 'dev-a', 'deferred', 'waiting for dev-m to be applied']);
    run(['record', meta, 'dev-b', 'changes', '', '1 0 0 0', '5']);
    const oneByOne = read();
    fs.writeFileSync(meta, JSON.stringify({ environment: 'dev', mode: 'apply', stacks: [], applyOrder: [] }));
    run(['record-lines', meta], 'dev-a\tdeferred\twaiting for dev-m to be applied\t\t\ndev-b\tchanges\t\t1 0 0 0\t5\n');
    expect(read()).toEqual(oneByOne);
    expect(oneByOne.stacks[0]).toEqual({ name: 'dev-a', status: 'deferred', detail: 'waiting for dev-m to be applied' });
  });

  test('a later line for the same stack replaces the earlier result', () => {
    run(['record-lines', meta], 'dev-a\tchanges\t\t1 0 0 0\t5\ndev-a\tno-changes\t\t\t1\n');
    expect(read().stacks).toEqual([{ name: 'dev-a', status: 'no-changes', seconds: 1 }]);
  });

  test('empty input changes nothing', () => {
    const before = fs.readFileSync(meta, 'utf8');
    expect(run(['record-lines', meta], '').status).toBe(0);
    expect(read()).toEqual(JSON.parse(before));
  });
});
