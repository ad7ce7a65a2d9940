/**
 * Limits of what the builders make from an environment (kubelet flags, node files, containerd
 * directories, chart versions), checked where `validate` runs so synth never meets them first.
 */
import { CINDER_CSI_CHART_VERSIONS, OCCM_CHART_VERSIONS } from './cloud-provider-charts';
import type { PathIssue } from './cross-checks';
import { EnvironmentSpec } from './environment-schema';
import { MAX_NODE_LABELS_FLAG_LENGTH, nodeLabelsFlag, splitNodeLabels } from './kubelet-labels';
import { minorOf, resolveKubernetesVersion } from './versions';

/**
 * NO_PROXY goes twice into a systemd drop-in on every node, a file CAPI caps at 10240 characters
 * (gzip+base64); this bound keeps the worst case, with the longest proxy URL, inside it.
 */
export const MAX_NO_PROXY_LENGTH = 4096;

export function checkBuildLimits(spec: EnvironmentSpec): PathIssue[] {
  return [...checkNoProxy(spec), ...checkMirrors(spec), ...Object.entries(spec.clusters)
      .filter(([, c]) => c.controlPlane.count > 0) // 0 control-plane nodes: no cluster is built
      .flatMap(([name, c]) => [...checkLabels(name, c), ...checkChartLines(name, c)])];
}

function checkNoProxy(spec: EnvironmentSpec): PathIssue[] {
  const joined = spec.proxy.noProxy.join(',').length;
  if (joined <= MAX_NO_PROXY_LENGTH) return [];
  return [
    {
      path: ['proxy', 'noProxy'],
      message: `expected entries taking at most ${MAX_NO_PROXY_LENGTH} characters joined by "," (NO_PROXY is written into a systemd drop-in on every node, which Cluster API caps at 10240 characters), found ${joined} characters in ${spec.proxy.noProxy.length} entries; cover many hosts with one ".domain" or CIDR entry`,
    },
  ];
}

/** containerd reads one hosts.toml per registry: a second entry for the same registry would overwrite the first. */
function checkMirrors(spec: EnvironmentSpec): PathIssue[] {
  const first = new Map<string, number>();
  return spec.registryMirrors.flatMap((m, i) => {
    const earlier = first.get(m.registry);
    if (earlier === undefined) {
      first.set(m.registry, i);
      return [];
    }
    return [{ path: ['registryMirrors', i, 'registry'], message: `expected each registry once (list every mirror of it under registryMirrors[${earlier}].endpoints), found "${m.registry}" again` }];
  });
}

function checkLabels(cluster: string, c: EnvironmentSpec['clusters'][string]): PathIssue[] {
  return c.nodeGroups.flatMap((g, i) => {
    const flag = nodeLabelsFlag(splitNodeLabels(g.labels).kubelet);
    if (flag.length <= MAX_NODE_LABELS_FLAG_LENGTH) return [];
    return [
      {
        path: ['clusters', cluster, 'nodeGroups', i, 'labels'],
        message: `expected labels that fit the kubelet's --node-labels flag (at most ${MAX_NODE_LABELS_FLAG_LENGTH} characters as key=value joined by ","), found ${flag.length} characters in ${Object.keys(g.labels).length} labels`,
      },
    ];
  });
}

/** OCCM and Cinder CSI publish a chart line per Kubernetes minor: without a pinned one the version must be given. */
function checkChartLines(cluster: string, c: EnvironmentSpec['clusters'][string]): PathIssue[] {
  const minor = minorOf(resolveKubernetesVersion(c.kubernetesVersion) ?? '');
  if (!minor) return []; // the version itself is reported elsewhere
  const addons: [string, { enabled: boolean; version?: string }, Readonly<Record<string, string>>][] = [
    ['openstackCloudControllerManager', c.addons.openstackCloudControllerManager, OCCM_CHART_VERSIONS],
    ['cinderCsi', c.addons.cinderCsi, CINDER_CSI_CHART_VERSIONS],
  ];
  return addons
    .filter(([, addon, table]) => addon.enabled && addon.version === undefined && table[minor] === undefined)
    .map(([field, , table]) => ({
      path: ['clusters', cluster, 'addons', field],
      message: `expected a chart version for Kubernetes ${minor} (pinned only for ${Object.keys(table).join(', ')}): set addons.${field}.version, disable it or use a pinned minor, found none`,
    }));
}
