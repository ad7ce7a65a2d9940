/**
 * What a synthesized stack tells the operator commands about the clusters in it: a small JSON the
 * cluster constructs write into the stack's `cdk.tf.json` (under the `//` comment key, which
 * Terraform ignores). The commands find an environment's stacks and their outputs from it, so they
 * work on any stack ids a team picks, and on environments built in code (the record carries the
 * environment's validated settings when no file holds them).
 */

/** The key under `"//"` of a stack's `cdk.tf.json`. */
export const STACK_RECORDS_KEY = 'capi-openstack-cdktf';
/** Version of the format below; a reader refuses records of a newer one. */
export const STACK_RECORDS_VERSION = 1;

/** Outputs a `ManagementCluster` declares (logical names; the record maps them to Terraform output names). */
export const MANAGEMENT_OUTPUTS = ['api_endpoint', 'ca_certificate', 'admin_certificate', 'admin_key', 'kubeconfig', 'floating_ip', 'instance_id'] as const;
/** Outputs a `WorkloadCluster` declares. */
export const WORKLOAD_OUTPUTS = ['namespace', 'kubeconfig_secret', 'api_endpoint', 'application_credential_id', 'kubernetes_version'] as const;

export type ManagementOutput = (typeof MANAGEMENT_OUTPUTS)[number];
export type WorkloadOutput = (typeof WORKLOAD_OUTPUTS)[number];

/** Where an environment's settings come from: its file (relative to the app's directory), or the settings themselves. */
export type EnvironmentSource = { readonly file: string } | { readonly spec: Readonly<Record<string, unknown>> };

export interface ManagementRecord {
  readonly role: 'management';
  readonly environment: string;
  /** Construct path (`<stack>/<id>…`). */
  readonly path: string;
  readonly outputs: Readonly<Record<ManagementOutput, string>>;
}

export interface WorkloadRecord {
  readonly role: 'workload';
  readonly environment: string;
  /** The cluster's name in the environment. */
  readonly cluster: string;
  readonly path: string;
  readonly outputs: Readonly<Record<WorkloadOutput, string>>;
}

export type ClusterRecord = ManagementRecord | WorkloadRecord;

export interface StackRecords {
  readonly version: number;
  /** By environment name. */
  readonly environments: Readonly<Record<string, EnvironmentSource>>;
  readonly clusters: readonly ClusterRecord[];
}

/** The fragment of a stack's JSON that holds its records. */
export function stackRecordsFragment(environments: Readonly<Record<string, EnvironmentSource>>, clusters: readonly ClusterRecord[]): Record<string, unknown> {
  const recorded = Object.fromEntries(Object.entries(environments).map(([name, source]) => [name, 'spec' in source ? { spec: mapStrings(source.spec, escapeTemplates) } : source]));
  return { '//': { [STACK_RECORDS_KEY]: { version: STACK_RECORDS_VERSION, environments: recorded, clusters } } };
}

/**
 * Settings are recorded with Terraform's template sequences escaped (`${` as `$${`, `%{` as `%%{`),
 * as everywhere else in the stack: Terraform ignores the `//` key, but no value of an environment
 * ever stands in the JSON as a live expression. Reading halves them again.
 */
const escapeTemplates = (text: string): string => text.replace(/([$%])(?=\{)/g, '$1$1');
const unescapeTemplates = (text: string): string => text.replace(/([$%])\1(?=\{)/g, '$1');

/** `value` with every string in it (keys included) mapped. */
function mapStrings(value: unknown, f: (text: string) => string): any {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), mapStrings(v, f)]));
}

/** A record that cannot be read: names the stack file and the field. */
export class StackRecordsError extends Error {
  constructor(where: string, field: string, expected: string, found: unknown) {
    super(`${where}: "//".${STACK_RECORDS_KEY}.${field}: expected ${expected}, found ${describe(found)}`);
    this.name = 'StackRecordsError';
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return `a list (${value.length} items)`;
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}

const NAME = /^[A-Za-z0-9_-]{1,255}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The records of a stack's `cdk.tf.json` (parsed), or undefined when the stack has none (stacks
 * without clusters of this library, or synthesized before it wrote records).
 * @throws StackRecordsError when they are there but malformed or of a newer version
 */
export function readStackRecords(stackJson: unknown, where: string): StackRecords | undefined {
  const raw = isObject(stackJson) && isObject(stackJson['//']) ? stackJson['//'][STACK_RECORDS_KEY] : undefined;
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new StackRecordsError(where, '(root)', 'an object', raw);
  if (raw.version !== STACK_RECORDS_VERSION) {
    throw new StackRecordsError(where, 'version', `${STACK_RECORDS_VERSION} (this version of capi-openstack reads no other: synthesize with the same version of the library)`, raw.version);
  }
  if (!isObject(raw.environments)) throw new StackRecordsError(where, 'environments', 'an object', raw.environments);
  const environments: Record<string, EnvironmentSource> = {};
  for (const [name, source] of Object.entries(raw.environments)) {
    const at = `environments.${name}`;
    if (isObject(source) && typeof source.file === 'string' && source.file !== '') environments[name] = { file: source.file };
    else if (isObject(source) && isObject(source.spec)) environments[name] = { spec: mapStrings(source.spec, unescapeTemplates) };
    else throw new StackRecordsError(where, at, '{file} or {spec}', source);
  }
  if (!Array.isArray(raw.clusters)) throw new StackRecordsError(where, 'clusters', 'a list', raw.clusters);
  const clusters = raw.clusters.map((c, i) => clusterRecord(c, where, `clusters[${i}]`, environments));
  return { version: raw.version, environments, clusters };
}

function clusterRecord(raw: unknown, where: string, at: string, environments: Readonly<Record<string, EnvironmentSource>>): ClusterRecord {
  if (!isObject(raw)) throw new StackRecordsError(where, at, 'an object', raw);
  const text = (field: string): string => {
    const v = raw[field];
    if (typeof v !== 'string' || v === '') throw new StackRecordsError(where, `${at}.${field}`, 'a non-empty string', v);
    return v;
  };
  const environment = text('environment');
  if (!(environment in environments)) throw new StackRecordsError(where, `${at}.environment`, `one of the recorded environments (${Object.keys(environments).join(', ') || 'none'})`, environment);
  const outputs = <K extends string>(names: readonly K[]): Record<K, string> => {
    const o = raw.outputs;
    if (!isObject(o)) throw new StackRecordsError(where, `${at}.outputs`, 'an object', o);
    for (const n of names) {
      if (typeof o[n] !== 'string' || !NAME.test(o[n] as string)) throw new StackRecordsError(where, `${at}.outputs.${n}`, 'a Terraform output name', o[n]);
    }
    return Object.fromEntries(names.map((n) => [n, o[n] as string])) as Record<K, string>;
  };
  if (raw.role === 'management') return { role: 'management', environment, path: text('path'), outputs: outputs(MANAGEMENT_OUTPUTS) };
  if (raw.role === 'workload') return { role: 'workload', environment, cluster: text('cluster'), path: text('path'), outputs: outputs(WORKLOAD_OUTPUTS) };
  throw new StackRecordsError(where, `${at}.role`, '"management" or "workload"', raw.role);
}
