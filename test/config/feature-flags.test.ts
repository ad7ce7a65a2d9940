/**
 * Feature flags (lib/config/feature-flags.ts): ingress-nginx, retired upstream, is off by default in
 * new environment files (featureFlags.ingressNginxOffByDefault) and stays on in files written before
 * the flag, so a library upgrade removes no running ingress; `validate` warns wherever it is on.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { enabledAddons } from '../../lib/addons';
import { EnvironmentConfig, EnvironmentConfigError, environmentFromObject } from '../../lib/config';
import { FEATURE_FLAGS, NEW_ENVIRONMENT_FEATURE_FLAGS } from '../../lib/config/feature-flags';
import { memoryIo } from '../../lib/runtime/cli/io';
import { runCli } from '../../lib/runtime/cli/main';
import { clusterOf, makeEnv } from '../capi/fixtures';

const ROOT = path.resolve(__dirname, '..', '..');
const NEW = 'featureFlags:\n  ingressNginxOffByDefault: true\n';

const installs = (env: EnvironmentConfig, cluster: string) => enabledAddons(clusterOf(env, cluster)).map((a) => a.id);
const ingressWarnings = (env: EnvironmentConfig) => env.warnings.filter((w) => w.path.endsWith('.addons.ingressNginx'));
/** 1-based number of the first line of the environment's file that starts with `text`. */
const lineOf = (env: EnvironmentConfig, text: string) => fs.readFileSync(env.file, 'utf8').split('\n').findIndex((l) => l.startsWith(text)) + 1;

describe('featureFlags.ingressNginxOffByDefault', () => {
  test('a file without the flag keeps the old default: ingress-nginx in every cluster that does not set it, warned on the cluster\'s line', () => {
    const env = makeEnv('clusters:\n  a: {}\n  b:\n    addons: { certManager: true }\n  c:\n    addons: { ingressNginx: false }\n');
    expect(clusterOf(env, 'a').spec.addons.ingressNginx).toEqual({ enabled: true, proxyProtocol: true });
    expect(installs(env, 'a')).toContain('ingress-nginx');
    expect(installs(env, 'b')).toContain('ingress-nginx');
    expect(installs(env, 'c')).not.toContain('ingress-nginx');
    const warnings = ingressWarnings(env);
    // the default is set nowhere: the warning points at the nearest thing the file has, the cluster or its addons
    expect(warnings.map((w) => [w.path, w.line])).toEqual([
      ['clusters.a.addons.ingressNginx', lineOf(env, '  a: {}')],
      ['clusters.b.addons.ingressNginx', lineOf(env, '    addons: { certManager')],
    ]);
    expect(warnings[0].message).toBe(
      'ingress-nginx (cluster "a") is retired upstream since March 2026: no releases or security fixes. Move its Ingresses to Gateway API (docs/addons.md#moving-off-ingress-nginx), then set addons.ingressNginx: false, which uninstalls it. ' +
        'It is on by the default of files without featureFlags.ingressNginxOffByDefault; setting that flag to true turns it off in every cluster that does not set addons.ingressNginx',
    );
  });

  test('a new file (the flag set): no ingress-nginx unless a cluster sets it, and then a warning naming the field to turn it off', () => {
    const env = makeEnv(`${NEW}clusters:\n  a: {}\n  b:\n    addons:\n      ingressNginx: { proxyProtocol: false }\n  c:\n    addons: { ingressNginx: true }\n`);
    expect(clusterOf(env, 'a').spec.addons.ingressNginx.enabled).toBe(false);
    expect(installs(env, 'a')).not.toContain('ingress-nginx');
    // an object without `enabled` takes the default too
    expect(installs(env, 'b')).not.toContain('ingress-nginx');
    expect(installs(env, 'c')).toContain('ingress-nginx');
    const warnings = ingressWarnings(env);
    expect(warnings.map((w) => w.path)).toEqual(['clusters.c.addons.ingressNginx']);
    expect(warnings[0].message).toBe(
      'ingress-nginx (cluster "c") is retired upstream since March 2026: no releases or security fixes. Move its Ingresses to Gateway API (docs/addons.md#moving-off-ingress-nginx), then set addons.ingressNginx: false, which uninstalls it',
    );
    // on the line of the setting itself
    expect(warnings[0].line).toBe(lineOf(env, '    addons: { ingressNginx: true }'));
  });

  test('a file without the flag that sets ingressNginx: true is warned as set, not as defaulted', () => {
    const env = makeEnv('clusters:\n  a:\n    addons: { ingressNginx: { enabled: true, version: 4.13.9 } }\n');
    expect(ingressWarnings(env).map((w) => w.message)).toEqual([expect.stringMatching(/^ingress-nginx \(cluster "a"\) is retired upstream .* then set addons\.ingressNginx: false, which uninstalls it$/)]);
    expect(ingressWarnings(env)[0].message).not.toContain('by the default');
  });

  test('an environment built in code follows the same rule (no flag: on; flag: off)', () => {
    const old = environmentFromObject('acme', { cloud: { name: 'mycloud', authUrl: 'https://keystone.example.test:5000/v3' }, management: { apiAllowedCidrs: ['198.51.100.0/24'] }, clusters: { web: {} } });
    const fresh = environmentFromObject('acme', { cloud: { name: 'mycloud', authUrl: 'https://keystone.example.test:5000/v3' }, management: { apiAllowedCidrs: ['198.51.100.0/24'] }, featureFlags: { ingressNginxOffByDefault: true }, clusters: { web: {} } });
    expect(installs(old, 'web')).toContain('ingress-nginx');
    expect(installs(fresh, 'web')).not.toContain('ingress-nginx');
    expect(ingressWarnings(old).map((w) => w.path)).toEqual(['clusters.web.addons.ingressNginx']);
    expect(ingressWarnings(fresh)).toEqual([]);
  });

  test('an unknown flag is refused with its line and the flag it resembles', () => {
    expect(() => makeEnv('featureFlags:\n  ingressNginxOffByDefualt: true\nclusters:\n  a: {}\n')).toThrow(EnvironmentConfigError);
    expect(() => makeEnv('featureFlags:\n  ingressNginxOffByDefualt: true\nclusters:\n  a: {}\n')).toThrow(
      /test\.yaml:6:3: featureFlags\.ingressNginxOffByDefualt: unknown field "ingressNginxOffByDefualt" \(did you mean "ingressNginxOffByDefault"\?\)/,
    );
    expect(() => makeEnv('featureFlags:\n  ingressNginxOffByDefault: "yes"\n')).toThrow(/featureFlags\.ingressNginxOffByDefault: expected a boolean, found "yes"/);
  });

  test('environments/example.yaml, the file new projects copy, sets every flag of the table', () => {
    const example = parse(fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8'));
    expect(example.featureFlags).toEqual(NEW_ENVIRONMENT_FEATURE_FLAGS);
    expect(Object.keys(NEW_ENVIRONMENT_FEATURE_FLAGS).sort()).toEqual(Object.keys(FEATURE_FLAGS).sort());
  });

  test('`validate` warns for a file without the flag and stays quiet for the same file with it', async () => {
    const example = fs.readFileSync(path.join(ROOT, 'environments', 'example.yaml'), 'utf8');
    const old = example.replace(/^featureFlags:\n.*\n/m, '');
    expect(old).not.toContain('featureFlags');
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'feature-flags-'));
    fs.writeFileSync(path.join(dir, 'old.yaml'), old);
    fs.writeFileSync(path.join(dir, 'new.yaml'), example);
    const io = memoryIo(dir);
    expect(await runCli(['validate', 'old.yaml', 'new.yaml'], io)).toBe(0);
    // the cluster's addons mapping (its first entry) is the nearest the file has to the unset field
    const addonsLine = old.split('\n').indexOf('    addons:') + 2;
    const ingress = io.stderr.filter((l) => l.includes('ingress-nginx'));
    expect(ingress).toEqual([expect.stringMatching(new RegExp(`^warning: .*old\\.yaml:${addonsLine}:\\d+: clusters\\.demo\\.addons\\.ingressNginx: ingress-nginx \\(cluster "demo"\\) is retired upstream .*\\. It is on by the default`))]);
  });
});
