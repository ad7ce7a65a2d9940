/**
 * Every place an environment file holds a string, from the JSON Schema of environment files (itself
 * generated from the zod schema): a new string field is covered by the tests that use this without
 * being listed anywhere. Enumerated strings count too (`interface: public`), and so do the keys of
 * mappings chosen by the operator (clusters, metadata, labels).
 */
import { environmentJsonSchema } from '../../lib/config/json-schema';

type Step = string | number;

/** A string the schema allows: a field's value, or (`key: true`) a key of the mapping at `path`. */
export interface StringSite {
  readonly path: readonly Step[];
  readonly key: boolean;
}

/** Names used for the entries of mappings keyed by the operator. */
const ENTRY = (at: readonly Step[]) => (at.length === 1 && at[0] === 'clusters' ? 'demo' : 'k');

function sitesOf(node: Record<string, any>, at: Step[]): StringSite[] {
  const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap((b: Record<string, any>) => sitesOf(b, at));
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('string') || (Array.isArray(node.enum) && node.enum.some((v: unknown) => typeof v === 'string'))) return [...branches, { path: at, key: false }];
  if (types.includes('array') && node.items) return [...branches, ...sitesOf(node.items, [...at, 0])];
  if (!types.includes('object')) return branches;
  const props = Object.entries(node.properties ?? {}).flatMap(([k, v]) => sitesOf(v as Record<string, any>, [...at, k]));
  const extra = node.additionalProperties;
  const entries = extra && typeof extra === 'object' ? [{ path: at, key: true }, ...sitesOf(extra, [...at, ENTRY(at)])] : [];
  return [...branches, ...props, ...entries];
}

/** Every string site, each once. */
export function stringSites(): StringSite[] {
  const seen = new Set<string>();
  return sitesOf(environmentJsonSchema('input') as Record<string, any>, []).filter((s) => {
    const id = `${s.path.join('\u0000')}|${s.key}`;
    return seen.has(id) ? false : (seen.add(id), true);
  });
}

/**
 * `data` with `value` at the site (as a key: a new entry named `value`), making the mappings and
 * list items on the way; an entry of `clusters` gets an empty cluster, of other mappings "x".
 */
export function planted(data: Record<string, any>, site: StringSite, value: string): Record<string, any> {
  const copy = JSON.parse(JSON.stringify(data)) as Record<string, any>;
  let node: any = copy;
  const parents = site.key ? site.path : site.path.slice(0, -1);
  parents.forEach((step, i) => {
    if (node[step] === undefined || node[step] === null || typeof node[step] !== 'object') node[step] = typeof (site.key ? [...site.path, ''] : site.path)[i + 1] === 'number' ? [] : {};
    node = node[step];
  });
  if (site.key) node[value] = site.path.length === 1 && site.path[0] === 'clusters' ? {} : 'x';
  else node[site.path[site.path.length - 1]] = value;
  return copy;
}
