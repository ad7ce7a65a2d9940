/**
 * lib/gen must be exactly what scripts/toolchain/generate-bindings.js produces from the committed
 * provider schemas (schemas/providers) and scripts/toolchain/bindings.json, and the committed
 * schemas must come from the provider builds pinned in scripts/toolchain/providers.json.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// @cdktf/commons runs `terraform version` when loaded; the generator does not need it (the script
// itself pre-seeds Node's require cache, which jest's module registry bypasses, hence doMock here).
jest.doMock(path.join(path.dirname(require.resolve('@cdktf/commons')), 'terraform.js'), () => ({
  terraformBinaryName: 'terraform',
  terraformVersion: Promise.resolve(undefined),
}));
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { generate, diffTrees, loadProviderSchema } = require('../../scripts/toolchain/generate-bindings');

const REPO = path.join(__dirname, '..', '..');
const readJson = (p: string) => JSON.parse(fs.readFileSync(path.join(REPO, p), 'utf8'));

describe('generated provider bindings (lib/gen)', () => {
  let tmp: string;
  let fresh: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bindings-test-'));
    fresh = path.join(tmp, 'gen');
    await generate(fresh, { quiet: true });
  });

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is up to date with schemas/providers and bindings.json (run: node scripts/toolchain/generate-bindings.js)', () => {
    expect(diffTrees(fresh, path.join(REPO, 'lib', 'gen'))).toEqual([]);
  });

  it('has exactly the resources and data sources configured in bindings.json', () => {
    const config = readJson('scripts/toolchain/bindings.json');
    const expected: string[] = [];
    for (const [name, sel] of Object.entries<any>(config.providers)) {
      expected.push(name); // the provider itself
      for (const r of sel.resources) expected.push(`${name}_${r}`);
      for (const d of sel.dataSources) expected.push(`${name}_${d}`);
    }
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else for (const m of fs.readFileSync(p, 'utf8').matchAll(/tfResourceType = "([a-z0-9_]+)"/g)) found.push(m[1]);
      }
    };
    walk(fresh);
    expect(found.sort()).toEqual(expected.sort());
  });

  it('requires each provider as `~> <release>`, the release the mirror build is labelled with', () => {
    const versions = readJson('schemas/providers/versions.json').providers as Array<{ name: string; source: string; version: string }>;
    const config = readJson('scripts/toolchain/bindings.json');
    for (const name of Object.keys(config.providers)) {
      const pinned = versions.find((v) => v.name === name)!;
      const provider = fs.readFileSync(path.join(fresh, name, 'provider', 'index.ts'), 'utf8');
      expect(provider).toContain(`providerVersion: '~> ${pinned.version}'`);
      expect(provider).toContain(`providerVersionConstraint: '~> ${pinned.version}'`);
      expect(provider).toContain(`terraformProviderSource: '${pinned.source}'`);
    }
  });

  it('the staleness check reports changed, missing and extra files', () => {
    const copy = path.join(tmp, 'copy');
    fs.cpSync(fresh, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, 'tls', 'private-key', 'index.ts'), '// edited by hand\n');
    fs.rmSync(path.join(copy, 'time', 'offset', 'index.ts'));
    fs.writeFileSync(path.join(copy, 'tls', 'leftover.ts'), 'export {};\n');
    expect(diffTrees(fresh, copy).sort()).toEqual(
      ['differs: tls/private-key/index.ts', 'missing: time/offset/index.ts', 'not generated (stale): tls/leftover.ts'].sort(),
    );
  });
});

describe('committed provider schemas (schemas/providers)', () => {
  it('come from the provider builds pinned in scripts/toolchain/providers.json (run: scripts/toolchain/regenerate.sh)', () => {
    const pinned = readJson('scripts/toolchain/providers.json').providers.map((p: any) => ({
      name: p.name,
      source: p.source,
      version: p.version,
      module: p.module,
      moduleVersion: p.moduleVersion,
    }));
    expect(readJson('schemas/providers/versions.json').providers).toEqual(pinned);
  });

  it('hold one provider each, with its version', () => {
    for (const p of readJson('schemas/providers/versions.json').providers) {
      const schema = loadProviderSchema(p.name);
      const fqpn = `registry.terraform.io/${p.source}`;
      expect(Object.keys(schema.provider_schemas)).toEqual([fqpn]);
      expect(schema.provider_versions).toEqual({ [fqpn]: p.version });
      expect(Object.keys(schema.provider_schemas[fqpn].resource_schemas ?? {}).length).toBeGreaterThan(0);
    }
  });
});
