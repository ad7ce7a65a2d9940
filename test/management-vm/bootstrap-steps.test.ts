import { BOOTSTRAP_PATHS } from '../../lib/management-vm';
import { CLUSTERCTL_DOWNLOAD, KIND_DOWNLOAD, KUBECTL_DOWNLOAD } from '../../lib/config/downloads';
import { baseProps, fileText, render } from './helpers';

const SCRIPTS = BOOTSTRAP_PATHS.scriptDir;


describe('renderManagementUserData: the bootstrap steps', () => {
  describe('downloads', () => {
    it('verifies kind, kubectl and clusterctl against their pinned SHA-256', () => {
      const script = fileText(render().doc, `${SCRIPTS}/download-tools.sh`);
      for (const [name, d] of [['kind', KIND_DOWNLOAD], ['kubectl', KUBECTL_DOWNLOAD], ['clusterctl', CLUSTERCTL_DOWNLOAD]] as const) {
        expect(script).toContain(`install_verified ${name} ${d.url} ${d.sha256}`);
      }
      const lib = fileText(render().doc, `${SCRIPTS}/lib.sh`);
      expect(lib).toContain('CHECKSUM MISMATCH');
      expect(lib).toContain('retry 5 10 curl -fsSL');
    });
  });

  describe('clusterctl init', () => {
    it('installs the pinned providers with ClusterClass and ClusterResourceSet enabled', () => {
      const script = fileText(render().doc, `${SCRIPTS}/clusterctl-init.sh`);
      expect(script).toContain('readonly CAPI_VERSION=v1.12.10');
      expect(script).toContain('readonly CAPO_VERSION=v0.14.7');
      expect(script).toContain('readonly CAAPH_VERSION=v0.6.4');
      expect(script).toContain('export CLUSTER_TOPOLOGY=true');
      expect(script).toContain('export EXP_CLUSTER_RESOURCE_SET=true');
      expect(script).toContain('want --core cluster-api "cluster-api:$CAPI_VERSION"');
      expect(script).toContain('want --bootstrap bootstrap-kubeadm "kubeadm:$CAPI_VERSION"');
      expect(script).toContain('want --control-plane control-plane-kubeadm "kubeadm:$CAPI_VERSION"');
      expect(script).toContain('want --infrastructure infrastructure-openstack "openstack:$CAPO_VERSION"');
      expect(script).toContain('want --addon addon-helm "helm:$CAAPH_VERSION"');
      expect(script).toContain('clusterctl init "${args[@]}" --wait-providers');
    });

    it('installs openstack-resource-controller before CAPO', () => {
      const script = fileText(render().doc, `${SCRIPTS}/clusterctl-init.sh`);
      expect(script).toContain('readonly ORC_VERSION=v2.4.0');
      expect(script.indexOf('kubectl apply --server-side --force-conflicts -f "$ORC_MANIFEST"')).toBeLessThan(script.indexOf('retry 3 30 init_missing'));
      const custom = fileText(render({ versions: { ...baseProps().versions, orc: 'v2.5.0' } }).doc, `${SCRIPTS}/clusterctl-init.sh`);
      expect(custom).toContain('readonly ORC_VERSION=v2.5.0');
    });
  });

  describe('logging and markers', () => {
    it('logs to /var/log/capi-bootstrap.log and writes done / error markers', () => {
      const main = fileText(render().doc, `${SCRIPTS}/capi-bootstrap.sh`);
      expect(main).toContain('readonly LOG_FILE=${CAPI_BOOTSTRAP_LOG_FILE:-/var/log/capi-bootstrap.log}');
      expect(main).toContain('readonly STATE_DIR=${CAPI_BOOTSTRAP_STATE_DIR:-/var/lib/capi-bootstrap}');
      expect(main).toContain('>"$STATE_DIR/done"');
      expect(main).toContain('>"$STATE_DIR/error"');
    });

    it('writes every script root-only, encoded so Terraform cannot read template syntax into it', () => {
      const { doc } = render();
      const scripts = doc.write_files.filter((f) => f.path.startsWith(`${SCRIPTS}/`));
      expect(scripts.map((f) => f.path.slice(SCRIPTS.length + 1)).sort()).toEqual(
        ['capi-bootstrap.sh', 'clusterctl-init.sh', 'create-kind-cluster.sh', 'download-tools.sh', 'enable-metadata-block.sh', 'install-docker.sh', 'lib.sh', 'metadata-block.sh'].sort(),
      );
      for (const f of scripts) {
        expect(f.encoding).toBe('b64');
        expect(f.permissions).toBe(f.path.endsWith('lib.sh') ? '0600' : '0700');
        const text = Buffer.from(f.content, 'base64').toString('utf8');
        if (!f.path.endsWith('lib.sh')) {
          expect(text.startsWith('#!/usr/bin/env bash\n')).toBe(true);
          expect(text).toContain('set -euo pipefail');
        }
      }
    });
  });

  describe('SSH access', () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyKeyKey operator@example';

    it('adds keys to the image default user', () => {
      const { doc } = render({ sshAuthorizedKeys: [key] });
      expect(doc.ssh_authorized_keys).toEqual([key]);
      expect(doc.users).toBeUndefined();
    });

    it('creates another user with the keys', () => {
      const { doc } = render({ sshAuthorizedKeys: [key], sshUsername: 'capi' });
      expect(doc.users).toEqual(['default', expect.objectContaining({ name: 'capi', ssh_authorized_keys: [key], lock_passwd: true })]);
    });

    it('adds nothing without keys', () => {
      const { doc } = render();
      expect(doc.users).toBeUndefined();
      expect(doc.ssh_authorized_keys).toBeUndefined();
    });
  });
});
