/**
 * No string of an environment file becomes a Terraform expression. The fields come from the JSON
 * Schema of environment files (generated from the zod schema), so a new string field is planted
 * into by itself. For each field and each payload: `validate` refuses it with a message naming the
 * field, or the synthesized stacks hold no live `${`/`%{` that a plain synth does not (escaped
 * `$${` and `%%{` are literal text to Terraform and fine).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse, stringify } from 'yaml';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { formatPath } from '../../lib/config/errors';
import { environmentJsonSchema } from '../../lib/config/json-schema';
import { ROOT } from '../app/synthesize';
import { TEST_CA_PEM } from '../capi/fixtures';
import { synthEnvironment } from '../stacks/support';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'synth-snapshot', 'environments');
const PAYLOADS = ['${file("/etc/hostname")}', '%{ if true }x%{ endif }', '${path.cwd}', '%{endif}'];
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';
/** Lists of objects the fixtures leave out, so their fields have an item to be planted into. */
const FULL_EXTRAS = {
  stateBackend: { endpoint: 'https://s3.snap.test', bucket: 'snap-state', keyPrefix: 'snap/x', region: 'RegionTwo' },
  registryMirrors: [{ registry: 'ghcr.io', endpoints: ['https://ghcr-mirror.snap.test'] }],
  chartRepository: { url: 'oci://charts.snap.test/mirror' },
};
/** Fields that exclude another one the fixtures set: planting one drops the other. */
const EXCLUSIVE: Record<string, string> = { 'network.externalNetworkName': 'externalNetworkId' };
const ALPHA_EXTRAS = { applicationCredentialRoles: ['member'], applicationCredentialAccessRules: [{ service: 'compute', method: 'GET', path: '/v2.1/servers' }] };

type Key = string | number;
/** A string the schema allows: a field's value, or the key of a mapping (`key: true`). */
interface StringSite {
  readonly path: readonly Key[];
  readonly key: boolean;
}

/** Every string site of the JSON Schema; mappings get a key "planted", lists their item 0, clusters "alpha". */
function stringSites(node: Record<string, any>, at: Key[] = []): StringSite[] {
  const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap((b: Record<string, any>) => stringSites(b, at));
  if (node.type === 'string' && !node.enum && node.const === undefined) return [...branches, { path: at, key: false }];
  if (node.type === 'array' && node.items) return [...branches, ...stringSites(node.items, [...at, 0])];
  if (node.type !== 'object') return branches;
  const props = Object.entries(node.properties ?? {}).flatMap(([k, v]) => stringSites(v as Record<string, any>, [...at, k]));
  const extra = node.additionalProperties;
  const record = extra && typeof extra === 'object' ? [{ path: at, key: true }, ...stringSites(extra, [...at, at.length === 1 && at[0] === 'clusters' ? 'alpha' : 'planted'])] : [];
  return [...branches, ...props, ...record];
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

function baseFor(site: StringSite): { file: string; data: Record<string, any> } {
  if (site.path[0] === 'existingManagementCluster') return { file: path.join(FIXTURES, 'byo.yaml'), data: parse(fs.readFileSync(path.join(FIXTURES, 'byo.yaml'), 'utf8')) };
  const data = parse(fs.readFileSync(path.join(FIXTURES, 'full.yaml'), 'utf8'));
  data.registryMirrors.push(...clone(FULL_EXTRAS.registryMirrors));
  Object.assign(data.clusters.alpha, clone(ALPHA_EXTRAS));
  return { file: path.join(FIXTURES, 'full.yaml'), data: { ...data, stateBackend: clone(FULL_EXTRAS.stateBackend), chartRepository: clone(FULL_EXTRAS.chartRepository) } };
}

/** Sets the site to `value` (as a key: a new key with a harmless value), making missing mappings. */
function plant(data: Record<string, any>, site: StringSite, value: string): void {
  let node: any = data;
  const parents = site.key ? site.path : site.path.slice(0, -1);
  parents.forEach((k, i) => {
    if (node[k] === undefined || typeof node[k] !== 'object') {
      if (typeof k === 'number') throw new Error(`no item to plant into at ${formatPath(site.path)}: add one to the extras of this test`);
      node[k] = typeof site.path[i + 1] === 'number' ? [] : {};
    }
    node = node[k];
  });
  const last = site.path[site.path.length - 1];
  delete node[EXCLUSIVE[formatPath(site.path)]];
  if (site.key) node[value] = site.path.length === 1 && site.path[0] === 'clusters' ? {} : 'x';
  else if (last === 'sshPublicKey') node[last] = `${SSH_KEY} ops ${value}`;
  else node[last] = value;
}

/** The start of every expression Terraform would evaluate in the strings of `json` (`$${` and `%%{` are literal). */
function liveExpressions(json: unknown, out = new Set<string>()): Set<string> {
  if (typeof json === 'string') {
    for (let i = 0; i < json.length; i++) {
      if ((json[i] === '$' || json[i] === '%') && json[i + 1] === json[i] && json[i + 2] === '{') i += 2;
      else if ((json[i] === '$' || json[i] === '%') && json[i + 1] === '{') out.add(json.slice(i, i + 40));
    }
  } else if (Array.isArray(json)) json.forEach((v) => liveExpressions(v, out));
  else if (json && typeof json === 'object') for (const [k, v] of Object.entries(json)) (liveExpressions(k, out), liveExpressions(v, out));
  return out;
}

function synthLive(file: string, data: Record<string, any>): Set<string> {
  const previous = process.cwd();
  process.chdir(path.dirname(file)); // the fixtures' relative paths (kubeconfig) resolve from their folder
  try {
    return liveExpressions(synthEnvironment(parseEnvironment(stringify(data), file)).json);
  } finally {
    process.chdir(previous);
  }
}

function validates(file: string, data: Record<string, any>): boolean {
  try {
    parseEnvironment(stringify(data), file);
    return true;
  } catch (e) {
    if (e instanceof EnvironmentConfigError) return false;
    throw e;
  }
}

const SITES = stringSites(environmentJsonSchema('input') as Record<string, any>);
const label = (s: StringSite) => `${formatPath(s.path)}${s.key ? ' (a key)' : ''}`;

test('the schema walk finds the string fields (the walk itself works)', () => {
  const labels = SITES.map(label);
  for (const expected of ['cloud.region', 'management.metadata (a key)', 'management.metadata.planted', 'clusters.alpha.nodeGroups[0].labels (a key)', 'stateBackend.region', 'clusters.alpha.addons.cni.version']) {
    expect(labels).toContain(expected);
  }
  expect(SITES.length).toBeGreaterThan(60);
});

describe.each(PAYLOADS)('payload %s', (payload) => {
  const accepted: StringSite[] = [];

  test('every string field: refused naming the field, or accepted', () => {
    const wrongMessages: string[] = [];
    for (const site of SITES) {
      const { file, data } = baseFor(site);
      plant(data, site, payload);
      try {
        parseEnvironment(stringify(data), file);
        accepted.push(site);
      } catch (e) {
        if (!(e instanceof EnvironmentConfigError)) throw e;
        const field = formatPath(site.path);
        if (!e.message.includes(`${field}`) && !e.message.includes(`${field.replace(/\[0\]$/, '')}`)) wrongMessages.push(`${label(site)}: ${e.message}`);
      }
    }
    expect(wrongMessages).toEqual([]);
  });

  test('what validate accepts stays literal text in every stack', () => {
    // free text is accepted and escaped (the check is not vacuous)
    expect(accepted.map(label)).toEqual(expect.arrayContaining(['management.metadata (a key)', 'management.metadata.planted', 'existingManagementCluster.context']));
    const byBase = new Map<string, StringSite[]>();
    for (const s of accepted) byBase.set(baseFor(s).file, [...(byBase.get(baseFor(s).file) ?? []), s]);
    const live: string[] = [];
    for (const [file, sites] of byBase) {
      const base = baseFor(sites[0]);
      const baseline = synthLive(file, base.data);
      // the accepted fields that can coexist at once, the others alone; one by one only to name a culprit
      const all = clone(base.data);
      const alone: StringSite[] = [];
      for (const s of sites) {
        const next = clone(all);
        plant(next, s, payload);
        if (validates(file, next)) plant(all, s, payload);
        else alone.push(s);
      }
      const suspects = [...synthLive(file, all)].some((x) => !baseline.has(x)) ? sites : alone;
      for (const s of suspects) {
        const one = baseFor(s).data;
        plant(one, s, payload);
        const found = [...synthLive(file, one)].filter((x) => !baseline.has(x));
        if (found.length > 0) live.push(`${label(s)}: ${found.join(' | ')}`);
      }
    }
    expect(live).toEqual([]);
  });
});

test('the text of every CA file field: what surrounds the certificate never reaches Terraform', () => {
  const caSites = SITES.filter((s) => !s.key && /^(c|trustedC)aCertificateFile$/.test(String(s.path[s.path.length - 1])));
  expect(caSites.map(label)).toEqual(['cloud.caCertificateFile', 'management.trustedCaCertificateFile', 'registryMirrors[0].caCertificateFile', 'chartRepository.caCertificateFile']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-syntax-'));
  try {
    const ca = path.join(dir, 'ca.pem');
    fs.writeFileSync(ca, `${PAYLOADS.join('\n')}\n${TEST_CA_PEM}${PAYLOADS.join(' ')}\n`);
    const { file, data } = baseFor(caSites[0]);
    const baseline = synthLive(file, data);
    for (const s of caSites) plant(data, s, ca);
    expect([...synthLive(file, data)].filter((x) => !baseline.has(x))).toEqual([]);
    expect(parseEnvironment(stringify(data), file).cloud.caCertificatePem).toBe(TEST_CA_PEM);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
