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

describe('scripts/pipeline/stacks.js: the summary reviewers approve names the commit and the digests the apply job checks', () => {
  let dir: string;
  let meta: string;
  const C = `sha256:${'c'.repeat(64)}`;
  const P = `sha256:${'a'.repeat(64)}`;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-summary-'));
    meta = path.join(dir, 'pipeline.json');
    fs.writeFileSync(meta, JSON.stringify({ environment: 'dev', mode: 'apply', commit: 'f'.repeat(40), backend: 's3', stacks: [], applyOrder: [] }));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[], input?: string) => spawnSync('node', [SCRIPT, ...args], { encoding: 'utf8', input });
  const runDigest = () => spawnSync('node', [path.join(path.dirname(SCRIPT), 'review.js'), 'run-digest', meta], { encoding: 'utf8' }).stdout.trim();

  test("a saved plan's digests are recorded; the summary gives them, the commit and the review digest of the run", () => {
    expect(run(['record-lines', meta], `dev-a\tchanges\t\t3 0 0 0\t4\t${C} ${P}\ndev-b\tno-changes\t\t\t2\t\n`).status).toBe(0);
    const doc = JSON.parse(fs.readFileSync(meta, 'utf8'));
    expect(doc.stacks[0]).toMatchObject({ name: 'dev-a', configDigest: C, planDigest: P });
    expect(doc.stacks[1]).not.toHaveProperty('planDigest');
    expect(run(['get', meta, 'digests', 'dev-a']).stdout).toBe(`${C} ${P}\n`);
    const summary = run(['summary', meta]).stdout;
    const digest = runDigest();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(summary).toContain(`Review digest \`${digest}\`: the apply job synthesizes commit \`${'f'.repeat(40)}\` itself`);
    expect(summary).toContain(`- \`dev-a\`: configuration \`${C}\`, plan file \`${P}\``);
    // any other plan, configuration or commit is another review digest
    for (const change of [{ commit: 'e'.repeat(40) }, { mode: 'destroy' }, { stacks: [{ ...doc.stacks[0], planDigest: C }, doc.stacks[1]] }]) {
      fs.writeFileSync(meta, JSON.stringify({ ...doc, ...change }));
      expect(runDigest()).not.toBe(digest);
    }
  });

  test('a digest that is not a SHA-256 value is not passed on', () => {
    run(['record-lines', meta], 'dev-a\tchanges\t\t1 0 0 0\t1\t$(id) *\n');
    expect(run(['get', meta, 'digests', 'dev-a']).stdout).toBe('- -\n');
  });
});

describe('scripts/pipeline/stacks.js check-order: the apply runs only stacks of its own synthesis, in its dependency order', () => {
  let manifest: string;
  beforeAll(() => {
    manifest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-order-')), 'manifest.json');
    fs.writeFileSync(manifest, JSON.stringify({ stacks: { 'dev-management': {}, 'dev-a': { dependencies: ['dev-management'] }, 'dev-b': { dependencies: ['dev-management'] } } }));
  });
  afterAll(() => fs.rmSync(path.dirname(manifest), { recursive: true, force: true }));
  const order = (mode: string, ...stacks: string[]) => spawnSync('node', [SCRIPT, 'check-order', manifest, 'dev', mode, ...stacks], { encoding: 'utf8' });

  test('dependencies first for an apply, dependents first for a destroy', () => {
    expect(order('apply', 'dev-management', 'dev-b').status).toBe(0);
    expect(order('destroy', 'dev-a', 'dev-management').status).toBe(0);
    expect(order('apply', 'dev-a', 'dev-management').stderr).toContain('the saved plans list dev-management after dev-a, but a stack is applied after what it depends on');
    expect(order('destroy', 'dev-management', 'dev-a').stderr).toContain('a stack is destroyed before what it depends on');
  });

  test('a stack this synthesis does not have, or a mode that applies nothing, is refused', () => {
    expect(order('apply', 'dev-evil').stderr).toContain('the saved plans name stack dev-evil, which this job\'s synthesis of environment dev does not have');
    expect(order('drift').stderr).toContain('the saved plans are of mode "drift", not apply or destroy');
  });
});
