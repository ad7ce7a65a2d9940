/**
 * Plain Kubernetes objects as data, plus the API groups, versions and labels every builder shares.
 * No cdktf here: the stacks turn these objects into resources.
 */

/** Metadata of an emitted object. `namespace` is set on every namespaced object. */
export interface KubeObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A Kubernetes object ready to be applied (apiVersion + kind + metadata + anything else). */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: KubeObjectMeta;
  readonly [field: string]: unknown;
}

/** API groups and versions pinned by this project (CAPI v1.12 contract v1beta2, CAPO v0.14, CAAPH v0.6). */
export const API = {
  cluster: { group: 'cluster.x-k8s.io', version: 'cluster.x-k8s.io/v1beta2' },
  bootstrap: { group: 'bootstrap.cluster.x-k8s.io', version: 'bootstrap.cluster.x-k8s.io/v1beta2' },
  controlPlane: { group: 'controlplane.cluster.x-k8s.io', version: 'controlplane.cluster.x-k8s.io/v1beta2' },
  infrastructure: { group: 'infrastructure.cluster.x-k8s.io', version: 'infrastructure.cluster.x-k8s.io/v1beta1' },
  /** ClusterResourceSet (CAPI core). */
  resourceSet: { group: 'addons.cluster.x-k8s.io', version: 'addons.cluster.x-k8s.io/v1beta2' },
  /** HelmChartProxy (Cluster API add-on provider for Helm). */
  helm: { group: 'addons.cluster.x-k8s.io', version: 'addons.cluster.x-k8s.io/v1alpha1' },
} as const;

/** Set by CAPI on its objects; set here too so selectors and `kubectl get -l` work from the start. */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** Marks every object this project emits. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'capi-openstack-cdktf';
/** Set on the Cluster object only; HelmChartProxies and ClusterResourceSets select the cluster by it. */
export const CLUSTER_SELECTOR_LABEL = 'capi-openstack-cdktf/cluster';
/** Set on every object: which node group / role it belongs to (`control-plane` or the node group name). */
export const ROLE_LABEL = 'capi-openstack-cdktf/role';

/** The labels every emitted object carries. */
export function commonLabels(clusterName: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { [CLUSTER_NAME_LABEL]: clusterName, [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, ...extra };
}

/** `{apiGroup, kind, name}` reference (CAPI v1beta2 ContractVersionedObjectReference). */
export interface ObjectRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

export function refTo(obj: KubeObject): ObjectRef {
  return { apiGroup: obj.apiVersion.split('/')[0], kind: obj.kind, name: obj.metadata.name };
}
