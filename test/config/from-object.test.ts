import { environmentFromObject } from '../../lib/config/from-object';
import { EnvironmentConfigError } from '../../lib/config/errors';
import { EnvironmentInput } from '../../lib/config/environment-schema';
import { parseEnvironment } from '../../lib/config/load';

/** An environment built in code gets the file's rules and messages, without file and line. */
const BASE: EnvironmentInput = {
  cloud: { name: 'mycloud', authUrl: 'https://keystone.example.com:5000/v3', region: 'RegionOne' },
  management: { apiAllowedCidrs: ['203.0.113.0/24'] },
  clusters: { prod: { nodeGroups: [{ name: 'md-0', count: 2 }], apiAllowedCidrs: ['0.0.0.0/0'] } },
};

function problemsOf(name: string, input: unknown): string {
  try {
    environmentFromObject(name, input as EnvironmentInput);
  } catch (e) {
    expect(e).toBeInstanceOf(EnvironmentConfigError);
    return (e as Error).message;
  }
  return '(valid)';
}

describe('environmentFromObject', () => {
  test('a valid object resolves like the same file', () => {
    const fromCode = environmentFromObject('acme', BASE);
    const fromFile = parseEnvironment(JSON.stringify(BASE), 'acme.yaml');
    expect(fromCode.clusters.map((c) => [c.name, c.kubernetesVersion, c.namespace, c.stackName])).toEqual(fromFile.clusters.map((c) => [c.name, c.kubernetesVersion, c.namespace, c.stackName]));
    expect(fromCode.spec).toEqual(fromFile.spec);
    expect(fromCode.resourcePrefix).toBe('capi-acme');
  });

  test('every cross-check runs: a bad name, a pool outside its CIDR, overlapping CIDRs, an unsupported version', () => {
    const message = problemsOf('Bad_Name', {
      ...BASE,
      network: { managementCidr: '10.0.0.0/24', allocationPoolStart: '10.1.0.5' },
      clusters: { prod: { kubernetesVersion: 'v1.20.x', network: { nodeCidr: '10.0.0.0/20' } } },
    });
    expect(message).toMatch(/^Invalid environment "Bad_Name" \(given in code\) \(\d+ problems\):/);
    expect(message).toContain('(name): expected an environment name of lowercase letters');
    expect(message).toContain('network.allocationPoolStart:');
    expect(message).toContain('clusters.prod.network.nodeCidr:');
    expect(message).toContain('clusters.prod.kubernetesVersion:');
    // no made-up file lines
    expect(message).not.toMatch(/:\d+:\d+:/);
  });

  test('unknown fields and wrong types are named by their path', () => {
    const message = problemsOf('acme', { ...BASE, clusterz: {}, management: { bootVolumeSizeGb: 'big' } });
    expect(message).toContain('clusterz: unknown field "clusterz"');
    expect(message).toContain('management.bootVolumeSizeGb: expected a number, found "big"');
  });

  test('never returns an unresolved Kubernetes version', () => {
    expect(problemsOf('acme', { ...BASE, clusters: { prod: { kubernetesVersion: 'v1.20.x' } } })).toContain('clusters.prod.kubernetesVersion');
  });

  describe("the file's key rules: __proto__, constructor and prototype are refused wherever they stand", () => {
    test.each([
      ['clusters.__proto__', { ...BASE, clusters: JSON.parse('{"__proto__": {"nodeGroups": []}}') }],
      ['clusters.constructor', { ...BASE, clusters: { constructor: {} } }],
      ['clusters.prod.prototype', { ...BASE, clusters: { prod: { prototype: 1 } } }],
      ['management.apiAllowedCidrs[0].__proto__', { ...BASE, management: { apiAllowedCidrs: [JSON.parse('{"__proto__": 1}')] } }],
    ])('%s', (where, input) => {
      const key = where.split('.').pop();
      const message = problemsOf('acme', input);
      expect(message).toContain(`${where}: expected a name other than "${key}" (it is reserved in JavaScript objects)`);
      expect(message).not.toMatch(/expected a record, found a mapping/);
    });

    test('the same key in a file gets the same words', () => {
      expect(() => parseEnvironment('clusters:\n  constructor: {}\n', 'acme.yaml')).toThrow('expected a name other than "constructor" (it is reserved in JavaScript objects)');
    });
  });
});
