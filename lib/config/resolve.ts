/** Turns a validated spec into what the stacks consume: defaults derived from other fields, files read. */
import * as path from 'path';
import { openApiWarning, openManagementWarning } from './api-exposure';
import { boundedFileProblem, MAX_SETTINGS_FILE_BYTES } from './bounded-file';
import { readCaCertificates } from './ca-file';
import { DEFAULT_POOL_START_HOST, hostAddress, lastAddress, formatIpv4, parseCidr } from './cidr';
import { CloudLookup, checkedCloudEntry } from './cloud-entry';
import { resolveManagementCloud } from './management-cloud';
import { managementKubernetesWarning } from './management-kubernetes';
import { ClusterSpec } from './cluster-schema';
import { EnvironmentFields, EnvironmentSpec } from './environment-schema';
import { applyFeatureFlags } from './feature-flags';
import { missingCloudControllerWarning } from './cloud-controller-warning';
import { ingressNginxRetiredWarning } from './ingress-nginx-retirement';
import { DEFAULT_MANAGEMENT_TOOLS } from './downloads';
import { existingKubeconfigPath, kubeconfigFileProblem } from './existing-management';
import { ConfigIssue, EnvironmentConfigError } from './errors';
import { clusterResourceName, environmentResourcePrefix, managementStackName, workloadStackName } from './naming';
import { unpinnedManifestsWarning } from './provider-manifests';
import { kubernetesSupportWarning, resolveKubernetesVersion } from './versions';

export interface ResolvedCloud {
  /** clouds.yaml entry name, passed to the OpenStack provider as `cloud`. */
  readonly name: string;
  /** Keystone URL for CAPO; undefined = taken from the service catalog at apply time. */
  readonly authUrl?: string;
  /** Region; undefined = the provider's default. */
  readonly region?: string;
  readonly interface: string;
  /** PEM of a private CA of the OpenStack API, if any (public data). */
  readonly caCertificatePem?: string;
  readonly caCertificateFile?: string;
  /** clouds.yaml the entry came from, if found. */
  readonly cloudsFile?: string;
}

export interface ResolvedRegistryMirror {
  readonly registry: string;
  readonly endpoints: readonly string[];
  readonly caCertificatePem?: string;
  readonly skipVerify: boolean;
}

/** The private chart mirror every add-on chart comes from (`chartRepository`). */
export interface ResolvedChartRepository {
  /** oci:// registry path or https:// chart repository. */
  readonly url: string;
  /** PEM of the mirror's private CA, if any (public data). */
  readonly caCertificatePem?: string;
}

export interface ResolvedCluster {
  readonly name: string;
  readonly spec: ClusterSpec;
  /** `.x` resolved to the tested patch. */
  readonly kubernetesVersion: string;
  readonly nodeImage: string;
  readonly failureDomains: readonly string[];
  /** `<prefix>-<environment>-<cluster>`: namespace on the management cluster, cluster name of OCCM and Cinder CSI. */
  readonly resourceName: string;
  /** Namespace of the cluster's objects on the management cluster (its resourceName). */
  readonly namespace: string;
  /** `<environment>-<cluster>`. */
  readonly stackName: string;
}

/** A validated environment with every default resolved. */
export interface EnvironmentConfig {
  readonly name: string;
  readonly file: string;
  readonly spec: EnvironmentSpec;
  readonly cloud: ResolvedCloud;
  /** What the management stack logs in with: `management.cloud`'s entry, else `cloud`. */
  readonly managementCloud: ResolvedCloud;
  /** Certificates of `management.trustedCaCertificateFile` (PEM), which the VM trusts from its first boot. */
  readonly managementTrustedCaPem?: string;
  readonly allocationPool: { readonly start: string; readonly end: string };
  readonly registryMirrors: readonly ResolvedRegistryMirror[];
  /** The chart mirror of `chartRepository`; undefined = each chart's public repository. */
  readonly chartRepository?: ResolvedChartRepository;
  readonly clusters: readonly ResolvedCluster[];
  /** `<prefix>-<environment>`: the stem of every OpenStack resource name. */
  readonly resourcePrefix: string;
  /** `<environment>-management` (also when an existing management cluster is used: no such stack then). */
  readonly managementStackName: string;
  /** Settings that are valid but unwise (an end-of-life Kubernetes minor…), for `validate` to print. */
  readonly warnings: readonly ConfigIssue[];
}

/**
 * @param fields the schema's output; defaults that follow a feature flag are applied here
 * @param baseDir where relative paths of the spec resolve (default: the file's directory)
 */
export function resolveEnvironment(name: string, file: string, fields: EnvironmentFields, lookupCloud: CloudLookup, origin: 'file' | 'code' = 'file', baseDir = path.dirname(file)): EnvironmentConfig {
  const spec = withFeatureFlags(fields);
  const issues: ConfigIssue[] = [];
  const readPem = (fieldPath: string, p: string | undefined): string | undefined => {
    if (!p) return undefined;
    const result = readCaCertificates(path.resolve(baseDir, p));
    if ('problem' in result) issues.push({ path: fieldPath, message: result.problem });
    return 'pem' in result ? result.pem : undefined;
  };

  // a clouds.yaml the environment names is its field's problem (a directory blamed cloud.name with EISDIR)
  const cloudsFile = spec.cloud.cloudsFile ? path.resolve(baseDir, spec.cloud.cloudsFile) : undefined;
  const cloudsFileProblem = cloudsFile ? boundedFileProblem(cloudsFile, 'clouds.yaml', MAX_SETTINGS_FILE_BYTES) : undefined;
  if (cloudsFileProblem) issues.push({ path: 'cloud.cloudsFile', message: cloudsFileProblem.replace('expected a readable clouds.yaml', 'expected an existing clouds.yaml') });
  const lookup: CloudLookup = cloudsFileProblem ? () => undefined : lookupCloud;
  const entry = checkedCloudEntry(spec.cloud.name, cloudsFile, lookup, issues, 'cloud.name', spec.cloud.allowPlainHttp);
  const caFile = spec.cloud.caCertificateFile ? path.resolve(baseDir, spec.cloud.caCertificateFile) : entry?.caCertificateFile;
  const cloud: ResolvedCloud = {
    name: spec.cloud.name,
    authUrl: spec.cloud.authUrl ?? entry?.authUrl,
    region: spec.cloud.region ?? entry?.region,
    interface: spec.cloud.interface,
    caCertificateFile: caFile,
    caCertificatePem: readPem(spec.cloud.caCertificateFile ? 'cloud.caCertificateFile' : `cloud (cacert of "${spec.cloud.name}" in ${entry?.file})`, caFile),
    cloudsFile: entry?.file,
  };

  const projectWarnings: ConfigIssue[] = [];
  const managementCloud = cloudsFileProblem ? cloud : resolveManagementCloud(spec, baseDir, cloud, entry, lookupCloud, issues, projectWarnings);
  const registryMirrors = spec.registryMirrors.map((m, i) => ({
    registry: m.registry,
    endpoints: m.endpoints,
    skipVerify: m.skipVerify,
    caCertificatePem: readPem(`registryMirrors[${i}].caCertificateFile`, m.caCertificateFile),
  }));
  const chartRepository = spec.chartRepository && resolveChartRepository(spec.chartRepository.url, readPem('chartRepository.caCertificateFile', spec.chartRepository.caCertificateFile));
  const managementTrustedCaPem = readPem('management.trustedCaCertificateFile', spec.management.trustedCaCertificateFile);
  // Terraform reads it at plan: a missing file, a directory or /dev/zero is refused here, with the field
  const kubeconfig = spec.existingManagementCluster && kubeconfigFileProblem(existingKubeconfigPath(path.join(baseDir, path.basename(file)), spec.existingManagementCluster.kubeconfigFile));
  if (kubeconfig) issues.push({ path: 'existingManagementCluster.kubeconfigFile', message: kubeconfig });
  if (issues.length > 0) throw new EnvironmentConfigError(file, issues, origin);

  const mgmt = parseCidr(spec.network.managementCidr)!;
  const resourcePrefix = environmentResourcePrefix(spec.prefix, name);
  const clusters = Object.entries(spec.clusters)
    .filter(([, c]) => c.controlPlane.count > 0) // 0 control-plane nodes = no cluster (old tool semantics)
    .map(([clusterName, c]) => {
      const kubernetesVersion = resolveKubernetesVersion(c.kubernetesVersion)!;
      return {
        name: clusterName,
        spec: c,
        kubernetesVersion,
        nodeImage: c.nodeImage ?? `ubuntu-capi-image-${kubernetesVersion}`,
        failureDomains: c.failureDomains.length > 0 ? c.failureDomains : spec.availabilityZone ? [spec.availabilityZone] : [],
        resourceName: clusterResourceName(resourcePrefix, clusterName),
        namespace: clusterResourceName(resourcePrefix, clusterName),
        stackName: workloadStackName(name, clusterName),
      };
    });

  return {
    name,
    file,
    spec,
    cloud,
    managementCloud,
    ...(managementTrustedCaPem ? { managementTrustedCaPem } : {}),
    allocationPool: {
      start: spec.network.allocationPoolStart ?? hostAddress(mgmt, DEFAULT_POOL_START_HOST),
      end: spec.network.allocationPoolEnd ?? formatIpv4(lastAddress(mgmt) - 1),
    },
    registryMirrors,
    ...(chartRepository ? { chartRepository } : {}),
    clusters,
    resourcePrefix,
    managementStackName: managementStackName(name),
    warnings: [...(spec.existingManagementCluster ? [] : managementWarnings(spec)), ...projectWarnings, ...clusters.flatMap((c) => [...clusterWarnings(c), ...retiredAddonWarnings(c.name, fields)])],
  };
}

/** The environment with every cluster's flag-dependent defaults applied (feature-flags.ts). */
export function withFeatureFlags(fields: EnvironmentFields): EnvironmentSpec {
  const clusters = Object.fromEntries(Object.entries(fields.clusters).map(([n, c]) => [n, applyFeatureFlags(c, fields.featureFlags)]));
  return { ...fields, clusters };
}

/** Add-ons retired upstream that the cluster still installs; the file as written tells whether it set them or a default did. */
function retiredAddonWarnings(cluster: string, fields: EnvironmentFields): ConfigIssue[] {
  const ingress = ingressNginxRetiredWarning(cluster, fields.clusters[cluster], fields.featureFlags);
  return ingress ? [{ path: `clusters.${cluster}.addons.ingressNginx`, message: ingress }] : [];
}

/** The chart mirror, its CA only when one is given (no `caCertificatePem: undefined` in the config). */
function resolveChartRepository(url: string, caCertificatePem: string | undefined): ResolvedChartRepository {
  return caCertificatePem ? { url, caCertificatePem } : { url };
}

/** Management VM ports open to every address; a kind node image outside Cluster API's management range. */
function managementWarnings(spec: EnvironmentSpec): ConfigIssue[] {
  const open = (['apiAllowedCidrs', 'sshAllowedCidrs'] as const).flatMap((field) => {
    const message = openManagementWarning(field, spec.management[field]);
    return message ? [{ path: `management.${field}`, message }] : [];
  });
  const image = spec.management.tools?.kindNodeImage;
  const kubernetes = managementKubernetesWarning(image ?? DEFAULT_MANAGEMENT_TOOLS.kindNodeImage, spec.versions.clusterApi);
  const unpinned = unpinnedManifestsWarning(spec);
  return [
    ...open,
    ...(kubernetes ? [{ path: image ? 'management.tools.kindNodeImage' : 'versions.clusterApi', message: kubernetes }] : []),
    ...(unpinned ? [{ path: 'management.providerManifests', message: unpinned }] : []),
  ];
}

/** What is valid but unwise: a Kubernetes minor in maintenance or past its end of life, an API open to anywhere by default. */
function clusterWarnings(c: ResolvedCluster): ConfigIssue[] {
  const support = kubernetesSupportWarning(c.kubernetesVersion);
  const open = openApiWarning(c.name, c.spec.apiAllowedCidrs);
  const occm = missingCloudControllerWarning(c.name, c.spec);
  return [
    ...(support ? [{ path: `clusters.${c.name}.kubernetesVersion`, message: support }] : []),
    ...(open ? [{ path: `clusters.${c.name}.apiAllowedCidrs`, message: open }] : []),
    ...(occm ? [{ path: `clusters.${c.name}.addons.openstackCloudControllerManager`, message: occm }] : []),
  ];
}
