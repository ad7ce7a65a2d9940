/**
 * Fuzz tier for clouds.yaml: seeded mutations of a typical file (password and application
 * credential entries, a private CA). Synthesis (through an environment that takes its auth URL and
 * region from the file) ends in a valid environment or an EnvironmentConfigError, and never
 * accepts a value the environment file itself could not hold; the destroy-time login ends in
 * credentials or a CloudsFileError. Never any other exception. Fixed seed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EnvironmentConfigError, parseEnvironment } from '../../lib/config';
import { CloudsFileError } from '../../lib/config/clouds-file';
import { cloudSchema } from '../../lib/config/environment-schema';
import { credentialsFromCloudsYaml } from '../../lib/runtime/cleanup/clouds-yaml';
import { withDeployAccess } from '../support/deploy-access';
import { seededRandom as random } from '../support/seeded-random';
import { MUTATIONS, pick } from '../support/yaml-mutations';

const CASES = 1000;
const SEED = 0xc10d5;
const CLOUDS = `clouds:
  mycloud:
    auth:
      auth_url: https://keystone.example.com:5000/v3
      username: operator
      password: pw-1
      project_name: capi
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    interface: public
    identity_api_version: 3
    cacert: ca.pem
  appcred:
    auth_type: v3applicationcredential
    auth:
      auth_url: https://keystone.example.com:5000/v3
      application_credential_id: 0123abcd
      application_credential_secret: s3cr3t
    region_name: RegionTwo
`;
const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const ENVIRONMENT = withDeployAccess('cloud:\n  name: mycloud\n  cloudsFile: ./clouds.yaml\n');

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clouds-fuzz-'));
  fs.writeFileSync(path.join(dir, 'ca.pem'), CA);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function mutate(r: () => number): { text: string; applied: string[] } {
  let lines = CLOUDS.split('\n');
  const applied: string[] = [];
  const names = Object.keys(MUTATIONS);
  for (let k = 1 + Math.floor(r() * 3); k > 0; k--) {
    const m = pick(r, names);
    applied.push(m);
    if (lines.length > 0) lines = MUTATIONS[m](lines, r);
  }
  return { text: lines.join('\n'), applied };
}

describe('fuzzed clouds.yaml', () => {
  test(`${CASES} seeded mutations: synthesis and the cleanup login end in a result or their own error, and nothing unfit is accepted`, () => {
    const r = random(SEED);
    const outcomes = { valid: 0, rejected: 0, logins: 0, loginRefused: 0 };
    const cloudsFile = path.join(dir, 'clouds.yaml');
    const envFile = path.join(dir, 'lab.yaml');
    for (let n = 0; n < CASES; n++) {
      const { text, applied } = mutate(r);
      const label = `case ${n} (${applied.join(', ')})`;
      fs.writeFileSync(cloudsFile, text);
      try {
        const env = parseEnvironment(ENVIRONMENT, envFile);
        outcomes.valid++;
        // what synthesis took from the file obeys the rules of the fields it stands in for
        expect({ label, authUrl: cloudSchema.shape.authUrl.safeParse(env.cloud.authUrl).success }).toEqual({ label, authUrl: true });
        expect({ label, region: cloudSchema.shape.region.safeParse(env.cloud.region).success }).toEqual({ label, region: true });
      } catch (e) {
        if (!(e instanceof EnvironmentConfigError)) throw new Error(`${label}: ${(e as Error).constructor.name}: ${(e as Error).message.slice(0, 300)}\n--- clouds.yaml ---\n${text.slice(0, 1500)}`);
        expect({ label, long: e.message.length > 3000, unlocated: e.issues.filter((i) => i.line === undefined).map((i) => i.path) }).toEqual({ label, long: false, unlocated: [] });
        outcomes.rejected++;
      }
      for (const cloud of ['mycloud', 'appcred']) {
        try {
          credentialsFromCloudsYaml({ cloud, file: cloudsFile, env: {}, cwd: dir });
          outcomes.logins++;
        } catch (e) {
          if (!(e instanceof CloudsFileError)) throw new Error(`${label} (${cloud}): ${(e as Error).constructor.name}: ${(e as Error).message.slice(0, 300)}\n--- clouds.yaml ---\n${text.slice(0, 1500)}`);
          outcomes.loginRefused++;
        }
      }
    }
    // not vacuous: every outcome occurs often
    for (const [outcome, count] of Object.entries(outcomes)) expect({ outcome, often: count > CASES / 20 }).toEqual({ outcome, often: true });
  });

  test.each([
    ['a newline in auth_url', CLOUDS.replace('auth_url: https://keystone.example.com:5000/v3', 'auth_url: "https://k.example\\nExecStart=/bin/x"'), /cloud\.name: expected auth\.auth_url of "mycloud" in .*clouds\.yaml to be an? .*found "https:\/\/k\.example\\nExecStart=\/bin\/x"/],
    ['a control character in region_name', CLOUDS.replace('region_name: RegionOne', 'region_name: "Region\\u0007One"'), /expected region_name of "mycloud" in .*clouds\.yaml to be letters, digits, spaces and \. _ - : \+ @ .*found "Region\\u0007One"/],
    ['an alias bomb', `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n${CLOUDS}`, /lab\.yaml:2:9: cloud\.name: expected a readable clouds\.yaml for cloud "mycloud", found: .*clouds\.yaml cannot be read as YAML: Excessive alias count/],
    ['a prototype key', CLOUDS.replace('  appcred:', '  __proto__:'), /clouds\.yaml cannot be read as YAML: line 14: expected a name other than "__proto__"/],
  ])('%s is refused at validate with the file named', (_what, text, message) => {
    fs.writeFileSync(path.join(dir, 'clouds.yaml'), text);
    expect(() => parseEnvironment(ENVIRONMENT, path.join(dir, 'lab.yaml'))).toThrow(message);
  });
});
