/**
 * The bookkeeping of one conversion: the environment being written, its comments, and for every
 * key of the old file where it went or why it did not. The sections build on it.
 */
import { z } from 'zod';
import { DEFAULT_CONTROLLER_VERSIONS } from '../../../config/versions';
import { ConvertOptions, FieldComment, FieldPath, TfvarsConversion } from './conversion-types';
import { Checked, schemaProblem, unusable } from './values';

export type Obj = Record<string, unknown>;

/** The old tool's only workload cluster. */
export const DEFAULT_CLUSTER_NAME = 'testcluster';

export abstract class ConversionRecord {
  protected readonly env: Obj = {
    prefix: undefined,
    availabilityZone: undefined,
    cloud: {},
    network: {},
    management: {},
    proxy: {},
    registryMirrors: undefined,
    versions: {},
    clusters: {},
  };
  protected readonly comments: FieldComment[] = [];
  protected readonly notes = new Map<string, string[]>();
  protected readonly handled = new Set<string>();
  protected readonly fields = new Map<string, string[]>();
  protected readonly sameAsDefault = new Map<string, string>();
  protected clusterApi: string = DEFAULT_CONTROLLER_VERSIONS.clusterApi;
  protected clusterName = DEFAULT_CLUSTER_NAME;

  constructor(
    protected readonly values: Record<string, unknown>,
    protected readonly options: ConvertOptions,
  ) {}

  /** The conversion, once every section ran: unknown keys reported, empty maps dropped. */
  protected result(): TfvarsConversion {
    for (const key of Object.keys(this.values)) {
      if (!this.handled.has(key)) {
        this.handled.add(key);
        this.report(key, 'unknown setting (not one of the old tool\'s variables; misspelt?): not carried over');
      }
    }
    prune(this.env, []);
    return {
      environment: this.env,
      comments: this.comments,
      clusterName: this.clusterName,
      outcomes: Object.keys(this.values).map((key) => {
        const notes = this.notes.get(key) ?? [];
        const fields = this.fields.get(key) ?? [];
        const same = notes.length === 0 && fields.length === 0 ? this.sameAsDefault.get(key) : undefined;
        return { key, status: notes.length > 0 ? 'reported' : 'carried', notes, fields, ...(same ? { sameAsDefault: same } : {}) };
      }),
    };
  }

  /** Marks the key handled and returns its value; unusable values (placeholders, expressions, null) are reported and return undefined. */
  protected take(key: string): unknown {
    if (!(key in this.values)) return undefined;
    this.handled.add(key);
    const value = this.values[key];
    if (value === null) {
      this.sameAsDefault.set(key, 'null: the default applies');
      return undefined;
    }
    const why = unusable(value);
    if (why) {
      this.report(key, `${why}: not carried over, the default applies`);
      return undefined;
    }
    return value;
  }

  protected report(key: string, note: string): void {
    this.handled.add(key);
    const list = this.notes.get(key) ?? [];
    list.push(note);
    this.notes.set(key, list);
  }

  /**
   * Writes a field. `key`: the old setting it comes from (recorded, and an inline `old <key>`
   * comment unless `comment` says otherwise: a text, or false for none).
   */
  protected set(at: FieldPath, value: unknown, key?: string, comment?: string | false): void {
    let obj = this.env as Record<string | number, unknown>;
    for (const k of at.slice(0, -1)) {
      if (obj[k] === undefined) obj[k] = typeof k === 'number' ? [] : {};
      obj = obj[k] as Record<string | number, unknown>;
    }
    obj[at[at.length - 1]] = value;
    if (key) this.mapped(key, at);
    const text = comment === undefined ? (key ? `old ${key}` : undefined) : comment || undefined;
    if (text) this.comment(at, text, true);
  }

  protected mapped(key: string, at: FieldPath): void {
    const list = this.fields.get(key) ?? [];
    list.push(at.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join(''));
    this.fields.set(key, list);
  }

  protected comment(at: FieldPath, text: string, inline = false): void {
    this.comments.push({ path: at, text, inline });
  }

  /** Reads, converts and validates one value; reports and returns undefined when it does not fit. */
  protected read<T>(key: string, convert: (v: unknown) => Checked<T>, schema?: z.ZodType): T | undefined {
    const raw = this.take(key);
    if (raw === undefined) return undefined;
    const c = convert(raw);
    if (!c.ok) {
      this.report(key, `${c.reason}: not carried over, the default applies`);
      return undefined;
    }
    const problem = schema ? schemaProblem(schema, c.value) : undefined;
    if (problem) {
      this.report(key, `${problem}: not carried over, the default applies`);
      return undefined;
    }
    return c.value;
  }

  /** One old key → one field. */
  protected simple<T>(key: string, at: FieldPath, convert: (v: unknown) => Checked<T>, schema: z.ZodType): T | undefined {
    const v = this.read(key, convert, schema);
    if (v !== undefined) this.set(at, v, key);
    return v;
  }

  protected get c(): FieldPath {
    return ['clusters', this.clusterName];
  }
}

/** Drops undefined values and empty maps (a cluster entry stays even when empty: it means "all defaults"). */
function prune(obj: Obj, at: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) {
      delete obj[k];
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      prune(v as Obj, [...at, k]);
      const isClusterEntry = at.length === 1 && at[0] === 'clusters';
      if (Object.keys(v).length === 0 && !isClusterEntry && !(at.length === 0 && k === 'cloud')) delete obj[k];
    }
  }
}
