/** Checks that span several fields. Each returns issues with field paths; none throws. */
import { OPEN_TO_ANYWHERE, apiOpenToAnywhere, coversEveryAddress } from './api-exposure';
import { checkBuildLimits } from './build-limits';
import { checkNetworkMeaning } from './network-meaning';
import { DEFAULT_POOL_START_HOST, cidrContains, cidrsOverlap, formatIpv4, lastAddress, parseCidr, parseIpv4 } from './cidr';
import { EnvironmentSpec } from './environment-schema';
import { pinnedVersionIssues } from './provider-manifests';
import { gatewayImplementation } from './gateway-implementation';
import { checkControllerVersions, resolveKubernetesVersion, workloadKubernetesProblem } from './versions';

export interface PathIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** Longest Kubernetes machine name is `<cluster>-<group>-<5>-<5>`; hostnames stop at 63. */
const MAX_MACHINE_NAME_PREFIX = 51;

export function crossCheck(spec: EnvironmentSpec): PathIssue[] {
  return [...checkNetwork(spec), ...checkNetworkMeaning(spec), ...checkBuildLimits(spec), ...checkVersions(spec), ...pinnedVersionIssues(spec), ...checkManagementAccess(spec), ...Object.entries(spec.clusters).flatMap(([name, c]) => checkCluster(spec, name, c))];
}

/** The readiness wait reaches the management API from the deploying machine: it must be allowed. */
function checkManagementAccess(spec: EnvironmentSpec): PathIssue[] {
  const m = spec.management;
  if (spec.existingManagementCluster || !m.waitForReady || m.apiAllowedCidrs.length > 0) return [];
  return [
    {
      path: ['management', 'apiAllowedCidrs'],
      message:
        'expected the networks of the machines that run cdktf deploy (the readiness wait and the workload stacks reach the management API from there), found none (the API is closed by default); list them, or set management.waitForReady: false to deploy the VM without waiting',
    },
  ];
}

function checkNetwork(spec: EnvironmentSpec): PathIssue[] {
  const issues: PathIssue[] = [];
  const n = spec.network;
  if (n.externalNetworkName && n.externalNetworkId) {
    issues.push({ path: ['network', 'externalNetworkId'], message: `expected either externalNetworkName or externalNetworkId, found both ("${n.externalNetworkName}", "${n.externalNetworkId}")` });
  }
  const mgmt = parseCidr(n.managementCidr);
  if (!mgmt) return issues;
  if (mgmt.prefixLength > 29) {
    issues.push({ path: ['network', 'managementCidr'], message: `expected a prefix length of /29 or shorter to leave room for router, DHCP and VM, found "/${mgmt.prefixLength}"` });
  }
  const pool = [n.allocationPoolStart, n.allocationPoolEnd].map((a) => (a === undefined ? undefined : parseIpv4(a)));
  (['allocationPoolStart', 'allocationPoolEnd'] as const).forEach((field, i) => {
    const addr = pool[i];
    if (addr !== undefined && (!cidrContains(mgmt, addr) || addr === mgmt.network || addr === lastAddress(mgmt))) {
      issues.push({ path: ['network', field], message: `expected a host address inside managementCidr ${n.managementCidr} (not its network or broadcast address), found "${n[field]}"` });
    }
  });
  const defaultStart = (mgmt.network + DEFAULT_POOL_START_HOST) >>> 0;
  if (n.allocationPoolStart === undefined && mgmt.prefixLength <= 29 && defaultStart > lastAddress(mgmt) - 1) {
    issues.push({
      path: ['network', 'managementCidr'],
      message: `expected room for the default allocation pool (from the ${DEFAULT_POOL_START_HOST}th address, ${formatIpv4(defaultStart)}), found "/${mgmt.prefixLength}" with ${lastAddress(mgmt) - mgmt.network + 1} addresses: set network.allocationPoolStart and allocationPoolEnd, or use /28 or shorter`,
    });
  }
  if (pool[0] !== undefined && pool[1] !== undefined && pool[0] > pool[1]) {
    issues.push({ path: ['network', 'allocationPoolEnd'], message: `expected an address not below allocationPoolStart ${n.allocationPoolStart}, found "${n.allocationPoolEnd}"` });
  }
  return issues;
}

function checkVersions(spec: EnvironmentSpec): PathIssue[] {
  return checkControllerVersions(spec.versions).map((p) => ({ path: ['versions', p.field], message: p.message }));
}

/** Sizes a cluster's ranges can work with: [shortest, longest prefix, why]. */
const USABLE_PREFIXES: Record<string, [number, number, string]> = {
  'network.nodeCidr': [8, 28, 'room for the nodes, the router and the API load balancer'],
  'network.podCidr': [8, 24, 'each node takes a /24 of it'],
  'network.serviceCidr': [12, 24, 'kube-apiserver takes at most a /12; smaller than /24 leaves too few Service addresses'],
};

/** OCCM reads one lb-provider: ovnLoadBalancer asks for ovn. */
function checkLoadBalancerProvider(c: EnvironmentSpec['clusters'][string], at: (...rest: PropertyKey[]) => PropertyKey[]): PathIssue[] {
  if (c.loadBalancerProvider === undefined || c.loadBalancerProvider === 'ovn' || c.ovnLoadBalancer === false) return [];
  return [{ path: at('loadBalancerProvider'), message: `expected ovn or no loadBalancerProvider with ovnLoadBalancer: ${c.ovnLoadBalancer}, found "${c.loadBalancerProvider}"` }];
}

/** addons.gatewayApi: an implementation the CNI can carry, and a CRD chart CAAPH can install. */
function gatewayApiIssues(a: EnvironmentSpec['clusters'][string]['addons'], at: (...rest: PropertyKey[]) => PropertyKey[]): PathIssue[] {
  const issues: PathIssue[] = [];
  if (a.gatewayApi.enabled && gatewayImplementation(a) === 'cilium' && a.cni.type !== 'cilium') {
    issues.push({ path: at('implementation'), message: `expected implementation traefik with cni.type "${a.cni.type}" (Cilium's gateway needs the Cilium CNI), found implementation cilium` });
  }
  if (a.gatewayApi.traefikVersion !== undefined && gatewayImplementation(a) !== 'traefik') {
    issues.push({ path: at('traefikVersion'), message: `expected traefikVersion only with implementation traefik, found implementation ${gatewayImplementation(a)}` });
  }
  if (a.gatewayApi.enabled && a.gatewayApi.crds && a.gatewayApi.version === undefined) {
    // Helm keeps a release, chart included, in one Secret; Envoy Gateway's gateway-crds-helm carries
    // its own CRDs beside Gateway API's, and that release is 1.17 MB: CAAPH's install always fails
    issues.push({
      path: at('crds'),
      message:
        'expected crds: false with the Gateway API CRDs installed by you (docs/addons.md#gateway-api), found crds: true with the pinned CRD chart (gateway-crds-helm), which cannot be installed: its Helm release (1.17 MB) exceeds the 1 MiB limit of the Secret Helm stores it in',
    });
  }
  return issues;
}

function checkCluster(spec: EnvironmentSpec, name: string, c: EnvironmentSpec['clusters'][string]): PathIssue[] {
  const at = (...rest: PropertyKey[]) => ['clusters', name, ...rest];
  const issues: PathIssue[] = [];
  if (name === 'management') {
    issues.push({ path: at(), message: 'expected a cluster name other than "management" (reserved for the management stack), found "management"' });
  }

  const k8s = workloadKubernetesProblem(spec.versions.clusterApi, c.kubernetesVersion);
  if (k8s) issues.push({ path: at('kubernetesVersion'), message: k8s });
  else if (!resolveKubernetesVersion(c.kubernetesVersion)) {
    issues.push({ path: at('kubernetesVersion'), message: `expected a version like v1.33.5 or v1.33.x, found "${c.kubernetesVersion}"` });
  }

  const nets: [string, string][] = [
    ['network.nodeCidr', c.network.nodeCidr],
    ['network.podCidr', c.network.podCidr],
    ['network.serviceCidr', c.network.serviceCidr],
  ];
  const mgmt = parseCidr(spec.network.managementCidr);
  for (let i = 0; i < nets.length; i++) {
    const a = parseCidr(nets[i][1]);
    if (!a) continue;
    const [shortest, longest, why] = USABLE_PREFIXES[nets[i][0]];
    if (a.prefixLength < shortest || a.prefixLength > longest) {
      issues.push({ path: at(...nets[i][0].split('.')), message: `expected a prefix length from /${shortest} to /${longest} (${why}), found "/${a.prefixLength}"` });
    }
    for (let j = i + 1; j < nets.length; j++) {
      const b = parseCidr(nets[j][1]);
      if (b && cidrsOverlap(a, b)) {
        issues.push({ path: at(...nets[j][0].split('.')), message: `expected a range that does not overlap ${nets[i][0]} ${nets[i][1]}, found "${nets[j][1]}"` });
      }
    }
    if (mgmt && !spec.existingManagementCluster && cidrsOverlap(a, mgmt)) {
      issues.push({ path: at(...nets[i][0].split('.')), message: `expected a range that does not overlap the management subnet ${spec.network.managementCidr}, found "${nets[i][1]}"` });
    }
  }

  const seen = new Set<string>();
  c.nodeGroups.forEach((g, i) => {
    if (seen.has(g.name)) issues.push({ path: at('nodeGroups', i, 'name'), message: `expected a unique node group name, found "${g.name}" twice` });
    seen.add(g.name);
    if (name.length + 1 + g.name.length > MAX_MACHINE_NAME_PREFIX) {
      issues.push({
        path: at('nodeGroups', i, 'name'),
        message: `expected cluster name + node group name to have at most ${MAX_MACHINE_NAME_PREFIX - 1} characters so machine host names stay within 63, found ${name.length + g.name.length} ("${name}" + "${g.name}")`,
      });
    }
    if (g.failureDomain && c.failureDomains.length > 0 && !c.failureDomains.includes(g.failureDomain)) {
      issues.push({ path: at('nodeGroups', i, 'failureDomain'), message: `expected one of the cluster failureDomains (${c.failureDomains.join(', ')}), found "${g.failureDomain}"` });
    }
  });

  issues.push(...checkLoadBalancerProvider(c, at));
  if (c.apiAllowedCidrs.includes(OPEN_TO_ANYWHERE) && c.apiAllowedCidrs.length > 1) {
    issues.push({ path: at('apiAllowedCidrs'), message: `expected ["${OPEN_TO_ANYWHERE}"] alone (open to everyone) or a list that leaves it out, found ${JSON.stringify(c.apiAllowedCidrs)}` });
  } else if (coversEveryAddress(c.apiAllowedCidrs) && !c.apiAllowedCidrs.includes(OPEN_TO_ANYWHERE)) {
    // pieces that add up to everything are "open" in disguise: the opt-in is the one explicit value
    issues.push({ path: at('apiAllowedCidrs'), message: `expected ["${OPEN_TO_ANYWHERE}"] to open the API to everyone on purpose, or networks that leave addresses out, found ${JSON.stringify(c.apiAllowedCidrs)}, which together cover every address` });
  }
  if (!apiOpenToAnywhere(c.apiAllowedCidrs) && spec.existingManagementCluster && !spec.existingManagementCluster.egressCidr) {
    issues.push({ path: at('apiAllowedCidrs'), message: `expected existingManagementCluster.egressCidr to be set when the API is restricted (the management cluster must stay allowed), found no egressCidr` });
  }
  if (c.apiAllowedCidrs.includes('none') && c.apiAllowedCidrs.length > 1) {
    issues.push({ path: at('apiAllowedCidrs'), message: `expected ["none"] alone or a list of CIDRs, found ${JSON.stringify(c.apiAllowedCidrs)}` });
  }
  issues.push(...gatewayApiIssues(c.addons, (...rest) => at('addons', 'gatewayApi', ...rest)));
  return issues;
}
