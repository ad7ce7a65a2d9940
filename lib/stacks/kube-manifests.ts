import { ITerraformDependable } from 'cdktf';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { Construct } from 'constructs';
import { KubeObject } from '../capi/kube-object';
import { terraformLiteral } from './terraform-literal';

export interface KubeManifestsProps {
  readonly objects: readonly KubeObject[];
  /**
   * Resources every object waits for (namespace, credentials).
   * @default []
   */
  readonly dependsOn?: ITerraformDependable[];
  /**
   * How long a delete may take (CAPI removing the machines behind a Cluster).
   * @default '30m'
   */
  readonly deleteTimeout?: string;
}

/**
 * One `kubernetes_manifest` per object, addressed by kind and name: a renamed (content-addressed)
 * template is a new resource and the old one is removed after its users moved on.
 */
export class KubeManifests extends Construct {
  public readonly byKey: Record<string, Manifest> = {};

  constructor(scope: Construct, id: string, props: KubeManifestsProps) {
    super(scope, id);
    for (const obj of props.objects) {
      const key = `${obj.kind}-${obj.metadata.name}`;
      this.byKey[key] = new Manifest(this, key, {
        manifest: terraformLiteral(obj) as unknown as Record<string, unknown>,
        fieldManager: { name: 'capi-openstack-cdktf', forceConflicts: true },
        timeouts: { create: '5m', update: '5m', delete: props.deleteTimeout ?? '30m' },
        dependsOn: props.dependsOn,
      });
    }
  }

  public get all(): Manifest[] {
    return Object.values(this.byKey);
  }
}
