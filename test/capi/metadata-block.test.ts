/**
 * The metadata block of the workload nodes as rendered into the KubeadmControlPlane and every
 * KubeadmConfigTemplate: its script and unit, enabled before kubeadm (whose init/join starts
 * kubelet) on every node role, read back through cloud-init's own Jinja byte for byte, checked by
 * shellcheck and systemd; off when `blockMetadataService: false`. The rules themselves run for real
 * in metadata-block-behaviour.test.ts.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { buildAddonObjects } from '../../lib/addons';
import { KubeObject, buildClusterObjects } from '../../lib/capi';
import { NODE_METADATA_BLOCK_SCRIPT, NODE_METADATA_BLOCK_UNIT, renderNodeMetadataBlockScript, renderNodeMetadataBlockUnit } from '../../lib/capi/metadata-block';
import { NodeFile } from '../../lib/capi/node-files';
import { EnvironmentConfig } from '../../lib/config';
import { blockBeforeRuntimeCommand, hostProbes, metadataStandInCommand, probeScript, stopMetadataStandInCommand } from '../e2e/helpers/metadata-block-checks';
import { itWithTool, run, tempDir } from '../management-vm/helpers';
import { renderWithCloudInit } from '../support/cloud-init-jinja';
import { decodedContent, nodeUserDataDocuments } from '../support/node-user-data';
import { refusalOf } from '../support/refusal';
import { clusterOf, inputsFor, makeEnv } from './fixtures';

const UNIT_PATH = `/etc/systemd/system/${NODE_METADATA_BLOCK_UNIT}`;
const ENABLE = `systemctl enable --now ${NODE_METADATA_BLOCK_UNIT}`;

/** Every option that adds files or commands of its own, so the block's order is seen among them. */
const env = makeEnv(
  [
    'proxy:',
    '  httpProxy: "http://proxy.example:3128"',
    'clusters:',
    '  on:',
    '    controlPlane: {count: 3, etcdUnsafeFilesystem: true}',
    '    nodeGroups: [{name: md-0}, {name: md-1}]',
    '  off:',
    '    blockMetadataService: false',
    '    controlPlane: {count: 3, etcdUnsafeFilesystem: true}',
    '    nodeGroups: [{name: md-0}, {name: md-1}]',
    '',
  ].join('\n'),
);

function bootstrapSpecs(e: EnvironmentConfig, cluster: string): [string, any][] {
  const objs = buildClusterObjects(inputsFor(e, cluster));
  return [
    ['control plane', (objs.find((o) => o.kind === 'KubeadmControlPlane')!.spec as any).kubeadmConfigSpec],
    ...objs.filter((o) => o.kind === 'KubeadmConfigTemplate').map((o): [string, any] => [`node group ${o.metadata.labels!['capi-openstack-cdktf/role']}`, (o.spec as any).template.spec]),
  ];
}

function file(spec: any, p: string): NodeFile | undefined {
  return (spec.files as NodeFile[] | undefined)?.find((f) => f.path === p);
}

describe('rendered into every kubeadm config spec', () => {
  test('the control plane and each node group carry the script (root only) and the unit, enabled first of all commands', () => {
    const specs = bootstrapSpecs(env, 'on');
    expect(specs.map(([where]) => where)).toEqual(['control plane', 'node group md-0', 'node group md-1']);
    for (const [where, spec] of specs) {
      expect({ where, script: file(spec, NODE_METADATA_BLOCK_SCRIPT) }).toEqual({ where, script: { path: NODE_METADATA_BLOCK_SCRIPT, owner: 'root:root', permissions: '0750', content: renderNodeMetadataBlockScript() } });
      expect({ where, unit: file(spec, UNIT_PATH) }).toEqual({ where, unit: { path: UNIT_PATH, owner: 'root:root', permissions: '0644', content: renderNodeMetadataBlockUnit() } });
      // daemon-reload (shared with the proxy drop-ins and the etcd mount) then the block, before anything else
      expect({ where, first: spec.preKubeadmCommands.slice(0, 2) }).toEqual({ where, first: ['systemctl daemon-reload', ENABLE] });
      expect({ where, once: spec.preKubeadmCommands.filter((c: string) => c === ENABLE).length }).toEqual({ where, once: 1 });
    }
  });

  test('the unit runs the script on every boot before containerd and kubelet, which require it', () => {
    const unit = renderNodeMetadataBlockUnit();
    expect(unit).toContain(`ExecStart=${NODE_METADATA_BLOCK_SCRIPT} apply\n`);
    expect(unit).toContain('Before=containerd.service kubelet.service\n');
    expect(unit).toContain('RequiredBy=containerd.service kubelet.service\n');
    expect(unit).toContain('Type=oneshot\nRemainAfterExit=yes\n');
  });

  test('the script applies the raw PREROUTING and OUTPUT rules of both address families', () => {
    const script = renderNodeMetadataBlockScript();
    expect(script).toContain('readonly METADATA4=169.254.169.254/32\nreadonly METADATA6=fe80::a9fe:a9fe/128\n');
    expect(script).toContain('echo "iptables raw PREROUTING ! -i lo -d $METADATA4 -j DROP"');
    expect(script).toContain('echo "iptables filter OUTPUT -d $METADATA4 -m owner ! --uid-owner 0 -j REJECT"');
    expect(script).toContain('echo "ip6tables raw PREROUTING ! -i lo -d $METADATA6 -j DROP"');
    expect(script).toContain('echo "ip6tables filter OUTPUT -d $METADATA6 -m owner ! --uid-owner 0 -j REJECT"');
  });

  test('blockMetadataService: false renders none of it, on any node, and leaves Cilium\'s host routing alone', () => {
    for (const [where, spec] of bootstrapSpecs(env, 'off')) {
      expect({ where, files: (spec.files as NodeFile[]).map((f) => f.path).filter((p) => p.includes('metadata-block')) }).toEqual({ where, files: [] });
      expect({ where, enable: (spec.preKubeadmCommands as string[]).filter((c) => c.includes('metadata-block')) }).toEqual({ where, enable: [] });
    }
    expect(ciliumValues(env, 'off').bpf).toBeUndefined();
  });

  test('the setting defaults to on; anything but a boolean is refused naming file, line and field', () => {
    expect(clusterOf(makeEnv('clusters:\n  c: {}\n'), 'c').spec.blockMetadataService).toBe(true);
    const e = refusalOf(() => makeEnv('clusters:\n  c:\n    blockMetadataService: "no"\n'));
    expect(e.issues.map((i) => i.path)).toEqual(['clusters.c.blockMetadataService']);
    expect(e.message).toMatch(/\.yaml:\d+:27: clusters\.c\.blockMetadataService: expected a boolean, found "no"/);
  });
});

describe('Cilium keeps pod traffic in the host\'s netfilter', () => {
  test('legacy host routing is set whenever the block is on (BPF host routing would bypass the raw PREROUTING rule)', () => {
    const v = ciliumValues(env, 'on');
    expect(v.bpf).toEqual({ hostLegacyRouting: true });
    // and nothing asks for what BPF host routing needs or implies
    expect(v.kubeProxyReplacement).toBeUndefined();
    expect(v.bpf.masquerade).toBeUndefined();
  });
});

function ciliumValues(e: EnvironmentConfig, cluster: string): any {
  const hcp = buildAddonObjects({ env: e, cluster: clusterOf(e, cluster) }).find((o: KubeObject) => o.kind === 'HelmChartProxy' && o.metadata.labels?.['capi-openstack-cdktf/addon'] === 'cilium')!;
  return parse((hcp.spec as any).valuesTemplate);
}

describe('as the node receives it', () => {
  const withCloudInit = itWithTool('cloud-init', 'cloud-init');

  withCloudInit('cloud-init\'s Jinja gives back the script and unit byte for byte, and runs the block before kubeadm, on every role', () => {
    const documents = nodeUserDataDocuments(buildClusterObjects(inputsFor(env, 'on')));
    expect(documents.map((d) => d.role)).toEqual(['init', 'join-control-plane', 'worker']);
    const outputs = renderWithCloudInit(documents.map((d) => d.text));
    for (const [n, { role }] of documents.entries()) {
      const written = new Map(outputs[n].config.write_files.map((f) => [f.path, decodedContent(f)]));
      expect({ role, script: written.get(NODE_METADATA_BLOCK_SCRIPT) }).toEqual({ role, script: renderNodeMetadataBlockScript() });
      expect({ role, unit: written.get(UNIT_PATH) }).toEqual({ role, unit: renderNodeMetadataBlockUnit() });
      const runcmd = outputs[n].config.runcmd as string[];
      const kubeadm = runcmd.findIndex((c) => /^kubeadm (init|join) /.test(c));
      expect({ role, enabledBeforeKubeadm: runcmd.indexOf(ENABLE) >= 0 && runcmd.indexOf(ENABLE) < kubeadm }).toEqual({ role, enabledBeforeKubeadm: true });
    }
  });

  itWithTool('shellcheck', 'shellcheck')('the script, and the bash the real-nodes suite runs on a node, are shellcheck-clean', () => {
    const dir = tempDir('node-metadata-block-');
    const scripts: Record<string, string> = {
      'capi-metadata-block': renderNodeMetadataBlockScript(),
      'metadata-standin': metadataStandInCommand()[2],
      'stop-metadata-standin': stopMetadataStandInCommand()[2],
      'block-before-runtime': blockBeforeRuntimeCommand()[2],
      'probe': probeScript('169.254.169.254'),
      ...Object.fromEntries(hostProbes('10.0.0.5').filter((p) => p.argv.includes('-c')).map((p, i) => [`host-probe-${i}`, p.argv[p.argv.length - 1]])),
    };
    for (const [name, text] of Object.entries(scripts)) fs.writeFileSync(path.join(dir, name), text.startsWith('#!') ? text : `#!/usr/bin/env bash\n${text}\n`);
    const r = run('shellcheck', ['--severity=style', '--shell=bash', ...Object.keys(scripts)], { cwd: dir });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
