/**
 * Checks synthesized Terraform JSON against the pinned provider schemas in schemas/providers
 * (output of `terraform providers schema -json`): unknown attributes, wrong types, missing
 * required arguments, computed-only attributes set, block nesting and item counts.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

type AttrType = string | [string, AttrType] | ['object', Record<string, AttrType>];

interface SchemaAttribute {
  type?: AttrType;
  nested_type?: { attributes: Record<string, SchemaAttribute>; nesting_mode: string };
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
}

interface SchemaBlock {
  attributes?: Record<string, SchemaAttribute>;
  block_types?: Record<string, { nesting_mode: string; block: SchemaBlock; min_items?: number; max_items?: number }>;
}

interface ProviderSchemas {
  provider: SchemaBlock;
  resource: Record<string, SchemaBlock>;
  data: Record<string, SchemaBlock>;
}

const SCHEMA_DIR = path.join(__dirname, '..', '..', 'schemas', 'providers');
const RESOURCE_META = new Set(['depends_on', 'count', 'for_each', 'provider', 'lifecycle', 'provisioner', 'connection', '//']);

let cache: ProviderSchemas | undefined;

/** All resource and data source schemas of the pinned providers, merged (type names are unique). */
export function loadProviderSchemas(dir = SCHEMA_DIR): ProviderSchemas {
  if (cache) return cache;
  const merged: ProviderSchemas = { provider: {}, resource: {}, data: {} };
  const providers: Record<string, SchemaBlock> = {};
  for (const file of fs.readdirSync(dir)) {
    if (!/\.json(\.gz)?$/.test(file) || file.startsWith('versions')) continue;
    const raw = fs.readFileSync(path.join(dir, file));
    const json = JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8'));
    for (const [source, s] of Object.entries<any>(json.provider_schemas ?? {})) {
      providers[source.split('/').pop()!] = s.provider.block;
      for (const [t, r] of Object.entries<any>(s.resource_schemas ?? {})) merged.resource[t] = r.block;
      for (const [t, d] of Object.entries<any>(s.data_source_schemas ?? {})) merged.data[t] = d.block;
    }
  }
  merged.provider = { block_types: Object.fromEntries(Object.entries(providers).map(([k, b]) => [k, { nesting_mode: 'list', block: b }])) };
  cache = merged;
  return merged;
}

const isExpression = (v: unknown) => typeof v === 'string' && v.includes('${');

function checkType(type: AttrType | undefined, value: unknown, where: string, errors: string[]): void {
  if (type === undefined || value === null || isExpression(value)) return;
  if (typeof type === 'string') {
    const ok =
      type === 'dynamic' ||
      (type === 'string' && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) ||
      (type === 'number' && (typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)))) ||
      (type === 'bool' && (typeof value === 'boolean' || value === 'true' || value === 'false'));
    if (!ok) errors.push(`${where}: expected ${type}, found ${JSON.stringify(value)}`);
    return;
  }
  const [kind, inner] = type;
  if (kind === 'list' || kind === 'set') {
    if (!Array.isArray(value)) errors.push(`${where}: expected ${kind}, found ${JSON.stringify(value)}`);
    else value.forEach((v, i) => checkType(inner as AttrType, v, `${where}[${i}]`, errors));
  } else if (kind === 'map') {
    if (typeof value !== 'object' || Array.isArray(value)) errors.push(`${where}: expected map, found ${JSON.stringify(value)}`);
    else for (const [k, v] of Object.entries(value as object)) checkType(inner as AttrType, v, `${where}.${k}`, errors);
  } else if (kind === 'object') {
    if (typeof value !== 'object' || Array.isArray(value)) errors.push(`${where}: expected object, found ${JSON.stringify(value)}`);
    else
      for (const [k, v] of Object.entries(value as object)) {
        const fields = inner as Record<string, AttrType>;
        if (!(k in fields)) errors.push(`${where}: unknown attribute "${k}"`);
        else checkType(fields[k], v, `${where}.${k}`, errors);
      }
  }
}

function checkBlock(block: SchemaBlock, body: Record<string, unknown>, where: string, errors: string[], meta: Set<string> = new Set()): void {
  const attrs = block.attributes ?? {};
  const blocks = block.block_types ?? {};
  for (const [key, value] of Object.entries(body)) {
    if (meta.has(key)) continue;
    const attr = attrs[key];
    const nested = blocks[key];
    if (attr) {
      if (attr.computed && !attr.optional && !attr.required) errors.push(`${where}.${key}: attribute is computed-only and cannot be set`);
      if (attr.nested_type) {
        const items = Array.isArray(value) ? value : [value];
        items.forEach((item, i) => !isExpression(item) && checkBlock({ attributes: attr.nested_type!.attributes }, item as Record<string, unknown>, `${where}.${key}[${i}]`, errors));
      } else checkType(attr.type, value, `${where}.${key}`, errors);
    } else if (nested) {
      if (isExpression(value)) continue;
      const items = Array.isArray(value) ? value : [value];
      if (nested.max_items && items.length > nested.max_items) errors.push(`${where}.${key}: at most ${nested.max_items} block(s), found ${items.length}`);
      if (nested.min_items && items.length < nested.min_items) errors.push(`${where}.${key}: at least ${nested.min_items} block(s), found ${items.length}`);
      items.forEach((item, i) => checkBlock(nested.block, item as Record<string, unknown>, `${where}.${key}[${i}]`, errors));
    } else {
      errors.push(`${where}: unknown attribute or block "${key}"`);
    }
  }
  for (const [key, attr] of Object.entries(attrs)) {
    if (attr.required && !(key in body)) errors.push(`${where}: missing required argument "${key}"`);
  }
  for (const [key, nested] of Object.entries(blocks)) {
    if (nested.min_items && !(key in body)) errors.push(`${where}: missing required block "${key}"`);
  }
}

/** Returns every problem of one synthesized stack (cdk.tf.json); empty = valid. */
export function validateStackJson(stack: any, schemas = loadProviderSchemas()): string[] {
  const errors: string[] = [];
  for (const [kind, byType] of [['resource', stack.resource ?? {}], ['data', stack.data ?? {}]] as const) {
    for (const [type, byName] of Object.entries<any>(byType)) {
      if (type === 'terraform_data' || type === 'terraform_remote_state') continue; // built into Terraform
      const schema = kind === 'resource' ? schemas.resource[type] : schemas.data[type];
      if (!schema) {
        errors.push(`${kind}.${type}: no such ${kind === 'resource' ? 'resource' : 'data source'} in the pinned providers`);
        continue;
      }
      for (const [name, body] of Object.entries<any>(byName)) checkBlock(schema, body, `${kind}.${type}.${name}`, errors, RESOURCE_META);
    }
  }
  for (const [providerName, configs] of Object.entries<any>(stack.provider ?? {})) {
    const block = schemas.provider.block_types?.[providerName]?.block;
    if (!block) {
      errors.push(`provider.${providerName}: not a pinned provider`);
      continue;
    }
    (configs as any[]).forEach((c, i) => checkBlock(block, c, `provider.${providerName}[${i}]`, errors, new Set(['alias'])));
  }
  return errors;
}
