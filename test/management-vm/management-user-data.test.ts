import { parse } from 'yaml';
import { BOOTSTRAP_PATHS, METADATA_BLOCK_UNITS, renderManagementUserData } from '../../lib/management-vm';
import { KIND_DOWNLOAD, KIND_NODE_IMAGE, KUBECTL_DOWNLOAD } from '../../lib/config/downloads';
import { TOKENS, baseProps, file, fileText, render } from './helpers';

const SCRIPTS = BOOTSTRAP_PATHS.scriptDir;

const CA = '-----BEGIN CERTIFICATE-----\nMIIBsite\n-----END CERTIFICATE-----\n';

describe('renderManagementUserData', () => {
  it('starts with #cloud-config and runs the bootstrap entry point from runcmd', () => {
    const { text, doc } = render();
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    expect(doc.runcmd).toEqual([[`${SCRIPTS}/capi-bootstrap.sh`]]);
    expect(doc.ssh_pwauth).toBe(false);
  });

  it('passes cdktf tokens through verbatim', () => {
    const { text, doc } = render();
    for (const token of Object.values(TOKENS)) expect(text).toContain(token);
    expect(text).toContain('${TfToken[TOKEN.1]}');
    expect(file(doc, BOOTSTRAP_PATHS.caCertificate).content).toBe(TOKENS.caCert);
    expect(file(doc, BOOTSTRAP_PATHS.caPrivateKey).content).toBe(TOKENS.caKey);
  });

  it('embeds the CA and its key base64-encoded, the key root-only; no OpenStack credential at all', () => {
    const { doc } = render();
    expect(file(doc, BOOTSTRAP_PATHS.caCertificate)).toMatchObject({ encoding: 'b64', owner: 'root:root', permissions: '0644' });
    expect(file(doc, BOOTSTRAP_PATHS.caPrivateKey)).toMatchObject({ encoding: 'b64', owner: 'root:root', permissions: '0600' });
    // the controllers use each cluster's own credential: the VM needs none, so it has none to leak
    expect(doc.write_files.filter((f) => f.path.startsWith('/etc/openstack/'))).toEqual([]);
    expect(fileText(doc, `${SCRIPTS}/capi-bootstrap.sh`)).not.toMatch(/clouds\.yaml|application_credential/);
  });

  describe('kind config', () => {
    const kindConfig = (overrides = {}) => parse(fileText(render(overrides).doc, BOOTSTRAP_PATHS.kindConfig));

    it('listens on 0.0.0.0:6443 with the pinned node image', () => {
      const cfg = kindConfig();
      expect(cfg).toMatchObject({ kind: 'Cluster', apiVersion: 'kind.x-k8s.io/v1alpha4', name: 'capi-mgmt' });
      expect(cfg.networking).toMatchObject({ apiServerAddress: '0.0.0.0', apiServerPort: 6443, podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/16' });
      expect(cfg.nodes).toHaveLength(1);
      expect(cfg.nodes[0]).toMatchObject({ role: 'control-plane', image: KIND_NODE_IMAGE });
      expect(cfg.nodes[0].image).toMatch(/@sha256:[0-9a-f]{64}$/);
    });

    it('uses another port when asked', () => {
      expect(kindConfig({ apiServerPort: 16443 }).networking.apiServerPort).toBe(16443);
    });

    it('mounts the Terraform CA where kubeadm reuses it', () => {
      const mounts = kindConfig().nodes[0].extraMounts;
      expect(mounts).toEqual(
        expect.arrayContaining([
          { hostPath: BOOTSTRAP_PATHS.caCertificate, containerPath: '/etc/kubernetes/pki/ca.crt', readOnly: true },
          { hostPath: BOOTSTRAP_PATHS.caPrivateKey, containerPath: '/etc/kubernetes/pki/ca.key', readOnly: true },
        ]),
      );
    });

    it('adds the floating IP and the fixed IP to the API server certSANs', () => {
      const patches: string[] = kindConfig().kubeadmConfigPatches;
      expect(patches).toHaveLength(1);
      const patch = parse(patches[0]);
      expect(patch.kind).toBe('ClusterConfiguration');
      expect(patch.apiServer.certSANs).toEqual(['localhost', '127.0.0.1', '0.0.0.0', TOKENS.floatingIp, TOKENS.fixedIp]);
    });

    it('has no containerd patch or certs mount without mirrors', () => {
      const cfg = kindConfig();
      expect(cfg.containerdConfigPatches).toBeUndefined();
      expect(cfg.nodes[0].extraMounts).toHaveLength(2);
    });

    it('configures containerd registry mirrors', () => {
      const mirror = {
        registry: 'docker.io',
        endpoints: ['https://mirror.example.com:5000', 'https://mirror2.example.com'],
        caCertificatePem: '-----BEGIN CERTIFICATE-----\nMIIBmirror\n-----END CERTIFICATE-----\n',
      };
      const { doc } = render({ registryMirrors: [mirror, { registry: 'quay.io', endpoints: ['https://quay-mirror.example.com'], skipVerify: true }] });
      const cfg = parse(fileText(doc, BOOTSTRAP_PATHS.kindConfig));
      expect(cfg.containerdConfigPatches[0]).toContain('config_path = "/etc/containerd/certs.d"');
      expect(cfg.nodes[0].extraMounts).toContainEqual({ hostPath: BOOTSTRAP_PATHS.containerdCertsDir, containerPath: '/etc/containerd/certs.d', readOnly: true });
      const hub = fileText(doc, `${BOOTSTRAP_PATHS.containerdCertsDir}/docker.io/hosts.toml`);
      expect(hub).toContain('server = "https://registry-1.docker.io"');
      expect(hub).toContain('[host."https://mirror.example.com:5000"]');
      expect(hub).toContain('[host."https://mirror2.example.com"]');
      expect(hub).toContain('ca = "/etc/containerd/certs.d/docker.io/ca.crt"');
      expect(fileText(doc, `${BOOTSTRAP_PATHS.containerdCertsDir}/docker.io/ca.crt`)).toBe(mirror.caCertificatePem);
      const quay = fileText(doc, `${BOOTSTRAP_PATHS.containerdCertsDir}/quay.io/hosts.toml`);
      expect(quay).toContain('server = "https://quay.io"');
      expect(quay).toContain('skip_verify = true');
      // docker itself pulls the node image through the docker.io mirrors
      const daemon = JSON.parse(fileText(doc, BOOTSTRAP_PATHS.dockerDaemonBase));
      expect(daemon['registry-mirrors']).toEqual(mirror.endpoints);
      expect(daemon['insecure-registries']).toBeUndefined();
      expect(fileText(doc, '/etc/docker/certs.d/mirror.example.com:5000/ca.crt')).toBe(mirror.caCertificatePem);
    });
  });

  describe('proxy', () => {
    it('configures nothing proxy-related without httpProxy', () => {
      const { doc, text } = render({ noProxy: ['.example.com'] });
      expect(doc.apt).toBeUndefined();
      expect(doc.write_files.map((f) => f.path)).not.toEqual(expect.arrayContaining([BOOTSTRAP_PATHS.proxyEnv]));
      expect(doc.write_files.map((f) => f.path)).not.toContain(BOOTSTRAP_PATHS.dockerProxyDropIn);
      expect(text).not.toMatch(/proxy\.example|NO_PROXY/);
    });

    it('configures apt, docker and the scripts, with the built-in NO_PROXY entries', () => {
      const proxy = 'http://user:p%40ss@proxy.example.com:3128';
      const { doc } = render({ httpProxy: proxy, noProxy: ['.corp.example', '192.168.0.0/16'] });
      expect(doc.apt).toEqual({ http_proxy: proxy, https_proxy: proxy });
      const env = fileText(doc, BOOTSTRAP_PATHS.proxyEnv);
      const noProxy = 'localhost,127.0.0.1,169.254.169.254,10.0.0.0/24,10.244.0.0/16,10.96.0.0/16,.svc,.cluster.local,.corp.example,192.168.0.0/16';
      expect(env).toContain(`HTTPS_PROXY=${proxy}\n`);
      expect(env).toContain(`NO_PROXY=${noProxy}\n`);
      expect(env).toContain(`no_proxy=${noProxy}\n`);
      expect(file(doc, BOOTSTRAP_PATHS.proxyEnv).permissions).toBe('0600');
      const dropIn = fileText(doc, BOOTSTRAP_PATHS.dockerProxyDropIn);
      expect(dropIn).toContain('[Service]');
      // systemd expands % specifiers, so the escaped password is doubled
      expect(dropIn).toContain('Environment="HTTP_PROXY=http://user:p%%40ss@proxy.example.com:3128"');
      expect(dropIn).toContain(`Environment="NO_PROXY=${noProxy}"`);
    });
  });

  describe('docker and MTU', () => {
    it('installs Ubuntu docker.io through apt and detects the MTU by default', () => {
      const script = fileText(render().doc, `${SCRIPTS}/install-docker.sh`);
      expect(script).toContain('apt-get -o DPkg::Lock::Timeout=300 install -y -q docker.io');
      expect(script).toContain('readonly CONFIGURED_MTU=0');
      expect(script).toContain('ip -o -4 route show default');
      expect(script).toContain('config["mtu"] = int(sys.argv[2])');
    });

    it('uses a configured MTU', () => {
      expect(fileText(render({ mtu: 1450 }).doc, `${SCRIPTS}/install-docker.sh`)).toContain('readonly CONFIGURED_MTU=1450');
    });

    it('rejects an impossible MTU', () => {
      expect(() => renderManagementUserData(baseProps({ mtu: 100 }))).toThrow(/mtu: expected 0 \(detect\) or an integer between 576 and 9000/);
    });
  });

  describe('metadata service block', () => {
    it('installs units before and after docker that run the block script', () => {
      const { doc } = render();
      const early = fileText(doc, `/etc/systemd/system/${METADATA_BLOCK_UNITS.early}`);
      expect(early).toContain('Before=docker.service');
      expect(early).toContain('RequiredBy=docker.service');
      expect(early).toContain(`ExecStart=${SCRIPTS}/metadata-block.sh early`);
      const late = fileText(doc, `/etc/systemd/system/${METADATA_BLOCK_UNITS.dockerUser}`);
      expect(late).toContain('After=docker.service');
      expect(late).toContain('PartOf=docker.service');
      expect(late).toContain(`ExecStart=${SCRIPTS}/metadata-block.sh docker-user`);
    });

    it('covers IPv4 and IPv6, docker bridges and non-root host processes (the rules run in scripts-behaviour)', () => {
      const script = fileText(render().doc, `${SCRIPTS}/metadata-block.sh`);
      expect(script).toContain('readonly METADATA4=169.254.169.254/32');
      expect(script).toContain('readonly METADATA6=fe80::a9fe:a9fe/128');
      expect(script).toContain("readonly BRIDGES=(docker0 'br-+')");
      expect(script).toContain('ip6tables raw PREROUTING -i $bridge -d $METADATA6 -j DROP');
      expect(script).toContain('iptables filter OUTPUT -d $METADATA4 -m owner ! --uid-owner 0 -j REJECT');
    });

    it('blocks before docker is installed and verifies after', () => {
      const main = fileText(render().doc, `${SCRIPTS}/capi-bootstrap.sh`);
      const order = ['metadata-block-early', 'docker', 'metadata-block', 'download-tools', 'kind-cluster', 'clusterctl-init'].map((s) =>
        main.indexOf(`run_step ${s} `),
      );
      expect(order.every((i) => i > 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
    });
  });

  it('accepts raw Terraform expressions where tokens are accepted', () => {
    const expr = '${openstack_networking_floatingip_v2.mgmt.address}';
    const { doc } = render({ apiServerAddress: expr });
    const patch = parse(parse(fileText(doc, BOOTSTRAP_PATHS.kindConfig)).kubeadmConfigPatches[0]);
    expect(patch.apiServer.certSANs).toContain(expr);
  });

  it('stays well under the Nova user data limit', () => {
    const { text } = render({
      httpProxy: 'http://proxy.example.com:3128',
      registryMirrors: [{ registry: 'docker.io', endpoints: ['https://mirror.example.com'] }],
      sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyKeyKey operator@example'],
    });
    // 64 KiB after base64 (about 48 KiB raw); leave room for the CA, key and clouds.yaml (~6 KiB).
    expect(Buffer.byteLength(text)).toBeLessThan(36 * 1024);
  });

  describe('trusted CAs', () => {
    it('go to cloud-init\'s ca_certs, one entry per certificate, before runcmd runs the bootstrap', () => {
      const { doc } = render({ trustedCaCertificatesPem: `${CA}\r\n${CA.replace('MIIBsite', 'MIIBproxy')}` });
      expect(doc.ca_certs).toEqual({ trusted: [CA, CA.replace('MIIBsite', 'MIIBproxy')] });
    });
    it('are left out by default (the image\'s trust store only)', () => {
      expect(render().doc.ca_certs).toBeUndefined();
    });
    it('refuses a private key without echoing it', () => {
      expect(() => renderManagementUserData(baseProps({ trustedCaCertificatesPem: `${CA}-----BEGIN EC PRIVATE KEY-----\nMHcCAQsecret\n-----END EC PRIVATE KEY-----\n` }))).toThrow(/^((?!MHcCAQsecret).)*$/s);
    });
  });

  describe('validation', () => {
    const cases: [string, Parameters<typeof baseProps>[0], RegExp][] = [
      ['cluster name', { kindClusterName: 'Capi_Mgmt' }, /kindClusterName: expected lowercase/],
      ['token cluster name', { kindClusterName: '${TfToken[TOKEN.7]}' }, /kindClusterName: expected a literal value/],
      ['port', { apiServerPort: 70000 }, /apiServerPort/],
      ['CIDR', { managementCidr: '10.0.0.0' }, /managementCidr: expected an IPv4 CIDR/],
      ['proxy', { httpProxy: 'proxy:3128' }, /httpProxy: expected/],
      ['base64', { caPrivateKeyPemBase64: '-----BEGIN' }, /caPrivateKeyPemBase64: expected base64/],
      ['node image without digest', { versions: { ...baseProps().versions, kindNodeImage: 'kindest/node:v1.35.0' } }, /kindNodeImage: expected an image pinned by digest/],
      ['checksum', { versions: { ...baseProps().versions, kind: { ...KIND_DOWNLOAD, sha256: 'abc' } } }, /versions.kind.sha256: expected 64 lowercase hex/],
      ['http download', { versions: { ...baseProps().versions, kubectl: { ...KUBECTL_DOWNLOAD, url: 'http://dl.k8s.io/kubectl' } } }, /versions.kubectl.url: expected an https/],
      ['controller version', { versions: { ...baseProps().versions, capo: 'latest' } }, /versions.capo: expected a release version/],
      ['mirror without endpoints', { registryMirrors: [{ registry: 'docker.io', endpoints: [] }] }, /registryMirrors\[0\].endpoints/],
      ['mirror URL', { registryMirrors: [{ registry: 'docker.io', endpoints: ['mirror.example.com'] }] }, /registryMirrors\[0\].endpoints\[0\]: expected an http/],
      ['ssh key', { sshAuthorizedKeys: ['not a key'] }, /sshAuthorizedKeys\[0\]/],
      ['no-proxy entry', { httpProxy: 'http://p:1', noProxy: ['a b'] }, /noProxy: expected a host/],
      ['trusted CA without a certificate', { trustedCaCertificatesPem: 'not a certificate' }, /trustedCaCertificatesPem: expected PEM certificates/],
      ['trusted CA with a private key', { trustedCaCertificatesPem: `${CA}-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n` }, /trustedCaCertificatesPem: expected certificates only, found a private key block/],
      ['trusted CA with other text', { trustedCaCertificatesPem: `${CA}runcmd: [reboot]\n` }, /trustedCaCertificatesPem: expected only PEM certificate blocks, found other text: "runcmd: \[reboot\]"/],
      ['trusted CA as a token', { trustedCaCertificatesPem: '${TfToken[TOKEN.8]}' }, /trustedCaCertificatesPem: expected a literal value/],
    ];
    it.each(cases)('rejects a bad %s', (_name, overrides, message) => {
      expect(() => renderManagementUserData(baseProps(overrides))).toThrow(message);
    });
  });
});
