#!/usr/bin/env node
/**
 * Renders docs/settings.md, the reference of every environment-file field, from the JSON Schema of
 * environment files (environments/environment.schema.json, itself generated from lib/config by
 * `npm run schema`). Pure rendering: `renderSettingsReference(schema)` returns the Markdown.
 *
 * Usage:
 *   node scripts/docs/settings-reference.js [--schema <file> | --from-dist] [--out <file>] [--check]
 *     --schema <file>  JSON Schema to read (default: environments/environment.schema.json)
 *     --from-dist      use the compiled schema (dist/lib/config/json-schema.js; run `npm run build` first)
 *     --out <file>     where to write (default: docs/settings.md)
 *     --check          write nothing; exit 1 when the file differs from what would be written
 * test/docs/settings-reference.test.ts runs the same rendering on the schema built from lib/config.
 */
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_SCHEMA = path.join(ROOT, 'environments', 'environment.schema.json');
const DEFAULT_OUT = path.join(ROOT, 'docs', 'settings.md');
// zod writes the safe-integer range for unbounded integers; that is no constraint worth printing.
const SAFE = Number.MAX_SAFE_INTEGER;

/** Inline code that survives GFM table cells (a `|` must be escaped even inside code spans). */
function code(text) {
  const s = String(text);
  const fence = s.includes('`') ? '``' : '`';
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`.replace(/\|/g, '\\|');
}

/** Prose for a table cell: no line breaks, pipes escaped, `<...>` outside code spans kept as text. */
function cell(text) {
  return String(text)
    .replace(/\r?\n/g, ' ')
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('')
    .replace(/\|/g, '\\|')
    .trim();
}

function json(value) {
  return code(JSON.stringify(value));
}

/** The object branch of a `boolean | object` toggle, or of any anyOf; undefined when there is none. */
function objectBranch(schema) {
  return (schema.anyOf || []).find((s) => s.type === 'object' && s.properties);
}

function isMap(schema) {
  return schema.type === 'object' && !schema.properties && schema.additionalProperties && typeof schema.additionalProperties === 'object';
}

function typeName(schema) {
  if (schema.anyOf) {
    const names = schema.anyOf.map(typeName);
    // `string | "none"` reads better as just the two alternatives without repeating string twice.
    return [...new Set(names)].join(' \\| ');
  }
  if (schema.const !== undefined) return json(schema.const);
  if (schema.enum) return schema.type || 'enum';
  if (schema.type === 'array') return `list of ${schema.items ? typeName(schema.items) : 'any'}`;
  if (isMap(schema)) return `map of ${typeName(schema.additionalProperties)}`;
  if (schema.type === 'object') return 'object';
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  return schema.type || 'any';
}

/** Plain constraints of one (non-composite) schema, as short phrases. */
function ownConstraints(schema) {
  const out = [];
  if (schema.enum) out.push(`one of ${schema.enum.map((v) => json(v)).join(', ')}`);
  if (schema.format) out.push(`format ${code(schema.format)}`);
  if (schema.pattern) out.push(`pattern ${code(schema.pattern)}`);
  if (schema.minLength !== undefined && schema.maxLength !== undefined) out.push(`${schema.minLength}–${schema.maxLength} characters`);
  else if (schema.minLength === 1) out.push('not empty');
  else if (schema.minLength !== undefined) out.push(`at least ${schema.minLength} characters`);
  else if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  const min = schema.minimum !== undefined && Math.abs(schema.minimum) < SAFE ? schema.minimum : undefined;
  const max = schema.maximum !== undefined && Math.abs(schema.maximum) < SAFE ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) out.push(`${min} to ${max}`);
  else if (min !== undefined) out.push(`at least ${min}`);
  else if (max !== undefined) out.push(`at most ${max}`);
  if (schema.exclusiveMinimum !== undefined) out.push(`more than ${schema.exclusiveMinimum}`);
  if (schema.exclusiveMaximum !== undefined) out.push(`less than ${schema.exclusiveMaximum}`);
  if (schema.multipleOf !== undefined) out.push(`multiple of ${schema.multipleOf}`);
  if (schema.minItems !== undefined) out.push(`at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems} items`);
  if (schema.uniqueItems) out.push('no duplicates');
  if (schema.examples) out.push(`e.g. ${schema.examples.map((v) => (typeof v === 'string' ? code(v) : json(v))).join(', ')}`);
  return out;
}

function constraints(schema, required) {
  const out = required ? ['required'] : [];
  out.push(...ownConstraints(schema));
  if (schema.type === 'array' && schema.items && !(schema.items.type === 'object' && schema.items.properties)) {
    const items = schema.items.anyOf ? schema.items.anyOf.flatMap(ownConstraints) : ownConstraints(schema.items);
    if (items.length > 0) out.push(`items: ${items.join(', ')}`);
  }
  if (isMap(schema) || (schema.type === 'object' && schema.propertyNames)) {
    const keys = schema.propertyNames ? ownConstraints(schema.propertyNames) : [];
    if (keys.length > 0) out.push(`keys: ${keys.join(', ')}`);
    const values = isMap(schema) && !schema.additionalProperties.properties ? ownConstraints(schema.additionalProperties) : [];
    if (values.length > 0) out.push(`values: ${values.join(', ')}`);
  }
  if (schema.anyOf) {
    const branches = schema.anyOf.filter((s) => !(s.type === 'object' && s.properties)).flatMap(ownConstraints);
    out.push(...branches);
  }
  return out;
}

/**
 * Descriptions of fields without a schema default say what happens instead in a sentence
 * "Default: <text>." That sentence moves to the Default column.
 */
function splitDefaultSentence(description) {
  const at = description.indexOf('Default: ');
  if (at < 0) return { description, defaultProse: undefined };
  const rest = description.slice(at + 'Default: '.length);
  const end = /\.(?=\s+[A-Z]|\s*$)/.exec(rest);
  const prose = (end ? rest.slice(0, end.index) : rest).trim();
  const after = end ? rest.slice(end.index + 1).trim() : '';
  return { description: `${description.slice(0, at).trim()} ${after}`.trim(), defaultProse: prose };
}

/** A `boolean | object` toggle whose schema default got lost keeps the default of its `enabled` field. */
function effectiveDefault(schema) {
  if (schema.default !== undefined) return schema.default;
  const branch = objectBranch(schema);
  const enabled = branch && branch.properties.enabled;
  if (enabled && enabled.default !== undefined && schema.anyOf.some((s) => s.type === 'boolean')) return enabled.default;
  return undefined;
}

function defaultText(schema, required, defaultProse) {
  const value = effectiveDefault(schema);
  if (value !== undefined) return json(value);
  if (required) return '—';
  return defaultProse ? cell(defaultProse) : 'unset';
}

/**
 * Sections in document order. A section is an object whose fields are listed in one table:
 * the root, nested objects, list items (`path[]`), map values (`path.<name>`), toggle objects.
 */
function collectSections(schema) {
  const sections = [];
  const visit = (obj, sectionPath, intro) => {
    const section = { path: sectionPath, intro, rows: [] };
    sections.push(section);
    const required = new Set(obj.required || []);
    const nested = [];
    for (const [key, prop] of Object.entries(obj.properties || {})) {
      const fieldPath = sectionPath ? `${sectionPath}.${key}` : key;
      const isRequired = required.has(key);
      section.rows.push({ path: fieldPath, key, schema: prop, required: isRequired });
      if (prop.type === 'object' && prop.properties) {
        nested.push([prop, fieldPath, prop.description]);
      } else if (prop.type === 'array' && prop.items && prop.items.type === 'object' && prop.items.properties) {
        nested.push([prop.items, `${fieldPath}[]`, `One item of ${code(fieldPath)}. ${prop.description || ''}`.trim()]);
      } else if (isMap(prop) && prop.additionalProperties.properties) {
        const keyRule = prop.propertyNames ? ` Keys: ${ownConstraints(prop.propertyNames).join(', ')}.` : '';
        nested.push([prop.additionalProperties, `${fieldPath}.<name>`, `One entry of ${code(fieldPath)}. ${prop.description || ''}${keyRule}`.trim()]);
      } else if (objectBranch(prop)) {
        const others = prop.anyOf.filter((s) => s !== objectBranch(prop)).map(typeName).join(', ');
        nested.push([objectBranch(prop), fieldPath, `${prop.description || ''} Written as an object with the fields below, or as ${others}: ${code('true')} / ${code('false')} are short for ${code('{ enabled: true }')} / ${code('{ enabled: false }')}.`.trim()]);
      }
    }
    for (const [child, childPath, childIntro] of nested) visit(child, childPath, childIntro);
  };
  visit(schema, '', schema.description);
  return sections;
}

function anchor(sectionPath) {
  // GitHub's heading anchors: lowercase, punctuation other than - and _ dropped, spaces to -.
  return sectionPath.toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
}

function renderSettingsReference(schema) {
  const sections = collectSections(schema);
  const lines = [];
  lines.push('# Environment file settings');
  lines.push('');
  lines.push('<!-- Generated by scripts/docs/settings-reference.js from environments/environment.schema.json');
  lines.push('     (itself generated from lib/config). Do not edit by hand: run `npm run schema` and then');
  lines.push('     `node scripts/docs/settings-reference.js`. test/docs/settings-reference.test.ts fails when stale. -->');
  lines.push('');
  lines.push('Every field of `environments/<name>.yaml`. The file name is the environment name; the stacks of an');
  lines.push("environment are `<name>-management` and `<name>-<cluster>` (see [concepts](concepts.md)). Add");
  lines.push('`# yaml-language-server: $schema=./environment.schema.json` as the first line and editors complete and');
  lines.push('check the fields as you type; `capi-openstack validate <name>` runs the full checks, including the');
  lines.push('cross-field ones this table cannot show (overlapping CIDRs, version compatibility, counts).');
  lines.push('');
  lines.push('Notation: `a.b` is field `b` inside object `a`; `a[]` is one item of list `a`; `a.<name>` is one');
  lines.push('entry of map `a`, keyed by a name you choose. **Default** is what applies when the field is left');
  lines.push('out: a value in code is the literal default, prose says what is used instead (`unset`: nothing is');
  lines.push('set); `{}` on an object means every field inside gets its own default. Objects accept no keys other than the ones listed, so a');
  lines.push('misspelt key is an error, not a silently ignored setting.');
  lines.push('');
  lines.push('Coming from the old terraform + Makefile tool? The [migration guide](migration.md) maps every');
  lines.push('old tfvars setting to its field here.');
  lines.push('');
  lines.push('## Contents');
  lines.push('');
  for (const s of sections) {
    const title = s.path ? code(s.path) : 'Top level';
    lines.push(`- [${title.replace(/\\\|/g, '|')}](#${anchor(s.path || 'Top level')})`);
  }
  for (const s of sections) {
    lines.push('');
    lines.push(`## ${s.path ? code(s.path) : 'Top level'}`);
    lines.push('');
    if (s.intro) {
      lines.push(cell(s.intro));
      lines.push('');
    }
    lines.push('| Field | Type | Default | Description | Constraints |');
    lines.push('|---|---|---|---|---|');
    for (const row of s.rows) {
      const split = effectiveDefault(row.schema) === undefined ? splitDefaultSentence(row.schema.description || '') : { description: row.schema.description || '', defaultProse: undefined };
      const desc = split.description;
      const more = row.schema.type === 'object' && row.schema.properties
        ? ` See [${code(row.path)}](#${anchor(row.path)}).`
        : row.schema.type === 'array' && row.schema.items && row.schema.items.properties
          ? ` See [${code(`${row.path}[]`)}](#${anchor(`${row.path}[]`)}).`
          : isMap(row.schema) && row.schema.additionalProperties.properties
            ? ` See [${code(`${row.path}.<name>`)}](#${anchor(`${row.path}.<name>`)}).`
            : objectBranch(row.schema)
              ? ` See [${code(row.path)}](#${anchor(row.path)}).`
              : '';
      const cons = constraints(row.schema, row.required);
      lines.push(
        `| ${code(row.path)} | ${typeName(row.schema)} | ${defaultText(row.schema, row.required, split.defaultProse)} | ${desc ? cell(desc) : '—'}${more} | ${cons.length > 0 ? cons.join('; ') : '—'} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new Error(`${name} needs a value`);
    return argv[i + 1];
  };
  const known = new Set(['--schema', '--from-dist', '--out', '--check', '--help']);
  for (const a of argv) {
    if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a} (see --help)`);
  }
  if (argv.includes('--help')) {
    process.stdout.write('Usage: node scripts/docs/settings-reference.js [--schema <file> | --from-dist] [--out <file>] [--check]\n');
    return 0;
  }
  let schema;
  let source;
  if (argv.includes('--from-dist')) {
    const compiled = path.join(ROOT, 'dist', 'lib', 'config', 'json-schema.js');
    if (!fs.existsSync(compiled)) throw new Error(`${path.relative(process.cwd(), compiled)} not found: run \`npm run build\` first`);
    schema = require(compiled).environmentJsonSchema();
    source = 'dist/lib/config/json-schema.js';
  } else {
    const file = path.resolve(arg('--schema') || DEFAULT_SCHEMA);
    if (!fs.existsSync(file)) throw new Error(`${file} not found: run \`npm run schema\` first`);
    schema = JSON.parse(fs.readFileSync(file, 'utf8'));
    source = path.relative(process.cwd(), file);
  }
  const out = path.resolve(arg('--out') || DEFAULT_OUT);
  const text = renderSettingsReference(schema);
  const rel = path.relative(process.cwd(), out);
  if (argv.includes('--check')) {
    const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined;
    if (current === text) {
      process.stdout.write(`${rel} is up to date with ${source}\n`);
      return 0;
    }
    process.stderr.write(`${rel} is stale (differs from the rendering of ${source}): run node scripts/docs/settings-reference.js\n`);
    return 1;
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, text);
  process.stdout.write(`wrote ${rel} from ${source}\n`);
  return 0;
}

module.exports = { renderSettingsReference };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`settings-reference: ${e.message}\n`);
    process.exitCode = 1;
  }
}
