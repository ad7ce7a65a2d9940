/**
 * docs/settings.md and environments/environment.schema.json are generated; these tests fail when
 * either is stale versus lib/config, and check that the reference really covers every field.
 */
import * as fs from 'fs';
import * as path from 'path';
import { environmentJsonSchema } from '../../lib/config/json-schema';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { renderSettingsReference } = require('../../scripts/docs/settings-reference.js') as {
  renderSettingsReference(schema: unknown): string;
};

const ROOT = path.resolve(__dirname, '..', '..');
const SCHEMA_FILE = path.join(ROOT, 'environments', 'environment.schema.json');
const SETTINGS_FILE = path.join(ROOT, 'docs', 'settings.md');

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  additionalProperties?: Schema | boolean;
  default?: unknown;
};

/** Every field path as the reference writes it (`a.b`, `a[].b`, `a.<name>.b`). */
function fieldPaths(schema: Schema, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const p = prefix ? `${prefix}.${key}` : key;
    out.push(p);
    if (prop.properties) out.push(...fieldPaths(prop, p));
    if (prop.items?.properties) out.push(...fieldPaths(prop.items, `${p}[]`));
    if (typeof prop.additionalProperties === 'object' && prop.additionalProperties.properties) {
      out.push(...fieldPaths(prop.additionalProperties, `${p}.<name>`));
    }
    const branch = prop.anyOf?.find((s) => s.properties);
    if (branch) out.push(...fieldPaths(branch, p));
  }
  return out;
}

describe('generated environment documentation', () => {
  const schema = environmentJsonSchema();

  it('environments/environment.schema.json matches lib/config (regenerate: npm run schema)', () => {
    const expected = JSON.stringify(schema, null, 2) + '\n';
    const actual = fs.readFileSync(SCHEMA_FILE, 'utf8');
    if (actual !== expected) {
      throw new Error(
        'environments/environment.schema.json is stale versus lib/config/*-schema.ts: run `npm run schema` (build + scripts/generate-json-schema.js) and commit the result',
      );
    }
  });

  it('docs/settings.md matches the schema (regenerate: node scripts/docs/settings-reference.js)', () => {
    const expected = renderSettingsReference(schema);
    const actual = fs.existsSync(SETTINGS_FILE) ? fs.readFileSync(SETTINGS_FILE, 'utf8') : '';
    if (actual !== expected) {
      throw new Error(
        'docs/settings.md is stale versus lib/config: run `npm run schema && node scripts/docs/settings-reference.js` and commit docs/settings.md',
      );
    }
  });

  it('lists every field of the schema, with its default where the schema has one', () => {
    const doc = renderSettingsReference(schema);
    const paths = fieldPaths(schema as Schema);
    expect(paths.length).toBeGreaterThan(60);
    const rows = new Map(
      doc
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => [/^\| `([^`]+)`/.exec(l)![1], l] as const),
    );
    const missing = paths.filter((p) => !rows.has(p));
    expect(missing).toEqual([]);
    // Spot checks of type, default, description and constraints rendering.
    expect(rows.get('network.managementCidr')).toContain('`"10.0.0.0/24"`');
    expect(rows.get('cloud.name')).toMatch(/\| required; pattern `[^`]+`; at most 255 characters \|$/);
    expect(rows.get('cloud.interface')).toContain('one of `"public"`, `"internal"`, `"admin"`');
    expect(rows.get('network.mtu')).toMatch(/\| integer \| `0` \|.*\| 0 to 9000 \|$/);
    expect(rows.get('cloud.region')).toContain('| region_name of the clouds.yaml entry | Region. |');
    expect(rows.get('clusters.<name>.addons.certManager')).toContain('| boolean \\| object | `false` |');
    expect(rows.get('management.sshPublicKey')).toContain('ed25519\\|rsa');
    expect(rows.get('clusters.<name>.nodeGroups[].name')).toContain('required');
  });
});

describe('settings reference rendering', () => {
  it('renders nested objects, list items, maps, toggles and escapes table cells', () => {
    const doc = renderSettingsReference({
      description: 'Root.',
      type: 'object',
      required: ['name'],
      properties: {
        name: { description: 'A | name.', type: 'string', minLength: 1, maxLength: 5 },
        size: { description: 'Size. Default: twice the <name> length.', type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
        items: { type: 'array', default: [], items: { type: 'object', properties: { x: { type: 'boolean', default: false } }, required: [] } },
        things: { type: 'object', propertyNames: { type: 'string', maxLength: 3 }, additionalProperties: { type: 'object', properties: { y: { type: 'string', enum: ['a', 'b'] } } } },
        toggle: { description: 'T.', anyOf: [{ type: 'boolean' }, { type: 'object', properties: { enabled: { type: 'boolean', default: true } } }] },
      },
    });
    expect(doc).toContain('| `name` | string | — | A \\| name. | required; 1–5 characters |');
    expect(doc).toContain('| `size` | integer | twice the &lt;name&gt; length | Size. | — |');
    expect(doc).toContain('## `items[]`');
    expect(doc).toContain('| `items[].x` | boolean | `false` |');
    expect(doc).toContain('## `things.<name>`');
    expect(doc).toContain('| `things.<name>.y` | string | unset | — | one of `"a"`, `"b"` |');
    expect(doc).toContain('| `toggle` | boolean \\| object | `true` | T. See [`toggle`](#toggle). | — |');
    expect(doc).toContain('| `toggle.enabled` | boolean | `true` |');
  });
});
