/** Each node role's user data as Cluster API renders it from built objects (our kubeadm sections stand in for kubeadm's YAML). */
import { gunzipSync } from 'zlib';
import { stringify } from 'yaml';
import { KubeObject } from '../../lib/capi';
import { NodeBootstrapRole, capiCloudConfig } from '../../lib/capi/node-user-data';

export interface NodeDocument {
  readonly role: NodeBootstrapRole;
  /** The KubeadmConfigSpec it was made from. */
  readonly spec: any;
  readonly text: string;
}

export function nodeUserDataDocuments(objs: readonly KubeObject[]): NodeDocument[] {
  const kcp = (objs.find((o) => o.kind === 'KubeadmControlPlane')!.spec as any).kubeadmConfigSpec;
  const worker = (objs.find((o) => o.kind === 'KubeadmConfigTemplate')!.spec as any).template.spec;
  return [
    { role: 'init', spec: kcp, text: capiCloudConfig(kcp, 'init', { kubeadmYaml: `${stringify(kcp.clusterConfiguration)}---\n${stringify(kcp.initConfiguration)}` }) },
    { role: 'join-control-plane', spec: kcp, text: capiCloudConfig(kcp, 'join-control-plane', { kubeadmYaml: stringify(kcp.joinConfiguration) }) },
    { role: 'worker', spec: worker, text: capiCloudConfig(worker, 'worker', { kubeadmYaml: stringify(worker.joinConfiguration) }) },
  ];
}

/** A write_files entry's text (gzip+base64 decoded). */
export function decodedContent(f: { content: string; encoding?: string }): string {
  return f.encoding === 'gzip+base64' ? gunzipSync(Buffer.from(f.content, 'base64')).toString('utf8') : f.content;
}

/** The words of the `Environment=` lines of a unit file as systemd reads them (`%%` is `%`). */
export function systemdEnvironment(content: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of content.split('\n').filter((l) => l.startsWith('Environment='))) {
    for (const [, word] of line.slice('Environment='.length).matchAll(/"([^"]*)"/g)) {
      const [name, ...value] = word.split('=');
      vars[name] = value.join('=').replace(/%(.)/g, (_, c: string) => (c === '%' ? '%' : `<specifier %${c}>`));
    }
  }
  return vars;
}
