/**
 * docs/migration.md stays true to the code: every setting of the old tool's settings files has a
 * row, every new field it names exists in the environment schema, and the field each old setting is
 * mapped to by `import-tfvars` is the one the guide names.
 */
import * as fs from 'fs';
import * as path from 'path';
import { convertTfvars } from '../../lib/runtime/cli/tfvars/convert';
import { parseTfvars } from '../../lib/runtime/cli/tfvars/parse';
import { environmentJsonSchema } from '../../lib/config/json-schema';

const ROOT = path.resolve(__dirname, '..', '..');
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs', 'migration.md'), 'utf8');
const OLD_TOOL = path.join(ROOT, 'test', 'runtime', 'cli', 'fixtures', 'old-tool');
const TOP_LEVEL = new Set(['prefix', 'availabilityZone', 'cloud', 'network', 'management', 'existingManagementCluster', 'proxy', 'registryMirrors', 'versions', 'clusters']);

type Schema = { properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; additionalProperties?: Schema | boolean };

function schemaPaths(schema: Schema, prefix = ''): Set<string> {
  const out = new Set<string>();
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const p = prefix ? `${prefix}.${key}` : key;
    out.add(p);
    if (prop.items?.properties) out.add(`${p}[]`);
    if (typeof prop.additionalProperties === 'object' && prop.additionalProperties.properties) out.add(`${p}.<name>`);
    const nested: [Schema | undefined, string][] = [
      [prop.properties ? prop : undefined, p],
      [prop.items?.properties ? prop.items : undefined, `${p}[]`],
      [typeof prop.additionalProperties === 'object' && prop.additionalProperties.properties ? prop.additionalProperties : undefined, `${p}.<name>`],
      [prop.anyOf?.find((s) => s.properties), p],
    ];
    for (const [child, childPath] of nested) if (child) for (const x of schemaPaths(child, childPath)) out.add(x);
  }
  return out;
}

/** Rows of the settings tables: old keys (column 1) → cells. */
function settingRows(): Map<string, string> {
  const section = GUIDE.slice(GUIDE.indexOf('## Settings, old → new'), GUIDE.indexOf('## Commands, old → new'));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| old setting') || line.startsWith('|---')) continue;
    const first = line.split(' | ')[0];
    for (const m of first.matchAll(/`([^`]+)`/g)) rows.set(m[1], line);
  }
  return rows;
}

/** Dotted paths written in backticks that start with a top-level field. */
function namedFields(text: string): string[] {
  return [...text.matchAll(/`([A-Za-z][A-Za-z.<>[\]]*)`/g)].map((m) => m[1]).filter((p) => TOP_LEVEL.has(p.split(/[.[]/)[0]));
}

function normalize(field: string): string {
  return field.replace(/^clusters\.[^.]+/, 'clusters.<name>').replace(/\[\d+\]/g, '[]');
}

describe('docs/migration.md', () => {
  const rows = settingRows();
  const known = schemaPaths(environmentJsonSchema() as Schema);

  it('has a row for every setting of the old settings files', () => {
    const keys = new Set<string>();
    for (const file of fs.readdirSync(OLD_TOOL).filter((f) => f.endsWith('.tfvars'))) {
      for (const m of fs.readFileSync(path.join(OLD_TOOL, file), 'utf8').matchAll(/^([A-Za-z_][A-Za-z0-9_]*)\s*=/gm)) keys.add(m[1]);
    }
    expect(keys.size).toBeGreaterThan(40);
    expect([...keys].filter((k) => !rows.has(k))).toEqual([]);
  });

  it('names only fields that exist in the environment schema', () => {
    const named = [...new Set(namedFields(GUIDE).map((p) => p.replace(/^clusters\.<[a-z]+>/, 'clusters.<name>')))];
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((p) => !known.has(p))).toEqual([]);
  });

  it('maps each old setting to the field import-tfvars writes it to', async () => {
    const file = path.join(OLD_TOOL, 'environment-lab.tfvars');
    const parsed = await parseTfvars(file, fs.readFileSync(file, 'utf8'));
    const conversion = convertTfvars(parsed.values, { fileBases: [OLD_TOOL], sourceName: 'environment-lab.tfvars' });
    const mismatches: string[] = [];
    let checked = 0;
    for (const outcome of conversion.outcomes) {
      for (const field of outcome.fields.map(normalize)) {
        if (field === 'clusters.<name>') continue; // testcluster_name names the entry itself
        checked++;
        const row = rows.get(outcome.key) ?? '';
        // A mapping to a whole object (registryMirrors, addons.cni) is documented by its item/field paths.
        if (!row.includes(`\`${field}`)) mismatches.push(`${outcome.key} → ${field}`);
      }
    }
    expect(checked).toBeGreaterThan(30);
    expect(mismatches).toEqual([]);
  });

  it('lists every setting import-tfvars reports as not carried over in "What cannot be carried over"', async () => {
    const section = GUIDE.slice(GUIDE.indexOf('## What cannot be carried over'));
    const file = path.join(OLD_TOOL, 'environment-lab.tfvars');
    const parsed = await parseTfvars(file, fs.readFileSync(file, 'utf8'));
    const conversion = convertTfvars(parsed.values, { fileBases: [OLD_TOOL], sourceName: 'environment-lab.tfvars' });
    const reported = conversion.outcomes.filter((o) => o.status === 'reported').map((o) => o.key);
    expect(reported.length).toBeGreaterThan(5);
    expect(reported.filter((k) => !section.includes(`\`${k}`))).toEqual([]);
  });
});
