/**
 * Hostile fuzz tier: seeded files of the value classes that once passed `validate` and then broke
 * synth (see test/support/hostile-environments.ts). Each file ends in a refusal naming the file and
 * a line, or it synthesizes; never in another exception at load or at synth. An accepted file also
 * keeps the property its class attacks (HOSTILE_INVARIANTS: no control character, no open API from a
 * smuggled key, only bounded regular files, no file over the size limit), and no control character
 * reaches a stack.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';
import { EnvironmentConfig, EnvironmentConfigError, loadEnvironments, parseEnvironment } from '../../lib/config';
import { environmentYaml } from '../stacks/support';
import { synthEnvironment } from '../stacks/support';
import { HOSTILE_GENERATORS as VALUE_GENERATORS, PLANTED_EXPRESSIONS } from '../support/hostile-environments';
import { CONTROL_CHARACTERS, HOSTILE_INVARIANTS, INPUT_GENERATORS } from '../support/hostile-inputs';
import { seededRandom } from '../support/seeded-random';
import { buildClusterObjects } from '../../lib/capi';
import { capoResourceNames } from '../../lib/config/capo-names';
import { clusterResourceName } from '../../lib/config/naming';
import { inputsFor } from '../capi/fixtures';
import { itWithTool } from '../management-vm/helpers';
import { renderWithCloudInit } from '../support/cloud-init-jinja';
import { decodedContent, nodeUserDataDocuments, systemdEnvironment } from '../support/node-user-data';

const HOSTILE_GENERATORS = { ...VALUE_GENERATORS, ...INPUT_GENERATORS };
const CASES_PER_CLASS = 8;
const SEED = 0xbad5eed;
const FILE = 'environments/fuzz.yaml';

/** Refused characters in the strings and keys of synthesized stacks (the line breaks and tabs of scripts aside), escaped. */
function controlCharactersIn(value: unknown, found = new Set<string>()): Set<string> {
  const look = (text: string) => {
    for (const c of CONTROL_CHARACTERS) if (c !== '\t' && c !== '\r' && text.includes(c)) found.add(JSON.stringify(c));
  };
  if (typeof value === 'string') look(value);
  else if (Array.isArray(value)) value.forEach((v) => controlCharactersIn(v, found));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) (look(k), controlCharactersIn(v, found));
  return found;
}

describe('hostile environment files', () => {
  test.each(Object.keys(HOSTILE_GENERATORS))('%s: refused with file and line, or synthesized', (name) => {
    const r = seededRandom(SEED ^ name.length);
    const accepted = new Map<string, { label: string; env: EnvironmentConfig }>();
    let refused = 0;
    for (let n = 0; n < CASES_PER_CLASS; n++) {
      const text = HOSTILE_GENERATORS[name](r);
      const label = `${name} case ${n}`;
      try {
        const env = parseEnvironment(text, FILE);
        const broken = HOSTILE_INVARIANTS[name]?.(env, text);
        if (broken) throw new Error(broken);
        accepted.set(JSON.stringify({ ...env, warnings: undefined }), { label, env });
      } catch (e) {
        if (!(e instanceof EnvironmentConfigError)) throw new Error(`${label}: ${(e as Error).message.slice(0, 300)}\n--- file ---\n${text.slice(0, 1500)}`);
        expect({ label, file: e.file, unlocated: e.issues.filter((i) => !i.line).map((i) => i.path) }).toEqual({ label, file: FILE, unlocated: [] });
        refused++;
      }
    }
    for (const { label, env } of accepted.values()) {
      let json: string;
      let controls: string[];
      try {
        const stacks = synthEnvironment(env).json;
        json = JSON.stringify(stacks);
        controls = [...controlCharactersIn(stacks)];
      } catch (e) {
        throw new Error(`${label}: validated but did not synthesize: ${(e as Error).message.slice(0, 500)}`);
      }
      // a planted expression that was accepted must arrive as a literal ($${, %%{), never live
      const live = PLANTED_EXPRESSIONS.map((p) => JSON.stringify(p).slice(1, -1)).filter((p) => new RegExp(`(^|[^$%])${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(json));
      expect({ label, live }).toEqual({ label, live: [] });
      // nor does a control character reach a stack (cloud-init, drop-ins, hosts.toml)
      expect({ label, controls }).toEqual({ label, controls: [] });
    }
    // each class has both outcomes, or it tests only one side of its rule
    expect({ name, accepted: accepted.size > 0, refused: refused > 0 }).toEqual({ name, accepted: true, refused: true });
  });
});

describe('two environment files', () => {
  const parts = ['a', 'b'];
  const dashed = (r: () => number, max: number) => Array.from({ length: 1 + Math.floor(r() * max) }, () => parts[Math.floor(r() * parts.length)]).join('-');

  test('names that may collide: refused naming a file, or every stack is built', () => {
    const r = seededRandom(SEED);
    const outcomes = { built: 0, refused: 0 };
    for (let n = 0; n < 16; n++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-two-'));
      // half the cases split one dashed name at two places (a + b-c, a-b + c), the others are random
      const whole = Array.from({ length: 3 + Math.floor(r() * 2) }, () => parts[Math.floor(r() * parts.length)]);
      const split = (at: number) => ({ name: `${whole.slice(0, at).join('-')}${r() < 0.2 ? '.yml' : '.yaml'}`, cluster: whole.slice(at).join('-') });
      const files = r() < 0.5 ? [split(1), split(2)] : [0, 1].map(() => ({ name: `${dashed(r, 2)}${r() < 0.3 ? '.yml' : '.yaml'}`, cluster: dashed(r, 2) }));
      for (const f of files) fs.writeFileSync(path.join(dir, f.name), environmentYaml(`clusters:\n  ${f.cluster}:\n    apiAllowedCidrs: [198.51.100.0/24]\n`));
      const label = `case ${n}: ${files.map((f) => `${f.name} + ${f.cluster}`).join(', ')}`;
      try {
        loadEnvironments(dir);
      } catch (e) {
        expect({ label, located: e instanceof EnvironmentConfigError && fs.existsSync(e.file) }).toEqual({ label, located: true });
        outcomes.refused++;
        continue;
      }
      // construct ids are checked when the stacks are created: building them is the proof
      expect(() => new EnvironmentsApp({ environmentsDir: dir, onWarning: () => undefined, appConfig: { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-two-out-')) } })).not.toThrow();
      outcomes.built++;
    }
    expect(outcomes.built).toBeGreaterThan(3);
    expect(outcomes.refused).toBeGreaterThan(3);
  });

  // CAPO names a cluster's network `<namespace>-<cluster>`, the namespace already ending in the
  // cluster's name: `a-x-x.yaml` + cluster `x` and `a.yaml` + cluster `x-x` differ in every name of
  // ours and share all of CAPO's (which would adopt and delete each other's network)
  test("names only CAPO's doubling makes equal: refused naming a file; what is built shares no CAPO name", () => {
    const r = seededRandom(SEED ^ 0xca90);
    const outcomes = { built: 0, refused: 0 };
    for (let n = 0; n < 12; n++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-capo-'));
      const env = dashed(r, 2);
      const x = dashed(r, 2);
      const colliding = r() < 0.7;
      const files = colliding
        ? [{ name: `${env}-${x}-${x}.yaml`, cluster: x }, { name: `${env}.yaml`, cluster: `${x}-${x}` }]
        : [{ name: `${env}-${x}.yaml`, cluster: x }, { name: `${env}.yaml`, cluster: `${x}-${dashed(r, 1)}` }];
      for (const f of files) fs.writeFileSync(path.join(dir, f.name), environmentYaml(`clusters:\n  ${f.cluster}:\n    apiAllowedCidrs: [198.51.100.0/24]\n`));
      const label = `case ${n}: ${files.map((f) => `${f.name} + ${f.cluster}`).join(', ')}`;
      let loaded: EnvironmentConfig[];
      try {
        loaded = loadEnvironments(dir);
      } catch (e) {
        // the shared-name check names both files (no line: the clash is between two files' names)
        const named = files.every((f) => (e as Error).message.includes(path.join(dir, f.name)));
        expect({ label, named }).toEqual({ label, named: true });
        outcomes.refused++;
        continue;
      }
      expect({ label, colliding }).toEqual({ label, colliding: false });
      // network, subnet and router share one name within a cluster; no name may stand in two clusters
      const names = loaded.flatMap((e) => e.clusters.flatMap((c) => [...new Set(capoResourceNames(clusterResourceName(e.resourcePrefix, c.name), c.name).map((x) => x.name))]));
      expect({ label, shared: names.filter((x, i) => names.indexOf(x) !== i) }).toEqual({ label, shared: [] });
      outcomes.built++;
    }
    expect(outcomes.refused).toBeGreaterThan(3);
    expect(outcomes.built).toBeGreaterThan(0);
  });
});

/**
 * Accepted Jinja and systemd specifiers must also arrive on the nodes as written: every node role's
 * user data, put together as Cluster API does, rendered by cloud-init's own Jinja handler, then read
 * the way systemd and containerd read their files.
 */
describe('hostile values on the nodes, as cloud-init and systemd read them', () => {
  const check = itWithTool('cloud-init', 'cloud-init');

  check.each(['jinja', 'systemdSpecifiers'])('%s: each accepted value arrives as written', (name) => {
    const r = seededRandom(SEED ^ name.length ^ 0x715);
    let accepted = 0;
    for (let n = 0; n < CASES_PER_CLASS; n++) {
      const text = HOSTILE_GENERATORS[name](r);
      let env: EnvironmentConfig;
      try {
        env = parseEnvironment(text, FILE);
      } catch (e) {
        if (e instanceof EnvironmentConfigError) continue;
        throw e;
      }
      accepted++;
      const documents = nodeUserDataDocuments(buildClusterObjects(inputsFor(env, 'demo')));
      const rendered = renderWithCloudInit(documents.map((d) => d.text));
      documents.forEach((d, i) => {
        const files = new Map(rendered[i].config.write_files.map((f) => [f.path, decodedContent(f)]));
        const label = `${name} case ${n}, ${d.role}`;
        const proxy = env.spec.proxy.httpProxy;
        if (proxy) {
          const vars = systemdEnvironment(files.get('/etc/systemd/system/kubelet.service.d/http-proxy.conf')!);
          const entries = vars.NO_PROXY.split(',');
          expect({ label, proxy: vars.HTTP_PROXY, noProxy: entries.slice(entries.length - env.spec.proxy.noProxy.length) }).toEqual({ label, proxy, noProxy: [...env.spec.proxy.noProxy] });
        }
        for (const m of env.registryMirrors) {
          expect({ label, hosts: files.get(`/etc/containerd/certs.d/${m.registry}/hosts.toml`) }).toEqual({ label, hosts: expect.stringContaining(`[host.${JSON.stringify(m.endpoints[0])}]`) });
        }
      });
    }
    expect({ name, accepted: accepted > 0 }).toEqual({ name, accepted: true });
  });
});
