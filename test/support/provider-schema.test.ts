import { loadProviderSchemas, validateStackJson } from './provider-schema';

const schemas = loadProviderSchemas();
const stackWith = (body: Record<string, unknown>) => ({ resource: { openstack_networking_network_v2: { Net: body } } });

describe('provider schema validator', () => {
  test('accepts a valid resource', () => {
    expect(validateStackJson(stackWith({ name: 'n', admin_state_up: true, mtu: 1450 }), schemas)).toEqual([]);
  });
  test('rejects an unknown attribute', () => {
    expect(validateStackJson(stackWith({ name: 'n', colour: 'blue' }), schemas).join('\n')).toMatch(/colour/);
  });
  test('rejects a wrong type', () => {
    expect(validateStackJson(stackWith({ name: 'n', mtu: 'large' }), schemas).join('\n')).toMatch(/mtu/);
  });
  test('rejects a missing required argument', () => {
    const errors = validateStackJson({ resource: { openstack_networking_subnet_v2: { S: { cidr: '10.0.0.0/24' } } } }, schemas);
    expect(errors.join('\n')).toMatch(/network_id/);
  });
  test('rejects an unknown resource type', () => {
    expect(validateStackJson({ resource: { openstack_nothing_v9: { X: {} } } }, schemas).join('\n')).toMatch(/openstack_nothing_v9/);
  });
});
