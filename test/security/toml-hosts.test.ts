/**
 * containerd's hosts.toml, as the nodes and the management VM get it, parsed by a real TOML parser
 * (Python's tomllib): every mirror endpoint reads back as its table name, byte for byte, whatever
 * characters it holds that the builders let through (DEL and other control characters for a
 * hand-made environment; TOML's own punctuation for any). A value TOML cannot hold is refused.
 */
import { spawnSync } from 'child_process';
import { gunzipSync } from 'zlib';
import { parse } from 'yaml';
import { KubeObject, buildClusterObjects } from '../../lib/capi';
import { EnvironmentConfig } from '../../lib/config';
import { renderManagementUserData } from '../../lib/management-vm';
import { tomlBasicString } from '../../lib/config/toml-text';
import { inputsFor, makeEnv } from '../capi/fixtures';
import { baseProps, itWithTool } from '../management-vm/helpers';

/** Endpoints with TOML's punctuation, control characters, and text outside ASCII. */
const ENDPOINTS = [
  'https://m.example/a#b[c]=d',
  'https://m.example/%22%5C',
  'https://m.example/\u007f',
  'https://m.example/\u0000\u0001\u001b',
  'https://m.example/\u0085\ufffe',
  'https://m.example/ü/𝄞',
];

/** Parses each TOML text with tomllib; a parse error comes back as `{ error }`. */
function parseToml(texts: readonly string[]): ({ host: Record<string, unknown> } | { error: string })[] {
  const script = 'import json, sys, tomllib\nout = []\nfor t in json.load(sys.stdin):\n    try:\n        out.append(tomllib.loads(t))\n    except Exception as e:\n        out.append({"error": str(e)})\njson.dump(out, sys.stdout)\n';
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

function nodeHostsToml(env: EnvironmentConfig): string {
  const objs = buildClusterObjects(inputsFor(env, 'c'));
  const spec = (objs.find((o: KubeObject) => o.kind === 'KubeadmControlPlane')!.spec as any).kubeadmConfigSpec;
  const f = spec.files.find((x: { path: string }) => x.path.endsWith('/hosts.toml'));
  return f.encoding ? gunzipSync(Buffer.from(f.content, 'base64')).toString('utf8') : f.content.split("{{ '{' }}").join('{');
}

function vmHostsToml(endpoint: string): string {
  const doc = parse(renderManagementUserData(baseProps({ registryMirrors: [{ registry: 'docker.io', endpoints: [endpoint] }] })));
  return doc.write_files.find((f: { path: string }) => f.path.endsWith('/hosts.toml')).content;
}

describe('containerd hosts.toml', () => {
  const check = itWithTool('python3', 'python3');
  const base = makeEnv('clusters:\n  c: {}\n');
  const handMade = (endpoint: string): EnvironmentConfig => ({ ...base, registryMirrors: [{ registry: 'docker.io', endpoints: [endpoint], skipVerify: false }] });

  check('node and VM files parse, each endpoint reads back as written', () => {
    const fromFile = makeEnv('registryMirrors:\n  - {registry: docker.io, endpoints: ["https://m.example/a#b[c]=d{x}"]}\nclusters:\n  c: {}\n');
    const texts = ENDPOINTS.flatMap((e) => [nodeHostsToml(handMade(e)), vmHostsToml(e)]);
    const parsed = parseToml([...texts, nodeHostsToml(fromFile)]);
    expect(parsed[texts.length]).toEqual({ server: 'https://registry-1.docker.io', host: { 'https://m.example/a#b[c]=d{x}': { capabilities: ['pull', 'resolve'] } } });
    ENDPOINTS.forEach((endpoint, i) => {
      for (const [where, doc] of [['node', parsed[2 * i]], ['VM', parsed[2 * i + 1]]] as const) {
        expect({ where, endpoint, hosts: 'error' in doc ? doc.error : Object.keys(doc.host) }).toEqual({ where, endpoint, hosts: [endpoint] });
      }
    });
  });

  test('a lone UTF-16 surrogate, which TOML cannot hold, is refused naming the text', () => {
    expect(() => tomlBasicString('https://m.example/\ud800')).toThrow(/expected text without lone UTF-16 surrogates, found one in "https:\/\/m\.example\/\\ud800"/);
    expect(tomlBasicString('𝄞')).toBe('"𝄞"');
  });
});
