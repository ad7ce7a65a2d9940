/**
 * Control characters in an environment file: refused in every string field and every key, naming
 * the field and the line, the character shown escaped. Only whitespace was refused before (and only
 * by some fields): DEL, C1 controls and U+FFFE in a URL or an SSH key's comment reached the VM's
 * #cloud-config (which cloud-init then could not parse), systemd drop-ins and containerd's hosts.toml.
 */
import { stringify } from 'yaml';
import { EnvironmentConfigError, environmentFromObject, parseEnvironment } from '../../lib/config';
import { formatPath } from '../../lib/config/errors';
import { planted, stringSites } from '../support/schema-string-sites';
import { environmentYaml } from '../support/environment-text';
import { refusalOf } from '../support/refusal';

const FILE = 'environments/t.yaml';
/** C0 (ESC, TAB), DEL, C1 (NEL, CSI), line separator, a bidirectional override, BOM, noncharacters, a lone surrogate. */
const CHARACTERS = ['\u001b', '\t', '\u007f', '\u0085', '\u009b', '\u2028', '\u202e', '\ufeff', '\ufffe', '\u{10ffff}', '\ud800'];
/** Enough of a valid environment that the planted field is mostly what is wrong. */
const BASE = { cloud: { name: 'c', authUrl: 'https://keystone.test:5000/v3' }, management: { apiAllowedCidrs: ['203.0.113.0/24'] }, clusters: { demo: {} } };
const SITES = stringSites();

/** How messages show a character: `\t`, `\u007f`, `\u{10ffff}` (written here, not taken from the code under test). */
function escaped(c: string): string {
  const cp = c.codePointAt(0)!;
  if (c === '\t') return '\\t';
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Messages keep their own lines; nothing else of the input may reach a terminal raw. */
function rawControls(message: string): string[] {
  return [...CHARACTERS, '\r', '\u0000'].filter((c) => message.includes(c));
}

describe('control characters in an environment', () => {
  test('the schema walk finds the string fields and keys (the walk itself works)', () => {
    const labels = SITES.map((s) => `${formatPath(s.path)}${s.key ? ' (key)' : ''}`);
    for (const expected of ['proxy.httpProxy', 'management.sshPublicKey', 'management.metadata (key)', 'management.metadata.k', 'clusters (key)', 'clusters.demo.nodeGroups[0].labels (key)', 'registryMirrors[0].endpoints[0]', 'cloud.interface', 'existingManagementCluster.kubeconfigFile']) {
      expect(labels).toContain(expected);
    }
    expect(SITES.length).toBeGreaterThan(70);
  });

  test.each(CHARACTERS.map((c) => [escaped(c), c]))('%s: refused in every string field and key, naming the field and the line', (shown, character) => {
    const wrong: string[] = [];
    for (const site of SITES) {
      const value = site.path[site.path.length - 1] === 'sshPublicKey' ? `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake ops${character}x` : `https://a${character}.example.com`;
      const data = planted(BASE, site, site.key ? `k${character}` : value);
      const field = formatPath(site.key ? [...site.path, `k${character}`] : site.path);
      try {
        parseEnvironment(stringify(data), FILE);
        wrong.push(`${field}: accepted`);
      } catch (e) {
        if (!(e instanceof EnvironmentConfigError)) throw e;
        // the field's own rule may say it; either way the issue names the field, a line and the character escaped
        const issue = e.issues.find((i) => i.path === field.replace(character, shown));
        if (!issue || issue.line === undefined || !issue.message.includes(shown)) wrong.push(`${field}: ${e.message}`);
        if (rawControls(e.message).length > 0) wrong.push(`${field}: raw control character in ${JSON.stringify(e.message)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('the message says which character, where, and shows the text escaped', () => {
    const e = refusalOf(() => parseEnvironment(environmentYaml('proxy:\n  httpProxy: "http://proxy.example.com:3128/\\x7f"\n'), FILE));
    expect(e.message).toMatch(
      /t\.yaml:\d+:\d+: proxy\.httpProxy: expected an http\(s\) URL without spaces, control characters, quotes, backslashes, "`" or "\$", found "http:\/\/proxy\.example\.com:3128\/\\u007f"/,
    );
    const metadata = refusalOf(() => parseEnvironment(environmentYaml('management:\n  metadata:\n    note: "a\\x85b"\n'), FILE));
    expect(metadata.message).toMatch(/t\.yaml:\d+:\d+: management\.metadata\.note: expected text without control characters \(.*\), found U\+0085 at character 2 of "a\\u0085b"/);
    const key = refusalOf(() => parseEnvironment(environmentYaml('management:\n  metadata:\n    "a\\u202eb": x\n'), FILE));
    expect(key.message).toMatch(/t\.yaml:\d+:\d+: management\.metadata\.a\\u202eb: expected a key without control characters .*found U\+202E at character 2/);
  });

  test('raw (unescaped) characters in the file are refused as well', () => {
    const e = refusalOf(() => parseEnvironment(environmentYaml('management:\n  sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake ops\u007f@host\n'), FILE));
    expect(e.message).toMatch(/t\.yaml:\d+:\d+: management\.sshPublicKey: expected text without control characters .*found U\+007F/);
  });

  test('an environment given in code is held to the same rule', () => {
    const e = refusalOf(() => environmentFromObject('lab', { cloud: { name: 'c' }, management: { metadata: { note: 'a\u009bb' } } } as never));
    expect(e.message).toContain('management.metadata.note: expected text without control characters');
    expect(rawControls(e.message)).toEqual([]);
  });

  test('printable text passes: accents, CJK, emoji, a no-break space', () => {
    const env = parseEnvironment(environmentYaml('management:\n  metadata:\n    note: "Zürich 東京 🚀 a\u00a0b"\n'), FILE);
    expect(env.spec.management.metadata.note).toBe('Zürich 東京 🚀 a\u00a0b');
  });
});
