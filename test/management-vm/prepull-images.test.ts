/** What prepull-images.sh reads, its awk programs run by the real awk implementations on real text. */
import * as fs from 'fs';
import * as path from 'path';
import { CONTAINERD_SNAPSHOTTER_AWK, MANIFEST_IMAGES_AWK } from '../../lib/management-vm/scripts/prepull-images-sh';
import { run, tempDir } from './helpers';

// Ubuntu and Debian images ship mawk as awk; gawk where it is installed
describe.each(['mawk', 'gawk'].filter((a) => run('sh', ['-c', `command -v ${a}`]).status === 0))('prepull-images.sh: what it reads (%s on real text)', (bin) => {
  const awk = (program: string, input: string) => {
    const dir = tempDir('prepull-');
    fs.writeFileSync(path.join(dir, 'program.awk'), program);
    fs.writeFileSync(path.join(dir, 'input'), input);
    return run(bin, ['-f', path.join(dir, 'program.awk'), path.join(dir, 'input')]).stdout;
  };

  it('names every container image of a manifest as containerd does, and skips what only clusterctl could fill in', () => {
    const manifest = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - image: registry.k8s.io/cluster-api/cluster-api-controller:v1.12.10',
      '          imagePullPolicy: IfNotPresent',
      '        - name: webhook',
      '          image: "quay.io/jetstack/cert-manager-webhook:v1.19.4"',
      "          image: 'ghcr.io/example/quoted:v1' # a comment",
      '          image: busybox',
      '          image: example/tool@sha256:' + 'a'.repeat(64),
      '          image: localhost:5000/local',
      '          image: ${CAPO_IMAGE:=registry.k8s.io/capi-openstack/capi-openstack-controller:v0.14.7}',
      '---',
      '# a CRD property called image, not a container',
      '                image:',
      '                  type: string',
      '                description: "the image: used"',
    ].join('\n');
    expect(awk(MANIFEST_IMAGES_AWK, manifest).split('\n').filter(Boolean)).toEqual([
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.10',
      'quay.io/jetstack/cert-manager-webhook:v1.19.4',
      'ghcr.io/example/quoted:v1',
      'docker.io/library/busybox:latest',
      'docker.io/example/tool@sha256:' + 'a'.repeat(64),
      'localhost:5000/local:latest',
    ]);
  });

  it('finds the CRI snapshotter in containerd 1.x (config version 2) and 2.x (version 3), nowhere else', () => {
    const v2 = [
      'version = 2',
      '[plugins]',
      '  [plugins."io.containerd.gc.v1.scheduler"]',
      '    snapshotter = "wrong"',
      '  [plugins."io.containerd.grpc.v1.cri"]',
      '    sandbox_image = "registry.k8s.io/pause:3.10"',
      '    [plugins."io.containerd.grpc.v1.cri".containerd]',
      '      default_runtime_name = "runc"',
      '      snapshotter = "overlayfs"',
      '  [plugins."io.containerd.snapshotter.v1.native"]',
    ].join('\n');
    expect(awk(CONTAINERD_SNAPSHOTTER_AWK, v2)).toBe('overlayfs\n');
    const v3 = ['version = 3', '[plugins]', "  [plugins.'io.containerd.cri.v1.images']", "    snapshotter = 'native'", "  [plugins.'io.containerd.cri.v1.runtime']", "    snapshotter = 'wrong'"].join('\n');
    expect(awk(CONTAINERD_SNAPSHOTTER_AWK, v3)).toBe('native\n');
    expect(awk(CONTAINERD_SNAPSHOTTER_AWK, '[plugins]\n  [plugins."io.containerd.snapshotter.v1.overlayfs"]\n    snapshotter = "x"\n')).toBe('');
  });
});
