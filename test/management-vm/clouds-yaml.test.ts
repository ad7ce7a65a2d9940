import { parse } from 'yaml';
import { renderCapoCloudsYaml } from '../../lib/management-vm';

const CACERT_PATH = '/etc/openstack/cacert.pem';

const props = {
  cloudName: 'openstack',
  authUrl: 'https://keystone.example.com:5000/v3',
  regionName: 'RegionOne',
  interface: 'public',
  applicationCredentialId: '${TfToken[TOKEN.11]}',
  applicationCredentialSecret: '${TfToken[TOKEN.12]}',
};

describe('renderCapoCloudsYaml', () => {
  it('renders an application credential entry CAPO and the OpenStack clients read', () => {
    const doc = parse(renderCapoCloudsYaml({ ...props, applicationCredentialId: 'abc123', applicationCredentialSecret: 's3cr3t-_X' }));
    expect(doc).toEqual({
      clouds: {
        openstack: {
          auth_type: 'v3applicationcredential',
          auth: { auth_url: props.authUrl, application_credential_id: 'abc123', application_credential_secret: 's3cr3t-_X' },
          region_name: 'RegionOne',
          interface: 'public',
          identity_api_version: 3,
        },
      },
    });
  });

  it('passes tokens through verbatim, quoted so the substituted value stays one scalar', () => {
    const text = renderCapoCloudsYaml(props);
    expect(text).toContain("application_credential_id: '${TfToken[TOKEN.11]}'");
    expect(text).toContain("application_credential_secret: '${TfToken[TOKEN.12]}'");
    const substituted = text.replace('${TfToken[TOKEN.11]}', '9f1b2c3d').replace('${TfToken[TOKEN.12]}', 'Zx-_aB12');
    expect(parse(substituted).clouds.openstack.auth).toMatchObject({ application_credential_id: '9f1b2c3d', application_credential_secret: 'Zx-_aB12' });
  });

  it('keeps a raw Terraform expression intact (no escaped quotes inside it)', () => {
    const expr = '${one([for e in data.x.catalog : e.url if e.interface == "public"])}';
    const text = renderCapoCloudsYaml({ ...props, authUrl: expr });
    expect(text).toContain(`auth_url: '${expr}'`);
    expect(parse(text).clouds.openstack.auth.auth_url).toBe(expr);
  });

  it('emits no double quotes of its own (cdktf functions reject unescaped ones)', () => {
    expect(renderCapoCloudsYaml({ ...props, caCertPath: CACERT_PATH })).not.toContain('"');
  });

  it('references the CA bundle when given', () => {
    const doc = parse(renderCapoCloudsYaml({ ...props, caCertPath: CACERT_PATH }));
    expect(doc.clouds.openstack.cacert).toBe('/etc/openstack/cacert.pem');
    expect(parse(renderCapoCloudsYaml(props)).clouds.openstack.cacert).toBeUndefined();
  });

  it('rejects empty values and bad cloud names', () => {
    expect(() => renderCapoCloudsYaml({ ...props, regionName: '' })).toThrow('clouds.yaml: expected a non-empty regionName');
    expect(() => renderCapoCloudsYaml({ ...props, cloudName: 'my cloud' })).toThrow(/expected a literal cloud name/);
    expect(() => renderCapoCloudsYaml({ ...props, authUrl: 'https://a\nb' })).toThrow('clouds.yaml: authUrl must be a single line');
  });
});
