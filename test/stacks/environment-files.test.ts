import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentsApp } from '../../lib/app/environments-app';
import { loadEnvironmentFile } from '../../lib/config/load';
import { validateAgainstCrd } from '../support/crd-validator';
import { loadProviderSchemas, validateStackJson } from '../support/provider-schema';
import { resourcesOf, synthEnvironment } from './support';

/**
 * Values Terraform fills in at apply time stand in the JSON as `${...}` expressions; give the CRD
 * validator a value of the right shape instead (ids are UUIDs in OpenStack).
 */
function withApplyTimeValues(value: any, key = ''): any {
  if (typeof value === 'string' && /^\$\{[^}]+\}$/.test(value)) return key === 'id' ? '0b5e0a44-34f8-4e4b-9a39-0c6cf6d7a1e2' : value;
  if (Array.isArray(value)) return value.map((v) => withApplyTimeValues(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withApplyTimeValues(v, k)]));
  return value;
}

const ENV_DIR = path.resolve(__dirname, '..', '..', 'environments');
const files = fs.readdirSync(ENV_DIR).filter((f) => f.endsWith('.yaml'));
const schemas = loadProviderSchemas();

describe.each(files)('environments/%s', (file) => {
  const synthesized = synthEnvironment(loadEnvironmentFile(path.join(ENV_DIR, file)));
  const stackNames = Object.keys(synthesized.json);

  test('synthesizes a management stack and one stack per cluster', () => {
    const env = file.replace(/\.yaml$/, '');
    expect(stackNames).toContain(`${env}-management`);
    expect(stackNames.length).toBeGreaterThan(1);
  });

  test.each(stackNames)('%s matches the pinned provider schemas', (stack) => {
    expect(validateStackJson(synthesized.json[stack], schemas)).toEqual([]);
  });

  test('every Kubernetes object is valid against its CRD or core schema', () => {
    const manifests = Object.values(synthesized.json).flatMap((j) => resourcesOf(j, 'kubernetes_manifest').map((m) => withApplyTimeValues(m.manifest)));
    expect(manifests.length).toBeGreaterThan(5);
    const problems = manifests.flatMap((m) => validateAgainstCrd(m).map((p) => `${m.kind}/${m.metadata.name}: ${p}`));
    expect(problems).toEqual([]);
  });
});

describe('the app', () => {
  test('an invalid environment file fails before anything is written, naming file and field', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envs-'));
    const outdir = path.join(dir, 'out');
    const text = fs.readFileSync(path.join(ENV_DIR, 'example.yaml'), 'utf8').replace('podCidr: 192.168.0.0/16', 'podCidr: 10.0.0.0/16');
    fs.writeFileSync(path.join(dir, 'broken.yaml'), text);
    let message = '';
    try {
      new EnvironmentsApp({ environmentsDir: dir, appConfig: { outdir } }).synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('broken.yaml');
    expect(message).toContain('clusters.demo.network.podCidr');
    expect(message).toMatch(/overlap/);
    expect(message.split('\n').length).toBeLessThan(25);
    expect(fs.existsSync(outdir)).toBe(false);
  });

  test('ENVIRONMENT selects environments; an unknown name is an error listing the files', () => {
    const app = new EnvironmentsApp({ environmentsDir: ENV_DIR, only: ['example'], appConfig: { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'out-')) } });
    expect(Object.keys(app.environments)).toEqual(['example']);
    expect(() => new EnvironmentsApp({ environmentsDir: ENV_DIR, only: ['nope'] })).toThrow(/"nope".*found: .*example\.yaml/);
  });

  test('a missing environments folder is a clear error', () => {
    expect(() => new EnvironmentsApp({ environmentsDir: '/nonexistent/envs' })).toThrow(/expected a folder of environment files .* at \/nonexistent\/envs/);
  });
});
