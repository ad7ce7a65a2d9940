import { ITerraformDependable, dependable } from 'cdktf';
import { Manifest } from '../gen/kubernetes/manifest';
import { Construct } from 'constructs';
import { PropChecks } from '../terraform/prop-checks';
import { requireProvider } from '../terraform/required-provider';
import { KubeObject } from '../objects/kube-object';
import { terraformLiteral } from '../terraform/terraform-literal';

/** How long Terraform waits for an object's deletion (the Cluster's: all of CAPI's teardown). */
export const DEFAULT_DELETE_TIMEOUT_MINUTES = 30;

export interface KubeManifestsProps {
  /** The Kubernetes objects, one `kubernetes_manifest` each; every kind/name at most once. */
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
  /**
   * Other sets whose objects these objects may reference (a KubeadmControlPlane in one set, its
   * machine template in another): such references become dependencies too.
   * @default []
   */
  readonly referencedSets?: readonly KubeManifests[];
  /**
   * `create_before_destroy` on every object of the set. For templates that are renamed when their
   * content changes: Terraform then deletes the old template (an orphan) only after the objects
   * that referenced it were updated to the new one. Terraform extends this to everything the
   * objects depend on, so keep the set's dependencies to what may be created twice (the namespace).
   * @default false
   */
  readonly createBeforeDestroy?: boolean;
}

/**
 * `{kind, name}` references from `obj` to other objects of the same set (CAPI object references:
 * `infrastructureRef`, `bootstrap.configRef`, `controlPlaneRef`, …), as `kind/name` keys.
 */
export function referencedObjectKeys(obj: KubeObject, keys: ReadonlySet<string>): string[] {
  const self = `${obj.kind}/${obj.metadata.name}`;
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.kind === 'string' && typeof o.name === 'string') {
      const key = `${o.kind}/${o.name}`;
      if (key !== self && keys.has(key)) found.add(key);
    }
    for (const [k, child] of Object.entries(o)) if (k !== 'metadata') walk(child);
  };
  walk(Object.fromEntries(Object.entries(obj).filter(([k]) => k !== 'metadata')));
  return [...found].sort();
}

/**
 * One `kubernetes_manifest` per object, addressed by kind and name: a renamed (content-addressed)
 * template is a new resource and the old one is removed after its users moved on. An object that
 * references another object of the set depends on it, so Terraform creates the new template
 * before it repoints the MachineDeployment / KubeadmControlPlane, and deletes the old template
 * only after that update (the reference is a literal name, invisible to Terraform otherwise).
 */
export class KubeManifests extends Construct {
  public readonly byKey: Record<string, Manifest> = {};
  /** The resources by `kind/name` of their object. */
  public readonly byObjectKey = new Map<string, Manifest>();

  constructor(scope: Construct, id: string, props: KubeManifestsProps) {
    super(scope, id);
    new PropChecks('KubeManifests', this).props(props);
    new PropChecks('KubeManifests', this).present(props, 'objects').done();
    requireProvider(this, 'KubeManifests', 'kubernetes');
    const byObjectKey = new Map(props.objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
    if (byObjectKey.size !== props.objects.length) {
      const keys = props.objects.map((o) => `${o.kind}/${o.metadata.name}`);
      const twice = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
      throw new Error(`Invalid props of KubeManifests at ${this.node.path}:\n  objects: expected each kind/name once, found ${twice.map((k) => `${k} ${keys.filter((x) => x === k).length} times`).join(', ')}`);
    }
    const external = new Map<string, Manifest>();
    for (const set of props.referencedSets ?? []) for (const [k, m] of set.byObjectKey) external.set(k, m);
    const known = new Set([...byObjectKey.keys(), ...external.keys()]);
    const refs = new Map([...byObjectKey].map(([k, o]) => [k, referencedObjectKeys(o, known)]));
    const created = new Map<string, Manifest>();
    const visiting = new Set<string>();
    const create = (key: string): Manifest => {
      const done = created.get(key);
      if (done) return done;
      if (visiting.has(key)) throw new Error(`${this.node.path}: reference cycle through ${key}`);
      visiting.add(key);
      const deps = refs.get(key)!.map((k) => external.get(k) ?? create(k));
      const obj = byObjectKey.get(key)!;
      const id = `${obj.kind}-${obj.metadata.name}`;
      const manifest = new Manifest(this, id, {
        manifest: terraformLiteral(obj) as unknown as Record<string, unknown>,
        fieldManager: { name: 'capi-openstack-cdktf', forceConflicts: true },
        timeouts: { create: '5m', update: '5m', delete: props.deleteTimeout ?? `${DEFAULT_DELETE_TIMEOUT_MINUTES}m` },
        dependsOn: [...(props.dependsOn ?? []), ...deps],
        ...(props.createBeforeDestroy ? { lifecycle: { createBeforeDestroy: true } } : {}),
      });
      this.byKey[id] = manifest;
      this.byObjectKey.set(key, manifest);
      created.set(key, manifest);
      visiting.delete(key);
      return manifest;
    };
    for (const key of byObjectKey.keys()) create(key);
  }

  /**
   * Makes the object `kind/name` of this set wait for `dependency` too (the MachineDeployments for the
   * control-plane upgrade gate, which itself waits for the set's KubeadmControlPlane).
   */
  public addDependency(objectKey: string, dependency: ITerraformDependable): void {
    const manifest = this.byObjectKey.get(objectKey);
    if (!manifest) throw new Error(`${this.node.path}: no object ${objectKey} in this set`);
    manifest.dependsOn = [...(manifest.dependsOn ?? []), dependable(dependency)];
  }

  public get all(): Manifest[] {
    return Object.values(this.byKey);
  }
}
