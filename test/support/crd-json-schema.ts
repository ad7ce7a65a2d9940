/**
 * Kubernetes structural schemas as JSON Schema for ajv: the conversion (int-or-string, embedded
 * resources, list types, ObjectMeta, formats) that crd-validator.ts applies to the committed CRDs.
 */
import Ajv, { ErrorObject, FormatDefinition } from 'ajv';

export type K8sSchema = Record<string, any>;
export type JsonSchema = Record<string, any>;

const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
// Label key: optional DNS subdomain prefix (max 253) + "/" + name (max 63, alnum at both ends).
const LABEL_KEY = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';
const LABEL_VALUE = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

const OBJECT_META: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 253, pattern: DNS1123_SUBDOMAIN },
    generateName: { type: 'string' },
    namespace: { type: 'string', maxLength: 63, pattern: DNS1123_LABEL },
    labels: {
      type: 'object',
      propertyNames: { maxLength: 316, pattern: LABEL_KEY },
      additionalProperties: { type: 'string', maxLength: 63, pattern: LABEL_VALUE },
    },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    selfLink: { type: 'string' },
    creationTimestamp: { type: ['string', 'null'] },
    deletionTimestamp: { type: ['string', 'null'] },
    deletionGracePeriodSeconds: { type: 'integer' },
    managedFields: { type: 'array', items: { type: 'object' } },
  },
};

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const FORMATS: Record<string, FormatDefinition<string> | FormatDefinition<number>> = {
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  byte: { type: 'string', validate: (s: string) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) },
  'date-time': {
    type: 'string',
    validate: (s: string) =>
      /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  },
  uuid: { type: 'string', validate: (s: string) => /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(s) },
  ipv4: { type: 'string', validate: (s: string) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s) },
};

const COPIED_KEYWORDS = [
  'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'multipleOf', 'minItems', 'maxItems',
  'uniqueItems', 'minProperties', 'maxProperties', 'required',
];

/**
 * Turns a Kubernetes structural schema into a JSON schema for ajv. `inJunctor`: inside
 * allOf/anyOf/oneOf/not, where structural schemas only carry value validations, so objects there
 * are not closed.
 */
export function toJsonSchema(s: K8sSchema, inJunctor = false, isMetadata = false): JsonSchema {
  if (isMetadata) return mergeMetadata(s);
  const out: JsonSchema = {};
  const nullable = s.nullable === true;
  if (s['x-kubernetes-int-or-string']) {
    out.k8sIntOrString = nullable ? 'nullable' : true;
  } else if (s.type) {
    out.type = nullable ? [s.type, 'null'] : s.type;
  }
  if (Array.isArray(s.enum)) out.enum = nullable && !s.enum.includes(null) ? [...s.enum, null] : s.enum;
  for (const k of COPIED_KEYWORDS) if (s[k] !== undefined) out[k] = s[k];
  if (Array.isArray(s.required) && s.properties) {
    // The API server applies defaults before validating: a required field with a default is
    // filled in when absent, so it is not missing.
    out.required = s.required.filter((name: string) => s.properties[name]?.default === undefined);
    if (out.required.length === 0) delete out.required;
  }
  // OpenAPI 3.0 boolean exclusive bounds -> JSON schema numeric ones.
  if (s.exclusiveMinimum === true && s.minimum !== undefined) {
    out.exclusiveMinimum = s.minimum;
    delete out.minimum;
  }
  if (s.exclusiveMaximum === true && s.maximum !== undefined) {
    out.exclusiveMaximum = s.maximum;
    delete out.maximum;
  }
  if (typeof s.format === 'string' && FORMATS[s.format]) out.format = s.format;

  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (s.properties || embedded) {
    out.properties = {};
    for (const [name, sub] of Object.entries<K8sSchema>(s.properties || {})) {
      out.properties[name] = toJsonSchema(sub, inJunctor, embedded && name === 'metadata');
    }
    if (embedded) {
      out.properties.apiVersion ??= { type: 'string' };
      out.properties.kind ??= { type: 'string' };
      out.properties.metadata ??= OBJECT_META;
    }
  }
  if (s.items && typeof s.items === 'object') out.items = toJsonSchema(s.items, inJunctor);
  if (s.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof s.additionalProperties === 'object' ? toJsonSchema(s.additionalProperties, inJunctor) : s.additionalProperties;
  } else if (s.type === 'object' && !inJunctor && s['x-kubernetes-preserve-unknown-fields'] !== true) {
    // Structural schema: fields not listed are pruned, and rejected under strict field validation.
    out.additionalProperties = false;
  }
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (!Array.isArray(s[j])) continue;
    // int-or-string fields carry anyOf [{type: integer}, {type: string}]: k8sIntOrString covers it.
    if (s['x-kubernetes-int-or-string'] && s[j].every((b: K8sSchema) => Object.keys(b).join() === 'type')) continue;
    out[j] = s[j].map((sub: K8sSchema) => toJsonSchema(sub, true));
  }
  if (s.not) out.not = toJsonSchema(s.not, true);
  if (s['x-kubernetes-list-type'] === 'set') out.uniqueItems = true;
  if (s['x-kubernetes-list-type'] === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) {
    out.k8sListMapKeys = s['x-kubernetes-list-map-keys'];
  }
  return out;
}

/** ObjectMeta, plus whatever the CRD itself says about metadata (e.g. a name pattern). */
export function mergeMetadata(s: K8sSchema): JsonSchema {
  const out: JsonSchema = JSON.parse(JSON.stringify(OBJECT_META));
  for (const [name, sub] of Object.entries<K8sSchema>(s.properties || {})) {
    const extra = toJsonSchema(sub);
    out.properties[name] = out.properties[name] ? { allOf: [out.properties[name], extra] } : extra;
  }
  return out;
}

let ajv: Ajv | undefined;
export function getAjv(): Ajv {
  if (ajv) return ajv;
  // optimize: false: code generation of these large schemas is ~3x faster without the optimizer.
  ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false, validateFormats: true, code: { optimize: false } });
  for (const [name, f] of Object.entries(FORMATS)) ajv.addFormat(name, f);
  ajv.addKeyword({
    keyword: 'k8sIntOrString',
    errors: true,
    validate: function intOrString(mode: true | 'nullable', data: unknown): boolean {
      const ok = Number.isInteger(data) || typeof data === 'string' || (mode === 'nullable' && data === null);
      if (!ok) {
        (intOrString as any).errors = [
          { keyword: 'k8sIntOrString', message: `must be an integer or a string (got ${describeValue(data)})`, params: {} },
        ];
      }
      return ok;
    },
  });
  ajv.addKeyword({
    keyword: 'k8sListMapKeys',
    type: 'array',
    errors: true,
    validate: function listMapKeys(keys: string[], data: unknown[], _parent?: unknown, cxt?: { instancePath: string }): boolean {
      const seen = new Map<string, number>();
      const errors: Partial<ErrorObject>[] = [];
      data.forEach((item, i) => {
        if (!item || typeof item !== 'object') return;
        const id = JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k] ?? null));
        const first = seen.get(id);
        if (first !== undefined) {
          errors.push({
            keyword: 'k8sListMapKeys',
            instancePath: `${cxt?.instancePath ?? ''}/${i}`,
            message: `duplicate entry: same ${keys.join('+')} ${id} as item ${first}`,
            params: {},
          });
        } else {
          seen.set(id, i);
        }
      });
      if (errors.length) (listMapKeys as any).errors = errors;
      return errors.length === 0;
    },
  });
  return ajv;
}

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? `integer ${v}` : `number ${v}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return typeof v;
}
