/** OpenStackMachineTemplate (CAPO v1beta1) of the control plane and of each node group. */
import { API, KubeObject, ROLE_LABEL, commonLabels } from '../objects/kube-object';
import { contentAddressedName } from './content-hash';
import { DEFAULT_DISKLESS_ROOT_VOLUME_GB, WorkloadClusterInputs, clusterNamespace, opaqueInputs } from './inputs';

/**
 * Local disk of an SCS standard flavor from its name (SCS flavor naming standard): `SCS-2V-4-20s` → 20,
 * `SCS-2V-4` → 0 (diskless), a name that is not an SCS name → undefined (unknown).
 */
export function scsFlavorDiskGb(flavor: string): number | undefined {
  const m = /^SCS-\d+[LVTC][io]?(?::\d+)?-\d+(?:\.\d+)?[uo]?(?:-(?:(\d+)x)?(\d+)[nhsp]?)?(?:_.*)?$/.exec(flavor);
  if (!m) return undefined;
  const [, count, size] = m;
  if (size === undefined) return 0;
  return Number(size) * Number(count ?? 1);
}

/**
 * Root volume size for a machine: the configured size; else, when the flavor has no disk, the size
 * the construct found for that flavor or 25 GB; else none (boot from the flavor disk).
 */
export function rootVolumeSizeGb(inputs: WorkloadClusterInputs, flavor: string, configured: number): number | undefined {
  if (configured > 0) return configured;
  const fromConstruct = inputs.rootVolumeSizeGbWhenDiskless?.[flavor];
  if (fromConstruct !== undefined) return fromConstruct > 0 ? fromConstruct : undefined;
  return scsFlavorDiskGb(flavor) === 0 ? DEFAULT_DISKLESS_ROOT_VOLUME_GB : undefined;
}

export interface MachineTemplateProps {
  /** `control-plane` or the node group name. */
  readonly role: string;
  /** OpenStack flavor name of the machines. */
  readonly flavor: string;
  /** Server metadata set on every machine (sorted by key in the template). */
  readonly metadata: Readonly<Record<string, string>>;
  /** Root volume size in GiB; 0 boots from the flavor's disk (a diskless flavor gets a derived size). */
  readonly rootVolumeSizeGb: number;
  /**
   * Server group the machines join (anti-affinity).
   * @default - no server group
   */
  readonly serverGroupId?: string;
}

/** The template spec (without name): what the content hash covers. */
export function machineTemplateSpec(inputs: WorkloadClusterInputs, props: MachineTemplateProps): Record<string, unknown> {
  const volume = rootVolumeSizeGb(inputs, props.flavor, props.rootVolumeSizeGb);
  const metadata = Object.keys(props.metadata)
    .sort()
    .map((key) => ({ key, value: props.metadata[key] }));
  const extraSgs = inputs.nodeSecurityGroupNames ?? [];
  return {
    template: {
      spec: {
        flavor: props.flavor,
        image: { filter: { name: inputs.cluster.nodeImage } },
        ...(volume ? { rootVolume: { sizeGiB: volume } } : {}),
        ...(metadata.length > 0 ? { serverMetadata: metadata } : {}),
        ...(props.serverGroupId ? { serverGroup: { id: props.serverGroupId } } : {}),
        ...(extraSgs.length > 0 ? { securityGroups: extraSgs.map((name) => ({ filter: { name } })) } : {}),
        ...(inputs.sshKeyName ? { sshKeyName: inputs.sshKeyName } : {}),
      },
    },
  };
}

export function buildMachineTemplate(inputs: WorkloadClusterInputs, props: MachineTemplateProps): KubeObject {
  const spec = machineTemplateSpec(inputs, props);
  return {
    apiVersion: API.infrastructure.version,
    kind: 'OpenStackMachineTemplate',
    metadata: {
      name: contentAddressedName(`${inputs.cluster.name}-${props.role}`, spec, opaqueInputs(inputs)),
      namespace: clusterNamespace(inputs),
      labels: commonLabels(inputs.cluster.name, { [ROLE_LABEL]: props.role }),
    },
    spec,
  };
}
