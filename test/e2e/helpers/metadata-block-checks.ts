/**
 * The workload nodes' metadata block checked on a booted node (the real-nodes suite): a pod and a
 * non-root hostNetwork pod cannot reach the metadata address, root on the node reads the user data,
 * each with a control that the same probe reaches an open address.
 *
 * A node stand-in boots from a NoCloud seed and has no metadata service, so the check first starts
 * a stand-in of it ON THE NODE (test tooling): 169.254.169.254 on the node's loopback and a root
 * HTTP server on port 80 of every address serving the node's own user data (cloud-init's copy) at
 * the OpenStack path. Pods reach it the way they reach Nova's: their traffic arrives on a CNI
 * interface and meets the raw PREROUTING rule; the node's own processes go through OUTPUT.
 *
 * Usage:
 *   1. exec(metadataStandInCommand()) on a control-plane node, as root;
 *   2. exec each of hostProbes(nodeAddress) and compare with its `expect`;
 *   3. create metadataProbePods(nodeName, image, nodeAddress) in the workload cluster, wait until
 *      each has terminated, and compare its exit code with podOutcome's (0 connects, 7 blocked);
 *   4. exec(stopMetadataStandInCommand());
 *   5. after restarting the node's stand-in, exec(blockBeforeRuntimeCommand()) and steps 1-4 again
 *      (the block holds across reboots).
 */

/** Port of the stand-in (Nova's metadata API listens on 80). */
export const METADATA_STANDIN_PORT = 80;
/** The transient systemd unit the stand-in runs as on the node. */
export const METADATA_STANDIN_UNIT = 'capi-e2e-metadata-standin';
const ADDRESS = '169.254.169.254';
const USER_DATA_PATH = '/openstack/latest/user_data';
const META_DATA_PATH = '/openstack/latest/meta_data.json';
/** Where cloud-init keeps the user data it booted from (root only). */
const CLOUD_INIT_USER_DATA = '/var/lib/cloud/instance/user-data.txt';
/** A path every control-plane node's user data names (Cluster API writes the CA key there). */
export const CONTROL_PLANE_USER_DATA_MARK = '/etc/kubernetes/pki/ca.key';

/** Exit codes of a probe: the connection was made, or it was refused or timed out. */
export const PROBE_EXIT = { connects: 0, blocked: 7 } as const;
export type ProbeOutcome = keyof typeof PROBE_EXIT;

/**
 * bash that connects to ADDRESS:PORT within 5 s and exits 0 (connects) or 7 (blocked), printing
 * which; usable by any user (no file but /dev/tcp).
 */
export function probeScript(address: string, port = METADATA_STANDIN_PORT): string {
  return `if timeout 5 bash -c 'exec 3<>/dev/tcp/${address}/${port}' 2>/dev/null; then echo connects; exit ${PROBE_EXIT.connects}; else echo blocked; exit ${PROBE_EXIT.blocked}; fi`;
}

/** The metadata service's IPv6 address, and a control address the stand-in puts next to it on the node's link. */
export const ADDRESS_V6 = 'fe80::a9fe:a9fe';
export const CONTROL_V6 = 'fe80::c0de:1';
/** bash: the node's link to its network (the interface of its default route). */
const NODE_LINK = "link=$(ip -o -4 route show default | awk '{print $5; exit}')";

/**
 * Run as root on the node: starts the stand-in and returns once it answers. Where the kernel has
 * IPv6 (/proc/net/if_inet6; the node's block then has its ip6tables rules), the stand-in also
 * answers on fe80::a9fe:a9fe and CONTROL_V6 on the node's link, as a cloud serves IPv6 metadata
 * on the node's network: Docker switches IPv6 off on links of a network without it, so the
 * stand-in switches it on for the link and loopback (stopMetadataStandInCommand switches it off).
 */
export function metadataStandInCommand(port = METADATA_STANDIN_PORT): string[] {
  const dir = `/run/${METADATA_STANDIN_UNIT}`;
  return [
    'bash',
    '-c',
    [
      'set -euo pipefail',
      `ip addr replace ${ADDRESS}/32 dev lo`,
      'bind=0.0.0.0',
      'if [ -e /proc/net/if_inet6 ]; then',
      `  ${NODE_LINK}`,
      // kept to be restored on stop
      `  echo "$(sysctl -n "net.ipv6.conf.$link.disable_ipv6") $(sysctl -n net.ipv6.conf.lo.disable_ipv6)" > ${dir}.ipv6`,
      '  sysctl -qw "net.ipv6.conf.$link.disable_ipv6=0" net.ipv6.conf.lo.disable_ipv6=0',
      `  ip -6 addr replace ${ADDRESS_V6}/64 dev "$link" nodad`,
      `  ip -6 addr replace ${CONTROL_V6}/64 dev "$link" nodad`,
      // dual stack: IPv4 reaches it too, as v4-mapped addresses
      '  bind=::',
      'fi',
      `install -D -m 0644 ${CLOUD_INIT_USER_DATA} ${dir}${USER_DATA_PATH}`,
      // what cloud-init's OpenStack datasource requires besides the user data
      `echo "{\\"uuid\\": \\"$(cat /var/lib/cloud/data/instance-id)\\", \\"availability_zone\\": \\"nova\\"}" > ${dir}${META_DATA_PATH}`,
      `systemctl stop ${METADATA_STANDIN_UNIT} 2>/dev/null || true`,
      `systemd-run --unit=${METADATA_STANDIN_UNIT} --collect python3 -m http.server ${port} --bind "$bind" --directory ${dir}`,
      // up to 60 s: a loaded node starts python slowly
      `for _ in $(seq 1 300); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && exit 0; sleep 0.2; done`,
      `echo "the metadata stand-in did not answer on port ${port}: $(systemctl status ${METADATA_STANDIN_UNIT} 2>&1 | tail -5); listening: $(ss -ltnp 2>&1 | tr '\\n' ' '); journal: $(journalctl -u ${METADATA_STANDIN_UNIT} --no-pager 2>&1 | tail -5 | tr '\\n' ' ')" >&2`,
      'exit 1',
    ].join('\n'),
  ];
}

/** Run as root on the node: stops the stand-in and removes its addresses (IPv6 off again on the link). */
export function stopMetadataStandInCommand(): string[] {
  return [
    'bash',
    '-c',
    [
      `systemctl stop ${METADATA_STANDIN_UNIT} 2>/dev/null || true`,
      `ip addr del ${ADDRESS}/32 dev lo 2>/dev/null || true`,
      'if [ -e /proc/net/if_inet6 ]; then',
      `  ${NODE_LINK}`,
      `  ip -6 addr del ${ADDRESS_V6}/64 dev "$link" 2>/dev/null || true`,
      `  ip -6 addr del ${CONTROL_V6}/64 dev "$link" 2>/dev/null || true`,
      `  if read -r on_link on_lo < /run/${METADATA_STANDIN_UNIT}.ipv6; then sysctl -qw "net.ipv6.conf.$link.disable_ipv6=$on_link" "net.ipv6.conf.lo.disable_ipv6=$on_lo" || true; fi`,
      'fi',
      `rm -rf /run/${METADATA_STANDIN_UNIT} /run/${METADATA_STANDIN_UNIT}.ipv6`,
    ].join('\n'),
  ];
}

/** Run as root on the node: the name of its link (where the IPv6 stand-in answers), or '' without IPv6. */
export function nodeLinkCommand(): string[] {
  return ['bash', '-c', `[ -e /proc/net/if_inet6 ] || exit 0; ${NODE_LINK}; echo "$link"`];
}

/**
 * Run as root on a node AFTER A REBOOT (`docker restart` of its stand-in): exits 0 when the block's
 * unit finished before containerd and kubelet last started, printing the three monotonic times. (On
 * the first boot containerd runs before cloud-init's runcmd enables the block; kubelet has no
 * configuration, so no pod, until kubeadm, which comes after it.)
 */
export function blockBeforeRuntimeCommand(): string[] {
  return [
    'bash',
    '-c',
    [
      'set -euo pipefail',
      'at() { systemctl show -p "$2" --value "$1"; }',
      'block=$(at capi-metadata-block.service ActiveEnterTimestampMonotonic)',
      'echo "capi-metadata-block.service active at $block"',
      '[ "$block" -gt 0 ] || { echo "capi-metadata-block.service never became active" >&2; exit 1; }',
      'for unit in containerd.service kubelet.service; do',
      '  started=$(at "$unit" InactiveExitTimestampMonotonic)',
      '  echo "$unit started at $started"',
      '  [ "$started" -ge "$block" ] || { echo "$unit started before the metadata block" >&2; exit 1; }',
      'done',
    ].join('\n'),
  ];
}

export interface HostProbe {
  readonly name: string;
  readonly argv: readonly string[];
  /** `succeeds`: exit 0; `reads-user-data`: exit 0 and the output holds CONTROL_PLANE_USER_DATA_MARK. */
  readonly expect: ProbeOutcome | 'succeeds' | 'reads-user-data';
}

/** Probes run with `docker exec` (as root) on a control-plane node; `nodeAddress` is its fixed IP. */
export function hostProbes(nodeAddress: string, port = METADATA_STANDIN_PORT): HostProbe[] {
  const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  const get = `exec 3<>/dev/tcp/${ADDRESS}/${port}; printf 'GET ${USER_DATA_PATH} HTTP/1.0\\r\\nHost: ${ADDRESS}\\r\\n\\r\\n' >&3; cat <&3`;
  return [
    { name: 'the block is in place (capi-metadata-block verify)', argv: ['/usr/local/sbin/capi-metadata-block', 'verify'], expect: 'succeeds' },
    { name: 'root on the node reads the user data', argv: ['bash', '-c', get], expect: 'reads-user-data' },
    { name: 'a non-root process on the node', argv: [...nobody, 'bash', '-c', probeScript(ADDRESS, port)], expect: 'blocked' },
    { name: 'control: the same non-root process reaches the node address', argv: [...nobody, 'bash', '-c', probeScript(nodeAddress, port)], expect: 'connects' },
  ];
}

/**
 * The IPv6 probes on the node, through `link` (nodeLinkCommand): root reads the user data at
 * fe80::a9fe:a9fe, a non-root process is blocked, and reaches CONTROL_V6 on the same link (control).
 */
export function hostProbesV6(link: string, port = METADATA_STANDIN_PORT): HostProbe[] {
  const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  return [
    { name: 'root on the node reads the user data over IPv6', argv: ['curl', '-sS', '-g', '--max-time', '10', `http://[${ADDRESS_V6}%25${link}]:${port}${USER_DATA_PATH}`], expect: 'reads-user-data' },
    { name: 'a non-root process on the node, IPv6', argv: [...nobody, 'bash', '-c', probeScript(`${ADDRESS_V6}%${link}`, port)], expect: 'blocked' },
    { name: 'control: the same non-root process reaches the IPv6 control address', argv: [...nobody, 'bash', '-c', probeScript(`${CONTROL_V6}%${link}`, port)], expect: 'connects' },
  ];
}

/**
 * What legitimately reads the metadata on a node, run for real: cloud-init's own OpenStack
 * metadata reader (the code of its OpenStack datasource, in the node's cloud-init) as root reads
 * the instance's meta_data.json and user data; as uid 65534 its request is refused (exit 7; any
 * other failure exits 1).
 */
export function cloudInitReaderProbes(port = METADATA_STANDIN_PORT): HostProbe[] {
  const base = `http://${ADDRESS}${port === 80 ? '' : `:${port}`}`;
  const asRoot = [
    'from cloudinit.sources.helpers import openstack',
    `r = openstack.MetadataReader("${base}", timeout=5, retries=1).read_v2()`,
    'print("uuid", r["metadata"]["uuid"]); print(r["userdata"].decode() if isinstance(r["userdata"], bytes) else r["userdata"])',
  ].join('\n');
  const asNobody = [
    'import sys, requests',
    'from cloudinit import url_helper',
    'from cloudinit.sources.helpers import openstack',
    'try:',
    `    openstack.MetadataReader("${base}", timeout=5, retries=0)._path_read("${base}${META_DATA_PATH}")`,
    'except url_helper.UrlError as e:',
    `    if isinstance(e.cause, requests.exceptions.ConnectionError): print("blocked:", e); sys.exit(${PROBE_EXIT.blocked})`,
    '    print("failed:", e); sys.exit(1)',
    `print("connects"); sys.exit(${PROBE_EXIT.connects})`,
  ].join('\n');
  return [
    { name: 'cloud-init\'s OpenStack metadata reader as root reads meta_data.json and the user data', argv: ['python3', '-c', asRoot], expect: 'reads-user-data' },
    { name: 'cloud-init\'s OpenStack metadata reader as uid 65534 is refused', argv: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'python3', '-c', asNobody], expect: 'blocked' },
  ];
}

/** Whether a host probe's result is what it expects. */
export function hostProbeHolds(probe: HostProbe, result: { code: number | null; out: string }): boolean {
  if (probe.expect === 'reads-user-data') return result.code === 0 && result.out.includes(CONTROL_PLANE_USER_DATA_MARK);
  if (probe.expect === 'succeeds') return result.code === 0;
  return result.code === PROBE_EXIT[probe.expect];
}

export interface ProbePod {
  readonly manifest: Record<string, any>;
  /** The outcome the pod must report (its container's exit code, PROBE_EXIT). */
  readonly expect: ProbeOutcome;
}

/**
 * Pods pinned to `nodeName` (tolerating every taint) that probe the metadata address and, as
 * controls, the node's address: on the pod network, and hostNetwork as uid 65534. A hostNetwork pod
 * running as root reaches the metadata (root on the node keeps access, docs/security.md): its pod
 * shows the stand-in answers from the host's network namespace.
 */
export function metadataProbePods(nodeName: string, image: string, nodeAddress: string, port = METADATA_STANDIN_PORT): ProbePod[] {
  const pod = (name: string, target: string, hostNetwork: boolean, runAsUser: number, expect: ProbeOutcome): ProbePod => ({
    expect,
    manifest: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: { 'capi-e2e/probe': 'metadata' } },
      spec: {
        nodeName,
        hostNetwork,
        restartPolicy: 'Never',
        tolerations: [{ operator: 'Exists' }],
        securityContext: { runAsUser, runAsGroup: runAsUser },
        containers: [{ name: 'probe', image, command: ['bash', '-c', probeScript(target, port)], terminationMessagePolicy: 'FallbackToLogsOnError' }],
      },
    },
  });
  return [
    pod('metadata-pod', ADDRESS, false, 0, 'blocked'),
    pod('metadata-pod-control', nodeAddress, false, 0, 'connects'),
    pod('metadata-hostnet-nonroot', ADDRESS, true, 65534, 'blocked'),
    pod('metadata-hostnet-nonroot-control', nodeAddress, true, 65534, 'connects'),
    pod('metadata-hostnet-root', ADDRESS, true, 0, 'connects'),
  ];
}

/**
 * The IPv6 probe pods: hostNetwork only. The stand-in CNI is IPv4 only, and a pod's own link
 * (its veth) never carries link-local traffic to the node's link, so a pod on the pod network
 * has no path to fe80::a9fe:a9fe to test; the block's raw PREROUTING rule covers a routed one.
 */
export function metadataProbePodsV6(nodeName: string, image: string, link: string, port = METADATA_STANDIN_PORT): ProbePod[] {
  return metadataProbePods(nodeName, image, '', port)
    .filter((p) => p.manifest.spec.hostNetwork)
    .map((p) => {
      const name = (p.manifest.metadata.name as string).replace('metadata-', 'metadata6-');
      const target = name.endsWith('-control') ? CONTROL_V6 : ADDRESS_V6;
      const container = { ...p.manifest.spec.containers[0], command: ['bash', '-c', probeScript(`${target}%${link}`, port)] };
      return { expect: p.expect, manifest: { ...p.manifest, metadata: { ...p.manifest.metadata, name }, spec: { ...p.manifest.spec, containers: [container] } } };
    });
}

/** The outcome a terminated probe pod reports, from its container's exit code. */
export function podOutcome(pod: { status?: { containerStatuses?: { state?: { terminated?: { exitCode?: number } } }[] } }): ProbeOutcome | `exit ${number}` | 'not terminated' {
  const code = pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
  if (code === undefined) return 'not terminated';
  if (code === PROBE_EXIT.connects) return 'connects';
  if (code === PROBE_EXIT.blocked) return 'blocked';
  return `exit ${code}`;
}
