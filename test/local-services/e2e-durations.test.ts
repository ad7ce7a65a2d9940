import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * The e2e scheduler starts the longest suites first, by the seconds the last run on this machine
 * recorded (scripts/e2e/suites.js). A suite that failed or skipped early must not teach it that
 * the suite is short.
 */
describe('e2e suite durations (scripts/e2e/suites.js)', () => {
  let cache: string;
  let suites: { recordDurations: (r: object[]) => void; selectSuites: (p: string[], e: string[]) => { name: string; expectedSeconds: number }[] };
  const saved = process.env.CAPI_OPENSTACK_CDKTF_CACHE;

  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-durations-'));
    process.env.CAPI_OPENSTACK_CDKTF_CACHE = cache;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      suites = require('../../scripts/e2e/suites');
    });
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.CAPI_OPENSTACK_CDKTF_CACHE;
    else process.env.CAPI_OPENSTACK_CDKTF_CACHE = saved;
    fs.rmSync(cache, { recursive: true, force: true });
  });

  const expected = (name: string) => suites.selectSuites([`${name}\\.e2e\\.test\\.ts$`], [])[0].expectedSeconds;

  test('a passing run records its seconds; a failed one, or one that passed without running a test, keeps the seconds before it', () => {
    suites.recordDurations([{ suite: 'control-loop', seconds: 1182, ok: true, passed: 11 }]);
    expect(expected('control-loop')).toBe(1182);
    suites.recordDurations([
      { suite: 'control-loop', seconds: 9, ok: false, passed: 0 },
      { suite: 'readme', seconds: 3, ok: true, passed: 0 },
    ]);
    expect(expected('control-loop')).toBe(1182);
    const written = JSON.parse(fs.readFileSync(path.join(cache, 'e2e', 'durations.json'), 'utf8'));
    expect(written).toEqual({ 'control-loop': 1182 });
  });

  test('longest first: the recorded seconds order the suites', () => {
    suites.recordDurations([
      { suite: 'control-loop', seconds: 5000, ok: true, passed: 11 },
      { suite: 'readme', seconds: 1, ok: true, passed: 2 },
    ]);
    const order = suites.selectSuites(['(control-loop|readme)\\.e2e\\.test\\.ts$'], []).map((s) => s.name);
    expect(order).toEqual(['control-loop', 'readme']);
  });
});
