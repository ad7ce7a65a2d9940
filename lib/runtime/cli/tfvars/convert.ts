/**
 * Converts the settings of the old bootstrap's `environment-<cloud>.tfvars` (already parsed from
 * HCL into plain values) into an environment file. Pure: no output, no writing. Every key of the
 * input ends up in `outcomes`, either carried over or reported with the reason.
 */
import { z } from 'zod';
import { addonsSchema, clusterNetworkSchema, clusterSchema, controlPlaneSchema, nodeGroupSchema } from '../../../config/cluster-schema';
import { dnsLabel } from '../../../config/fields';
import { isVersion, workloadKubernetesProblem } from '../../../config/versions';
import { ConvertOptions, FieldPath, TfvarsConversion } from './conversion-types';
import { Obj } from './conversion-record';
import { EnvironmentSections } from './environment-sections';
import { asBool, asInt, asString, asStringList, asStringMap, asToggle, ok, withV } from './values';

export * from './conversion-types';

/** Settings of the old tool that have no counterpart, and why. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  cilium_binaries:
    'not needed: cilium is installed from its Helm chart, no cilium/hubble CLI binaries are downloaded (pin the chart with addons.cni.version)',
  kube_image_raw:
    'not needed: node images are referenced by name (clusters.<name>.nodeImage, default ubuntu-capi-image-<version>) and not converted or uploaded by this tool',
  image_registration_extra_flags: 'not needed: node images are referenced by name, this tool does not register images in Glance',
  git_repo: 'not needed: nothing is checked out from git on the management VM',
  git_branch: 'not needed: nothing is checked out from git on the management VM',
  git_reference: 'not needed: nothing is checked out from git on the management VM',
  etcd_prio_boost: 'not needed: the etcd tuning (heartbeat 250 ms, election 2500 ms, compaction, defrag) is always applied',
  harbor_config: 'not supported: Harbor (deploy_harbor) is not part of this release; its settings are not carried over',
};

const ADDON_TOGGLES: readonly [string, keyof z.input<typeof addonsSchema>, string][] = [
  ['deploy_occm', 'openstackCloudControllerManager', 'OCCM image version'],
  ['deploy_cindercsi', 'cinderCsi', 'Cinder CSI image version'],
  ['deploy_metrics', 'metricsServer', 'metrics-server version'],
  ['deploy_nginx_ingress', 'ingressNginx', 'ingress-nginx controller version'],
  ['deploy_cert_manager', 'certManager', 'cert-manager version'],
  ['deploy_flux', 'flux', 'Flux version'],
  ['deploy_gateway_api', 'gatewayApi', 'Gateway API version'],
];

const DEFAULT_NODE_GROUP = 'md-0';

export function convertTfvars(values: Record<string, unknown>, options: ConvertOptions): TfvarsConversion {
  return new Converter(values, options).run();
}

class Converter extends EnvironmentSections {
  run(): TfvarsConversion {
    this.cloudAndPrefix();
    this.network();
    this.management();
    this.proxy();
    this.registryFiles();
    this.versions();
    this.cluster();
    this.unsupported();
    return this.result();
  }

  private cluster(): void {
    const name = this.read('testcluster_name', asString, dnsLabel(32));
    if (name === 'management') {
      this.report('testcluster_name', '"management" is reserved for the management stack: not carried over, "testcluster" is used');
    } else if (name) {
      this.clusterName = name;
    }
    const c = this.c;
    this.set(c, {
      kubernetesVersion: undefined,
      controlPlane: {},
      nodeGroups: undefined,
      network: {},
      apiAllowedCidrs: undefined,
      ovnLoadBalancer: undefined,
      instanceCreateTimeoutMinutes: undefined,
      addons: {},
    });
    this.comment(c, `The old tool's testcluster${name ? ` (testcluster_name)` : ''}. Add more clusters as further entries.`);
    if (name && this.clusterName === name) this.mapped('testcluster_name', c);

    this.kubernetesVersion(c);
    const antiAffinity = this.controlPlane(c);
    this.workers(c, antiAffinity);
    this.clusterNetwork(c);
    this.addons();
  }

  /** Kubernetes version: outside the supported range → the current default, written out. */
  private kubernetesVersion(c: FieldPath): void {
    const k8s = this.read('kubernetes_version', asString);
    if (k8s !== undefined) {
      const v = withV(k8s.trim());
      const problem = isVersion(v, true) ? workloadKubernetesProblem(this.clusterApi, v) : `expected a version like v1.33.x, found "${k8s}"`;
      if (problem) {
        const fallback = clusterSchema.shape.kubernetesVersion.parse(undefined);
        this.report('kubernetes_version', `${problem}: not carried over, ${fallback} is used`);
        this.set([...c, 'kubernetesVersion'], fallback, 'kubernetes_version', `was ${k8s} (not supported any more); the node image is ubuntu-capi-image-<version>`);
      } else {
        this.set([...c, 'kubernetesVersion'], v, 'kubernetes_version');
      }
    }

  }

  /** Count (odd), flavor, metadata, server group policy, etcd filesystem; returns `anti_affinity`. */
  private controlPlane(c: FieldPath): boolean | undefined {
    const cp = [...c, 'controlPlane'];
    const count = this.read('controller_count', asInt, z.number().int().min(0).max(7));
    if (count !== undefined) {
      if (count > 0 && count % 2 === 0) {
        this.set([...cp, 'count'], count + 1, 'controller_count', `old controller_count ${count}`);
        this.report('controller_count', `${count} control-plane nodes cannot keep etcd quorum better than ${count - 1}; ${count + 1} is used (an odd number is required)`);
      } else {
        this.set([...cp, 'count'], count, 'controller_count');
        if (count === 0) this.comment([...cp, 'count'], '0 = the cluster is not created (as controller_count = 0 skipped the testcluster)');
      }
    }
    this.simple('controller_flavor', [...cp, 'flavor'], asString, controlPlaneSchema.shape.flavor);
    this.simple('controller_metadata', [...cp, 'metadata'], asStringMap, controlPlaneSchema.shape.metadata);
    const antiAffinity = this.read('anti_affinity', asBool);
    const softCp = this.read('soft_anti_affinity_controller', asBool);
    if (antiAffinity !== undefined || softCp !== undefined) {
      const policy = antiAffinity === false ? 'none' : softCp ? 'soft' : 'hard';
      const from = [...(antiAffinity !== undefined ? ['anti_affinity'] : []), ...(softCp !== undefined ? ['soft_anti_affinity_controller'] : [])];
      this.set([...cp, 'antiAffinity'], policy, undefined, `old ${from.join(' + ')}`);
      for (const k of from) this.mapped(k, [...cp, 'antiAffinity']);
      if (antiAffinity === false && softCp) {
        this.report('soft_anti_affinity_controller', 'no effect: anti_affinity = false turns server groups off');
      }
    }
    this.simple('etcd_unsafe_fs', [...cp, 'etcdUnsafeFilesystem'], asBool, controlPlaneSchema.shape.etcdUnsafeFilesystem);
    return antiAffinity;
  }

  /** The old workers: one node group. */
  private workers(c: FieldPath, antiAffinity: boolean | undefined): void {
    const group: Obj = { name: DEFAULT_NODE_GROUP };
    const workerCount = this.read('worker_count', asInt, nodeGroupSchema.shape.count);
    const workerFlavor = this.read('worker_flavor', asString, nodeGroupSchema.shape.flavor);
    const workerMetadata = this.read('worker_metadata', asStringMap, nodeGroupSchema.shape.metadata);
    if (workerCount !== undefined || workerFlavor !== undefined || workerMetadata !== undefined || antiAffinity !== undefined) {
      const g = [...c, 'nodeGroups', 0];
      this.set([...c, 'nodeGroups'], [group]);
      if (workerCount !== undefined) this.set([...g, 'count'], workerCount, 'worker_count');
      if (workerFlavor !== undefined) this.set([...g, 'flavor'], workerFlavor, 'worker_flavor');
      if (workerMetadata !== undefined) this.set([...g, 'metadata'], workerMetadata, 'worker_metadata');
      if (antiAffinity !== undefined) this.set([...g, 'antiAffinity'], antiAffinity ? 'soft' : 'none', 'anti_affinity', 'old anti_affinity (soft for workers)');
    }

  }

  /** Networks and API access. */
  private clusterNetwork(c: FieldPath): void {
    this.simple('node_cidr', [...c, 'network', 'nodeCidr'], asString, clusterNetworkSchema.shape.nodeCidr);
    this.simple('pod_cidr', [...c, 'network', 'podCidr'], asString, clusterNetworkSchema.shape.podCidr);
    this.simple('service_cidr', [...c, 'network', 'serviceCidr'], asString, clusterNetworkSchema.shape.serviceCidr);
    const kubeapi = this.read('restrict_kubeapi', asStringList, clusterSchema.shape.apiAllowedCidrs);
    if (kubeapi !== undefined) {
      this.set([...c, 'apiAllowedCidrs'], kubeapi, 'restrict_kubeapi', false);
      this.comment([...c, 'apiAllowedCidrs'], 'old restrict_kubeapi: [] = open, ["none"] = internal only; the management cluster is always allowed');
    }
    const ovn = this.read<boolean | 'auto'>('use_ovn_lb_provider', (v) => (v === 'auto' ? ok('auto' as const) : asBool(v)));
    if (ovn !== undefined) this.set([...c, 'ovnLoadBalancer'], ovn, 'use_ovn_lb_provider');
    this.simple('capo_instance_create_timeout', [...c, 'instanceCreateTimeoutMinutes'], asInt, clusterSchema.shape.instanceCreateTimeoutMinutes);
  }

  private addons(): void {
    const a = [...this.c, 'addons'];
    const cilium = this.read('use_cilium', asToggle);
    let cni: 'cilium' | 'calico' = 'cilium';
    if (cilium !== undefined) {
      cni = cilium.enabled ? 'cilium' : 'calico';
      this.set([...a, 'cni'], { type: cni }, 'use_cilium', false);
      this.comment([...a, 'cni'], 'old use_cilium');
      if (cilium.version) this.report('use_cilium', this.versionNote(cilium.version, 'cilium version', 'addons.cni.version'));
    }
    const calico = this.read('calico_version', asString);
    if (calico !== undefined) {
      if (cni === 'calico') this.report('calico_version', this.versionNote(calico, 'Calico release', 'addons.cni.version'));
      else this.report('calico_version', `${calico}: not used, the CNI is cilium (use_cilium)`);
    }
    for (const [key, field, what] of ADDON_TOGGLES) {
      const t = this.read(key, asToggle);
      if (t === undefined) continue;
      if (field === 'gatewayApi' && t.enabled && cni !== 'cilium') {
        this.report(key, 'needs cilium (it had no effect with calico in the old tool either): not carried over; addons.gatewayApi with implementation traefik gives a cluster with calico a Gateway API implementation (docs/addons.md#gateway-api)');
        continue;
      }
      if (field === 'gatewayApi' && t.enabled) {
        // the CRD chart cannot be installed (cross-checks.ts): the operator brings the CRDs, as the old tool applied them
        this.set([...a, field], { enabled: true, crds: false }, key);
        this.report(key, 'carried over with crds: false: install the Gateway API CRDs yourself before the deploy (docs/addons.md#gateway-api); the catalogue\'s CRD chart cannot be installed by Cluster API\'s Helm add-on provider');
        continue;
      }
      this.set([...a, field], t.enabled, key);
      if (t.version) this.report(key, this.versionNote(t.version, what, `addons.${field}.version`));
    }
    const harbor = this.read('deploy_harbor', asBool);
    if (harbor === false) this.sameAsDefault.set('deploy_harbor', 'false: Harbor is not deployed, and this tool does not deploy it');
    if (harbor === true) this.report('deploy_harbor', 'not supported: Harbor is not part of this release (planned later); deploy it yourself, e.g. with Flux');
  }

  private versionNote(version: string, what: string, field: string): string {
    return `the add-on is enabled, but ${version} (the old ${what}) is not carried over: the add-on catalogue pins tested Helm chart versions; set ${field} to a chart version to override`;
  }

  private unsupported(): void {
    for (const [key, reason] of Object.entries(UNSUPPORTED)) {
      if (key in this.values) {
        this.take(key);
        if (!this.notes.has(key)) this.report(key, reason);
      }
    }
  }
}
