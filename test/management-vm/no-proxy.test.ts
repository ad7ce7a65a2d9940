import { buildNoProxy } from '../../lib/management-vm';

describe('buildNoProxy', () => {
  it('always keeps loopback, metadata, management subnet, kind ranges and cluster DNS out of the proxy', () => {
    expect(buildNoProxy({ managementCidr: '10.1.0.0/24' })).toEqual([
      'localhost',
      '127.0.0.1',
      '169.254.169.254',
      '10.1.0.0/24',
      '10.244.0.0/16',
      '10.96.0.0/16',
      '.svc',
      '.cluster.local',
    ]);
  });

  it('appends extras without duplicates', () => {
    const list = buildNoProxy({ managementCidr: '10.1.0.0/24', extra: [' .corp.example ', 'localhost', '192.168.0.0/16'] });
    expect(list.slice(-2)).toEqual(['.corp.example', '192.168.0.0/16']);
    expect(list.filter((e) => e === 'localhost')).toHaveLength(1);
  });

  it('rejects entries that would break the comma-separated list', () => {
    expect(() => buildNoProxy({ managementCidr: '10.1.0.0/24', extra: ['a,b'] })).toThrow('noProxy: expected a host, domain or CIDR without spaces, commas or quotes, found "a,b"');
  });
});
