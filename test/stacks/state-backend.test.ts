import { environment, environmentYaml, synthEnvironment } from './support';

const CLUSTER = `clusters:
  alpha: {}
  beta: {}
`;

describe('stateBackend: every stack of the environment in one shared, locked store', () => {
  const shared = synthEnvironment(environment(environmentYaml(`${CLUSTER}stateBackend:
  endpoint: https://object.example.org/
  bucket: capi-state
`)));

  test('each stack has its own key under the environment name, with the lock file on', () => {
    for (const stack of ['unit-management', 'unit-alpha', 'unit-beta']) {
      expect(shared.json[stack].terraform.backend).toEqual({
        s3: {
          bucket: 'capi-state',
          key: `unit/${stack}.tfstate`,
          region: 'us-east-1',
          endpoints: { s3: 'https://object.example.org' },
          use_path_style: true,
          skip_credentials_validation: true,
          skip_region_validation: true,
          skip_requesting_account_id: true,
          skip_metadata_api_check: true,
          skip_s3_checksum: true,
          use_lockfile: true,
        },
      });
    }
  });

  test('no credential reaches the synthesized JSON', () => {
    const text = JSON.stringify(shared.json);
    expect(text).not.toMatch(/access_key|secret_key|AWS_/);
  });

  test('workload stacks read the management outputs from the same store', () => {
    const remote = Object.values(shared.json['unit-alpha'].data.terraform_remote_state) as any[];
    expect(remote).toHaveLength(1);
    expect(remote[0].backend).toBe('s3');
    expect(remote[0].config).toMatchObject({ bucket: 'capi-state', key: 'unit/unit-management.tfstate', endpoints: { s3: 'https://object.example.org' }, use_path_style: true });
  });

  test('keyPrefix and region replace the defaults', () => {
    const custom = synthEnvironment(environment(environmentYaml(`stateBackend:
  endpoint: http://127.0.0.1:8080
  bucket: team.state-1
  keyPrefix: teams/blue
  region: RegionOne
`)));
    expect(custom.json['unit-management'].terraform.backend.s3).toMatchObject({ key: 'teams/blue/unit-management.tfstate', region: 'RegionOne', bucket: 'team.state-1' });
  });

  test('without stateBackend the stacks keep local state', () => {
    const local = synthEnvironment(environment(environmentYaml(CLUSTER)));
    expect(local.json['unit-alpha'].terraform.backend?.s3).toBeUndefined();
    expect(Object.values(local.json['unit-alpha'].data.terraform_remote_state)[0]).toMatchObject({ backend: 'local' });
  });

  test.each([
    ['bucket: Capi_State', /stateBackend\.bucket.*S3 bucket name.*Capi_State/s],
    ['keyPrefix: ../other', /stateBackend\.keyPrefix.*without "", "\." or "\.\."/s],
    ['endpoint: "http://x y"', /stateBackend\.endpoint/],
    ['accessKey: AKIA123', /stateBackend.*accessKey/s],
  ])('%s is refused with the field named', (line, message) => {
    const base = { endpoint: 'endpoint: https://o.example.org', bucket: 'bucket: capi-state' } as Record<string, string>;
    const key = line.split(':')[0];
    const lines = [...Object.entries(base).filter(([k]) => k !== key).map(([, v]) => v), line];
    expect(() => environment(environmentYaml(`stateBackend:\n${lines.map((l) => `  ${l}`).join('\n')}\n`))).toThrow(message);
  });
});
