/**
 * The shell blocks of the README and docs/*.md name real things: each command line starts with a
 * command this repository has (an npm script, a file under scripts/, a capi-openstack command and
 * sub-command, a cdktf verb) or a known tool. Blocks that need a cloud run in e2e suites (the
 * README's Quickstart and local walk in test/e2e/readme.e2e.test.ts); this keeps the others from
 * naming a script, command or file that does not exist. The yaml blocks are valid environment text,
 * or Kubernetes objects that an e2e suite applies as printed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { parseEnvironment } from '../../lib/config/load';
import { COMMANDS } from '../../lib/runtime/cli/main';

const ROOT = path.resolve(__dirname, '..', '..');
const PAGES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const SCRIPTS = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const CDKTF_VERBS = new Set(['synth', 'deploy', 'destroy', 'diff', 'plan', 'output', 'list', 'get']);
/** Tools of the operator's machine the docs may call as they are. */
const TOOLS = new Set(['openstack', 'terraform', 'kubectl', 'clusterctl', 'export', 'cd', 'git', 'curl', 'cat', 'ls']);

function blocks(language: string): { where: string; code: string }[] {
  return PAGES.flatMap((page) => {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    return [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => ({ where: `${page}:${text.slice(0, m.index).split('\n').length}`, code: m[1] }));
  });
}

/** What is wrong with one simple command (no pipes), or undefined. */
function problem(words: string[]): string | undefined {
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words.shift(); // VAR=value prefixes
  if (words[0] === 'npx' && words[1] !== 'cdktf') words.shift(); // npx <bin of this package>
  const [first, second, third] = words;
  if (!first) return undefined;
  if (first === 'npm') {
    if (second === 'ci' || second === 'test' || second === 'install') return undefined;
    return second === 'run' && SCRIPTS[third] ? undefined : `npm ${second} ${third ?? ''}: no such npm script`;
  }
  if (first === 'npx' && second === 'cdktf') return CDKTF_VERBS.has(third) ? undefined : `cdktf ${third}: not a cdktf command`;
  if (first === 'cdktf') return CDKTF_VERBS.has(second) ? undefined : `cdktf ${second}: not a cdktf command`;
  if (first === 'capi-openstack') {
    const command = COMMANDS.find((c) => c.spec.name === second);
    if (!command) return `capi-openstack ${second}: no such command`;
    const subs = /^<([a-z-]+(?:\|[a-z-]+)+)>/.exec(command.spec.usage)?.[1].split('|');
    return subs && !subs.includes(third) ? `capi-openstack ${second} ${third}: expected one of ${subs.join(', ')}` : undefined;
  }
  if (first === 'source' || first === 'node') return fs.existsSync(path.join(ROOT, second)) ? undefined : `${first} ${second}: no such file`;
  if (first.startsWith('scripts/')) return fs.existsSync(path.join(ROOT, first)) && fs.statSync(path.join(ROOT, first)).mode & 0o111 ? undefined : `${first}: no such executable`;
  return TOOLS.has(first) ? undefined : `${first}: not a command of this repository or a known tool`;
}

/** The simple commands of a block: comments dropped, split at && and ;, command substitutions opened. */
function commandsOf(code: string): string[][] {
  return code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').replace(/^#.*$/, ''))
    .flatMap((line) => line.replace(/^eval "\$\((.*)\)"/, '$1').split(/&&|;/))
    .map((c) => c.trim().split(/\s+/).filter(Boolean))
    .filter((w) => w.length > 0);
}

describe('shell blocks of the README and docs', () => {
  const sh = blocks('sh');

  test('there are blocks to check', () => {
    expect(sh.length).toBeGreaterThan(5);
  });

  test('every command names something that exists', () => {
    const wrong = sh.flatMap((b) => commandsOf(b.code).flatMap((words) => {
      const p = problem([...words]);
      return p ? [`${b.where}: ${p}`] : [];
    }));
    expect(wrong).toEqual([]);
  });

  test('the checker refuses what does not exist', () => {
    expect(problem(['npm', 'run', 'no-such-script'])).toMatch(/no such npm script/);
    expect(problem(['capi-openstack', 'state', 'explode', 'prod'])).toMatch(/expected one of credentials/);
    expect(problem(['scripts/no-such/start'])).toMatch(/no such executable/);
    expect(problem(['make', 'all'])).toMatch(/not a command/);
  });

  // The clouds the yaml blocks name, as an operator's clouds.yaml would hold them (management.cloud
  // must name an entry of another project).
  const saved = process.env.OS_CLIENT_CONFIG_FILE;
  beforeAll(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-clouds-'));
    const entry = (project: string) => ({ auth: { auth_url: 'https://keystone.example.org:5000/v3', project_name: project, username: 'ops', user_domain_name: 'Default', project_domain_name: 'Default' }, region_name: 'RegionOne' });
    const clouds = { clouds: { prod: entry('prod'), 'prod-management': entry('prod-management'), mycloud: entry('demo') } };
    process.env.OS_CLIENT_CONFIG_FILE = path.join(dir, 'clouds.yaml');
    fs.writeFileSync(process.env.OS_CLIENT_CONFIG_FILE, YAML.stringify(clouds));
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.OS_CLIENT_CONFIG_FILE;
    else process.env.OS_CLIENT_CONFIG_FILE = saved;
  });

  // yaml blocks are environment text, but for the Kubernetes objects a page shows an operator; each
  // of those is applied by an e2e suite, which reads it from the page (the first line says which)
  const kubeObject = (code: string) => /^apiVersion:/m.test(code) && /^kind:/m.test(code);
  const APPLIED_BY_E2E: Record<string, string> = { HTTPRoute: 'test/e2e/helpers/addon-charts.ts (documentedHttpRoute), applied by the addon-charts suite' };

  test.each(blocks('yaml').filter((b) => kubeObject(b.code)).map((b) => [b.where, b.code] as const))('%s (a Kubernetes object) is one an e2e suite applies as printed', (_where, code) => {
    const kind = (YAML.parse(code) as { kind: string }).kind;
    expect({ kind, appliedBy: APPLIED_BY_E2E[kind] }).toEqual({ kind, appliedBy: expect.any(String) });
  });

  test.each(blocks('yaml').filter((b) => !kubeObject(b.code)).map((b) => [b.where, b.code] as const))('%s is valid in an environment file', (_where, code) => {
    // The block is a fragment: its keys are laid over the example's, as a reader would edit the file.
    const example = YAML.parse(fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8')) as Record<string, unknown>;
    const merged = YAML.stringify(overlay(example, YAML.parse(code) as Record<string, unknown>));
    expect(() => parseEnvironment(merged, 'environments/example.yaml')).not.toThrow();
  });
});

function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const b = out[k];
    const mergeable = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
    out[k] = mergeable(b) && mergeable(v) ? overlay(b as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}
