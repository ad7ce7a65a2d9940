/**
 * What the package says about itself holds (issue 37): the license package.json names is there as
 * LICENSE and goes into the tarball; the example environment's schema reference works where it is,
 * and the one it tells a consumer to use resolves in a project that installs the package.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; license: string; files: string[] };
/** SHA-256 of the Apache License 2.0 text as the ASF publishes it (www.apache.org/licenses/LICENSE-2.0.txt). */
const APACHE_2_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

/** The files `npm pack` would put into the tarball (no build: LICENSE and the environments files do not need one). */
const packed = (() => {
  let files: string[] | undefined;
  return () => (files ??= (JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as { files: { path: string }[] }[])[0].files.map((f) => f.path));
})();

describe('license', () => {
  test('package.json says Apache-2.0 and LICENSE is the Apache License 2.0, unchanged', () => {
    expect(PKG.license).toBe('Apache-2.0');
    const text = fs.readFileSync(path.join(ROOT, 'LICENSE'));
    expect(text.toString('utf8')).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    expect(crypto.createHash('sha256').update(text).digest('hex')).toBe(APACHE_2_SHA256);
  });

  test('LICENSE goes into the npm package', () => {
    expect(packed()).toContain('LICENSE');
  });
});

describe("example.yaml's schema reference", () => {
  const example = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');
  const schema = fs.readFileSync(path.join(ROOT, 'environments', 'environment.schema.json'), 'utf8');

  test('in this repository, the first line points at the schema beside it', () => {
    const first = /^# yaml-language-server: \$schema=(\S+)\n/.exec(example);
    expect(first).not.toBeNull();
    expect(fs.readFileSync(path.resolve(ROOT, 'environments', first![1]), 'utf8')).toBe(schema);
  });

  test('copied into a consumer project as environments/<name>.yaml, the path it gives resolves to the packaged schema', () => {
    const instead = /replace \.\/environment\.schema\.json on the first line with\n#\s+(\S+)\n/.exec(example);
    expect(instead).not.toBeNull();
    expect(packed()).toEqual(expect.arrayContaining(['environments/example.yaml', 'environments/environment.schema.json']));
    // a consumer's layout: the package under node_modules holds what the tarball holds
    const consumer = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-consumer-'));
    try {
      const installed = path.join(consumer, 'node_modules', PKG.name, 'environments');
      fs.mkdirSync(installed, { recursive: true });
      for (const f of ['example.yaml', 'environment.schema.json']) fs.copyFileSync(path.join(ROOT, 'environments', f), path.join(installed, f));
      fs.mkdirSync(path.join(consumer, 'environments'));
      const copied = path.join(consumer, 'environments', 'acme.yaml');
      fs.writeFileSync(copied, fs.readFileSync(path.join(installed, 'example.yaml'), 'utf8').replace('$schema=./environment.schema.json', `$schema=${instead![1]}`));
      const reference = /^# yaml-language-server: \$schema=(\S+)\n/.exec(fs.readFileSync(copied, 'utf8'))![1];
      expect(fs.readFileSync(path.resolve(path.dirname(copied), reference), 'utf8')).toBe(schema);
      // as printed in the README and the settings reference
      for (const page of ['README.md', path.join('docs', 'settings.md')]) expect([page, fs.readFileSync(path.join(ROOT, page), 'utf8').includes(`$schema=${instead![1]}`)]).toEqual([page, true]);
    } finally {
      fs.rmSync(consumer, { recursive: true, force: true });
    }
  });
});
