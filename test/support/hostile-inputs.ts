/**
 * Seeded generators of hostile input for the loader itself, beside the value classes of
 * hostile-environments.ts: control characters in every string field and key of the schema, anchors
 * defined again or used as keys, every file-path field naming a directory, a FIFO, /dev/zero, a
 * missing or an oversized file, and files around the size limit. With each class, the property an
 * accepted file must still have (HOSTILE_INVARIANTS).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse, stringify } from 'yaml';
import { environmentText, pick, Random, Shape } from './hostile-environments';
import { planted, StringSite, stringSites } from './schema-string-sites';

/** Characters no field takes (C0, DEL, C1, line separators, bidirectional controls, BOM, noncharacters, a lone surrogate). */
export const CONTROL_CHARACTERS = ['\u0000', '\u0007', '\t', '\r', '\u001b', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029', '\u202e', '\u2066', '\ufeff', '\ufffe', '\uffff', '\u{1fffe}', '\ud800'];

/** Free-text places whose plain value is valid: with a control character refused, without it synthesized. */
const FREE_TEXT: readonly ((text: string) => Shape)[] = [
  (t) => ({ management: { metadata: { note: `a${t}b` } } }),
  (t) => ({ management: { metadata: { [`k${t}`]: 'x' } } }),
  (t) => ({ management: { sshPublicKey: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForFuzzingOnly000000000000000000000000 ops@h${t}` } }),
  (t) => ({ proxy: { httpProxy: `http://proxy.example.com:3128/${t}` } }),
  (t) => ({ registryMirrors: [{ registry: 'docker.io', endpoints: [`https://mirror.example.com/v2${t}`] }] }),
  (t) => ({ management: { tools: { baseUrl: `https://mirror.example.com/tools${t}` } } }),
  (t) => ({ cluster: { addons: { cni: { version: `1.18.${t}3` } } } }),
  (t) => ({ cluster: { nodeGroups: [{ name: 'md-0', labels: { team: `a${t}` } }] } }),
];

let sites: StringSite[] | undefined;
let specialFileCase = 0;

/** A file-path field's good content, by the kind of file it names. */
function goodFileFor(field: string): string {
  if (field === 'cloudsFile') return 'clouds:\n  fuzzcloud:\n    auth:\n      auth_url: https://keystone.test:5000/v3\n    region_name: RegionOne\n';
  if (field === 'kubeconfigFile') return 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n';
  return '-----BEGIN CERTIFICATE-----\nMIIBfakeCERT+/=\n-----END CERTIFICATE-----\n';
}

/** Per file-path field: a good file and each kind of path that is none, made once per process. */
const filePaths = new Map<string, Record<string, string>>();
function filePathFixtures(field: string): Record<string, string> {
  const known = filePaths.get(field);
  if (known) return known;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hostile-${field}-`));
  const write = (name: string, content: string) => (fs.writeFileSync(path.join(dir, name), content), path.join(dir, name));
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const good = goodFileFor(field);
  const fixtures = {
    good: write('good', good),
    oversized: write('oversized', `${good}#${'x'.repeat(field === 'kubeconfigFile' ? 4 * 1024 * 1024 : 1024 * 1024)}\n`),
    directory: dir,
    device: '/dev/zero',
    fifo,
    missing: path.join(dir, 'missing'),
    newline: path.join(dir, 'a\nforged: line'),
  };
  filePaths.set(field, fixtures);
  return fixtures;
}

/** Every field of the schema that names a file (a new one is fuzzed without being listed here). */
function fileFields(): StringSite[] {
  return (sites ??= stringSites()).filter((s) => !s.key && /File$/.test(String(s.path[s.path.length - 1])));
}

/** A shape with `value` at a schema site (the environment's own sections, the demo cluster's). */
function shapeAt(site: StringSite, value: string): string {
  const base = parse(environmentText({})) as Record<string, any>;
  const path = site.path[0] === 'clusters' ? ['clusters', 'demo', ...site.path.slice(2)] : site.path;
  return stringify(planted(base, { path, key: site.key }, value), { lineWidth: 0 });
}

/** The loader's input classes, by name (the tier runs them beside HOSTILE_GENERATORS). */
export const INPUT_GENERATORS: Record<string, (r: Random) => string> = {
  /** A control character in a free-text field (or none), or in any string field or key of the schema. */
  controlCharacters: (r: Random) => {
    const character = pick(r, CONTROL_CHARACTERS);
    if (r() < 0.6) return environmentText(pick(r, FREE_TEXT)(r() < 0.5 ? '' : character));
    const site = pick(r, (sites ??= stringSites()));
    return shapeAt(site, site.key ? `k${character}` : `https://a${character}.example.com`);
  },
  /** Anchors used once (fine), defined again (the smuggled duplicate key), or as keys. */
  anchors: (r: Random) => {
    const a = pick(r, ['k', 'a1', 'cidrs', 'x']);
    const text = environmentText({ cluster: { apiAllowedCidrs: ['none'] } });
    switch (pick(r, ['value', 'smuggle', 'redefined', 'aliasKey'])) {
      case 'value':
        return text.replace(/^management:\n {2}apiAllowedCidrs:\n {4}- (\S+)$/m, `management:\n  apiAllowedCidrs: &${a}\n    - $1`).replace(/^ {4}apiAllowedCidrs:\n {6}- none$/m, `    apiAllowedCidrs: *${a}`);
      case 'smuggle':
        return `prefix: &${a} demo\n${text.replace(/^clusters:\n/m, `clusters:\n  ? *${a}\n  : apiAllowedCidrs: ["none"]\n`).replace(/^ {6}- none$/m, '      - 0.0.0.0/0')}versions:\n  clusterApi: &${a} v1.12.10\n`;
      case 'redefined':
        return text.replace(/^ {2}region: RegionOne$/m, `  region: &${a} RegionOne`).replace(/^ {2}externalNetworkName: public$/m, `  externalNetworkName: &${a} public`);
      default:
        return `prefix: &${a} demo\n${text.replace(/^clusters:\n {2}demo:/m, `clusters:\n  ? *${a}\n  :`)}`;
    }
  },
  /**
   * Every file-path field of the schema at once (the kubeconfig in half the cases), each naming a
   * good file but one: case by case each field in turn names a directory, /dev/zero, a FIFO, a
   * missing or oversized file or a name with a newline, then a case where all are good.
   */
  specialFiles: (r: Random) => {
    let data = parse(environmentText({ registryMirrors: [{ registry: 'docker.io', endpoints: ['https://mirror.example.com'] }] })) as Record<string, any>;
    data.chartRepository = { url: 'oci://charts.example.com/mirror' }; // its CA file is one of the fields
    const fields = fileFields();
    // in turn, not at random: eight cases reach every field (a counter; the tier calls a class's cases in order)
    const bad = fields[specialFileCase++ % (fields.length + 1)];
    for (const site of fields) {
      if (site.path[0] === 'existingManagementCluster') {
        if (site !== bad && r() < 0.5) continue;
        // a restricted workload API needs the address the existing management cluster comes from
        data.existingManagementCluster = { egressCidr: '192.0.2.0/24' };
      }
      const fixtures = filePathFixtures(String(site.path[site.path.length - 1]));
      data = planted(data, site, fixtures[site === bad ? pick(r, Object.keys(fixtures).filter((k) => k !== 'good')) : 'good']);
    }
    return stringify(data, { lineWidth: 0 });
  },
  /** Files around the size limit: padded with comments, blank lines or metadata to just under or over 1 MiB. */
  oversized: (r: Random) => {
    const base = environmentText({});
    const room = 1024 * 1024 - Buffer.byteLength(base);
    const target = room + pick(r, [-4096, -2, -1, 1, 2, 4096, 9 * 1024 * 1024]);
    switch (pick(r, ['comment', 'newlines', 'multibyte'])) {
      case 'comment':
        return `${base}#${'x'.repeat(Math.max(0, target - 2))}\n`;
      case 'newlines':
        return `${base}${'\n'.repeat(Math.max(0, target))}`;
      default:
        // three bytes a character: the limit is in bytes, not characters
        return `${base}#${'€'.repeat(Math.max(0, Math.floor((target - 2) / 3)))}\n`;
    }
  },
};

/** Refused characters anywhere in plain data (keys included), escaped. */
export function controlCharactersOf(value: unknown, found: string[] = []): string[] {
  const look = (text: string) => CONTROL_CHARACTERS.filter((c) => text.includes(c)).forEach((c) => found.push(JSON.stringify(c)));
  if (typeof value === 'string') look(value);
  else if (Array.isArray(value)) value.forEach((v) => controlCharactersOf(v, found));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) (look(k), controlCharactersOf(v, found));
  return found;
}

/** File-path fields of an environment as written, by field path. */
function filePathsOf(spec: Record<string, any>): [string, string][] {
  return fileFields().flatMap((site) => {
    let node: any = spec;
    for (const step of site.path) node = node?.[step];
    return typeof node === 'string' ? [[site.path.join('.'), node] as [string, string]] : [];
  });
}

/**
 * What an accepted file of a class must also satisfy, beyond "refused with a line, or synthesized":
 * the property the class attacks. Each returns what is wrong, or nothing.
 */
export const HOSTILE_INVARIANTS: Record<string, (env: { readonly spec: Record<string, any>; readonly file: string }, text: string) => string | undefined> = {
  controlCharacters: (env) => {
    const found = controlCharactersOf(env.spec);
    return found.length > 0 ? `accepted with control characters ${found.join(', ')}` : undefined;
  },
  // every generated cluster is internal-only or reached from the deploy network: an open one came from a smuggled duplicate
  anchors: (env) => {
    const open = Object.entries(env.spec.clusters as Record<string, { apiAllowedCidrs: string[] }>).filter(([, c]) => c.apiAllowedCidrs.length === 0 || c.apiAllowedCidrs.includes('0.0.0.0/0'));
    return open.length > 0 ? `accepted with an open API for ${open.map(([n]) => n).join(', ')}` : undefined;
  },
  specialFiles: (env) => {
    const bad = filePathsOf(env.spec).filter(([, p]) => {
      const stat = fs.statSync(path.resolve(path.dirname(env.file), p), { throwIfNoEntry: false });
      return !stat?.isFile() || stat.size > 4 * 1024 * 1024;
    });
    return bad.length > 0 ? `accepted naming no bounded regular file: ${bad.map(([f, p]) => `${f}=${p}`).join(', ')}` : undefined;
  },
  oversized: (_env, text) => (Buffer.byteLength(text) > 1024 * 1024 ? `accepted a file of ${Buffer.byteLength(text)} bytes` : undefined),
};
