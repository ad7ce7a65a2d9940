/** How settings-reference.js writes schema facts as Markdown: types, constraints, defaults, table-safe text. */
'use strict';

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

module.exports = { code, cell, json, objectBranch, isMap, typeName, ownConstraints, constraints, splitDefaultSentence, effectiveDefault, defaultText };
