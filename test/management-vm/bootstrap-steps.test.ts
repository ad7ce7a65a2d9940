import { BOOTSTRAP_PATHS } from '../../lib/management-vm';
import { CLUSTERCTL_DOWNLOAD, KIND_DOWNLOAD, KUBECTL_DOWNLOAD } from '../../lib/config/downloads';
import { manifestDownloads, PROVIDER_MANIFEST_FILES } from '../../lib/config/provider-manifests';
import { baseProps, fileText, render } from './helpers';

const SCRIPTS = BOOTSTRAP_PATHS.scriptDir;
const VERSIONS_NODE_IMAGE = baseProps().versions.kindNodeImage;


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
      // side by side with clusterctl init (no wait of its own); its apply must have succeeded
      // before the wait for every deployment, ORC's among them
      expect(script).toContain('retry 5 20 kubectl apply --server-side --force-conflicts -f "$ORC_MANIFEST" >/dev/null &\norc_apply=$!\n');
      expect(script).not.toContain('-n orc-system');
      const waitOrc = script.indexOf('wait "$orc_apply" || die');
      expect(waitOrc).toBeGreaterThan(script.indexOf('retry 3 30 init_missing'));
      expect(waitOrc).toBeLessThan(script.indexOf('kubectl wait --for=condition=Available deployment --all --all-namespaces'));
      const custom = fileText(render({ versions: { ...baseProps().versions, orc: 'v2.5.0' } }).doc, `${SCRIPTS}/clusterctl-init.sh`);
      expect(custom).toContain('readonly ORC_VERSION=v2.5.0');
    });
  });

  describe('pace: what does not depend on each other runs side by side', () => {
    const PINNED = manifestDownloads(
      { clusterApi: 'v1.12.10', capo: 'v0.14.7', caaph: 'v0.6.4', orc: 'v2.4.0', certManager: 'v1.19.4' },
      Object.fromEntries(PROVIDER_MANIFEST_FILES.map((f, i) => [f.key, String(i % 10).repeat(64)])),
    );
    /** The entry point's calls: `run_step <name>` and `side_by_side` lines and the branch functions, in order. */
    const plan = (main: string) => main.split('\n').filter((l) => /^(\s*run_step |side_by_side |stage_\d+_branch_\d+\(\))/.test(l)).map((l) => l.trim().split(' ').slice(0, 2).join(' '));

    it('metadata block first; docker, its block and the kind node image beside the verified downloads; then kind, then clusterctl', () => {
      expect(plan(fileText(render({ providerManifests: PINNED }).doc, `${SCRIPTS}/capi-bootstrap.sh`))).toEqual([
        'run_step metadata-block-early',
        'stage_2_branch_1() {',
        'run_step docker',
        'run_step metadata-block',
        'run_step pull-node-image',
        'stage_2_branch_2() {',
        'run_step download-tools',
        'run_step fetch-manifests',
        'side_by_side stage_2_branch_1',
        'run_step kind-cluster',
        'run_step clusterctl-init',
      ]);
      expect(plan(fileText(render().doc, `${SCRIPTS}/capi-bootstrap.sh`))).not.toContain('run_step fetch-manifests');
    });

    it('pulls the kind node image in a step of its own; the kind step pulls it only when it is missing', () => {
      const { doc } = render();
      const pull = fileText(doc, `${SCRIPTS}/pull-node-image.sh`);
      expect(pull).toContain(`readonly NODE_IMAGE=${VERSIONS_NODE_IMAGE}`);
      expect(pull).toContain('retry 5 20 docker pull -q "$NODE_IMAGE"');
      const kind = fileText(doc, `${SCRIPTS}/create-kind-cluster.sh`);
      expect(kind).toContain('if ! docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then\n    log "pulling $NODE_IMAGE"\n    retry 5 20 docker pull');
    });

    it('with pinned manifests, the kind step pre-pulls their images into the node in the background while the cluster starts', () => {
      const { doc } = render({ providerManifests: PINNED });
      const kind = fileText(doc, `${SCRIPTS}/create-kind-cluster.sh`);
      const start = kind.indexOf('"$(dirname "$0")/prepull-images.sh" "$CLUSTER-control-plane" &\n');
      expect(start).toBeGreaterThan(0);
      expect(start).toBeLessThan(kind.indexOf('kind create cluster'));
      const prepull = fileText(doc, `${SCRIPTS}/prepull-images.sh`);
      expect(prepull).toContain('readonly REPO_DIR=${CAPI_BOOTSTRAP_REPOSITORY_DIR:-/var/lib/capi-bootstrap/repository}');
      expect(prepull).toContain('docker exec "$NODE" ctr -n k8s.io images pull "${args[@]}" "$1"');
      expect(prepull).toContain('args+=(--hosts-dir /etc/containerd/certs.d)');
      // not before kubeadm has started the kubelet (containerd restarted by kind, control plane starting)
      expect(prepull).toContain('until docker exec "$NODE" test -e /etc/kubernetes/pki/apiserver.crt 2>/dev/null && docker exec "$NODE" systemctl is-active --quiet kubelet.service; do');
      // without pinned manifests there is nothing verified to read image names from
      const plain = render().doc;
      expect(fileText(plain, `${SCRIPTS}/create-kind-cluster.sh`)).not.toContain('prepull-images.sh');
      expect(plain.write_files.map((f) => f.path)).not.toContain(`${SCRIPTS}/prepull-images.sh`);
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
        ['capi-bootstrap.sh', 'clusterctl-init.sh', 'create-kind-cluster.sh', 'download-tools.sh', 'enable-metadata-block.sh', 'install-docker.sh', 'lib.sh', 'metadata-block.sh', 'pull-node-image.sh'].sort(),
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
