/**
 * The user data Cluster API's kubeadm bootstrap provider makes of a KubeadmConfigSpec with
 * `format: cloud-config` (v1.14, bootstrap/kubeadm/pkg/cloudinit): the `## template: jinja` header,
 * `#cloud-config`, `write_files` (its certificates first, then `files`, each content indented by six
 * spaces under `content: |`), the kubeadm configuration file and a placeholder, then `runcmd` with
 * every command Go-quoted, the kubeadm command between the pre- and post-kubeadm commands.
 * Used to measure what a node receives and, in tests, to render it as cloud-init does.
 */
import type { NodeFile } from './node-files';

/** Which template CAPI uses: the first control-plane node, a joining control-plane node, or a worker. */
export type NodeBootstrapRole = 'init' | 'join-control-plane' | 'worker';

/** The parts of a KubeadmConfigSpec that reach the user data as we wrote them. */
export interface NodeBootstrapParts {
  readonly files?: readonly NodeFile[];
  readonly preKubeadmCommands?: readonly string[];
  readonly postKubeadmCommands?: readonly string[];
}

/** What only Cluster API knows when it renders: the kubeadm configuration as kubeadm's YAML, certificates. */
export interface CapiAdditions {
  /** The configuration file's YAML (ClusterConfiguration `---` InitConfiguration, or JoinConfiguration). */
  readonly kubeadmYaml: string;
  /** Files CAPI writes before ours (a control-plane node's CA certificates and keys). */
  readonly certificateFiles?: readonly NodeFile[];
}

const HEADER = '## template: jinja\n#cloud-config\n';
const PLACEHOLDER =
  '"This placeholder file is used to create the /run/cluster-api sub directory in a way that is compatible with both Linux and Windows (mkdir -p /run/cluster-api does not work with Windows)"';
const SENTINEL = 'echo success > /run/cluster-api/bootstrap-success.complete';

/** The user data CAPI renders for `role` from `parts`, with `capi` filled in. */
export function capiCloudConfig(parts: NodeBootstrapParts, role: NodeBootstrapRole, capi: CapiAdditions): string {
  const files = [...(capi.certificateFiles ?? []), ...(parts.files ?? [])];
  const configPath = role === 'init' ? '/run/kubeadm/kubeadm.yaml' : '/run/kubeadm/kubeadm-join-config.yaml';
  const configText = role === 'join-control-plane' ? capi.kubeadmYaml : `---\n${capi.kubeadmYaml}`;
  const kubeadm =
    role === 'init'
      ? `'kubeadm init --config /run/kubeadm/kubeadm.yaml  && ${SENTINEL}'`
      : `kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml  && ${SENTINEL}`;
  return [
    `${HEADER}\nwrite_files:`,
    ...files.map(fileEntry),
    `\n-   path: ${configPath}\n    owner: root:root\n    permissions: '0640'\n    content: |\n${indent(configText)}`,
    `\n-   path: /run/cluster-api/placeholder\n    owner: root:root\n    permissions: '0640'\n    content: ${PLACEHOLDER}`,
    '\nruncmd:',
    ...(parts.preKubeadmCommands ?? []).map(command),
    `\n  - ${kubeadm}`,
    ...(parts.postKubeadmCommands ?? []).map(command),
    '\n',
  ].join('');
}

function fileEntry(f: NodeFile): string {
  const encoding = f.encoding ? `    encoding: "${f.encoding}"\n` : '';
  const owner = f.owner ? `    owner: ${f.owner}\n` : '';
  const permissions = f.permissions ? `    permissions: '${f.permissions}'\n` : '';
  return `\n-   path: ${f.path}\n${encoding}${owner}${permissions}    content: |\n${indent(f.content)}`;
}

function command(c: string): string {
  return `\n  - ${goQuote(c)}`;
}

/** CAPI's `Indent 6`: six spaces before every line, the empty one after a final line break included. */
function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}

/** Go's `%q` of a string (strconv.Quote): printable characters as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
    if (named[ch]) out += named[ch];
    else if (ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}
