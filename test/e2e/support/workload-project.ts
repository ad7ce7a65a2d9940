/**
 * The throw-away cdktf project of the workload-cluster e2e suite: a temp directory with a
 * cdktf.json whose app is the compiled app of this repository, an environments directory holding
 * a variant of environments/local.yaml that brings its own management cluster (the local
 * kube-apiserver), and the Terraform state (local backend, written next to cdktf.json).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseDocument } from 'yaml';
import { expectExit, ROOT, run, RunResult } from './workload-process';

export interface VariantChanges {
  /** Node count of the first node group of the cluster. */
  readonly workerCount?: number;
  /** Flavor of the first node group of the cluster. */
  readonly workerFlavor?: string;
  /** Add-ons switched off, by their key under `addons:`. */
  readonly disabledAddons?: readonly string[];
  /** Add-ons switched on (`enabled: true`, beside a version addonVersions sets), by their key under `addons:`. */
  readonly enabledAddons?: readonly string[];
  /** Root volume of the first node group, GB. */
  readonly workerRootVolumeGb?: number;
  /** The cluster's Kubernetes version. */
  readonly kubernetesVersion?: string;
  /** Machines of the cluster's control plane. */
  readonly controlPlaneCount?: number;
  /** Server group policy of the control plane. */
  readonly controlPlaneAntiAffinity?: 'hard' | 'soft' | 'none';
  /** Further fields of add-ons (`gatewayApi: { crds: false }`), by their key under `addons:`. */
  readonly addonFields?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Chart versions of add-ons, by their key under `addons:`. */
  readonly addonVersions?: Readonly<Record<string, string>>;
  /** The cluster's apiAllowedCidrs. */
  readonly apiAllowedCidrs?: readonly string[];
  /** existingManagementCluster.egressCidr (needed with apiAllowedCidrs). */
  readonly managementEgressCidr?: string;
  /** The cluster's node CIDR (network.nodeCidr). */
  readonly nodeCidr?: string;
  /** A second cluster: a control plane of one, no node groups, its own node CIDR. */
  readonly secondCluster?: { readonly name: string; readonly nodeCidr: string };
  /** The cluster's failureDomains (availability zones). */
  readonly failureDomains?: readonly string[];
  /** versions.clusterApi of the environment (the management cluster's controllers). */
  readonly clusterApiVersion?: string;
  /** management.providerManifests (the pins the controller upgrade installs from). */
  readonly providerManifests?: Readonly<Record<string, unknown>>;
  /** registryMirrors of the environment (for the VM and the nodes). */
  readonly registryMirrors?: readonly Readonly<Record<string, unknown>>[];
  /** Node labels of the first node group (kubelet --node-labels). */
  readonly workerLabels?: Readonly<Record<string, string>>;
  /** The environment's outbound proxy (`proxy:`). */
  readonly proxy?: { readonly httpProxy: string; readonly noProxy?: readonly string[] };
  /** cloud.authUrl, the Keystone URL the cluster's own components get (CAPO, OCCM, Cinder CSI), with cloud.allowPlainHttp when it is http to a network address. */
  readonly cloudAuthUrl?: { readonly url: string; readonly allowPlainHttp: boolean };
  /** cloud.caCertificateFile (the OpenStack API's CA, also put in the nodes' trust store). */
  readonly cloudCaCertificateFile?: string;
  /** The cluster's machineHealthCheck.unhealthyAfterMinutes (a shorter wait before remediation). */
  readonly unhealthyAfterMinutes?: number;
  /** The environment's chartRepository (a private chart mirror and its CA file). */
  readonly chartRepository?: { readonly url: string; readonly caCertificateFile?: string };
}

export interface ResourceChange {
  readonly address: string;
  readonly type: string;
  readonly actions: readonly string[];
}

export class WorkloadProject {
  readonly dir: string;
  readonly envDir: string;
  readonly envName: string;
  readonly stackDir: string;

  constructor(
    readonly stack: string,
    private readonly sourceEnvFile: string,
    private readonly clusterName: string,
    private readonly management: { kubeconfigFile: string; context: string },
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-e2e-workload-'));
    this.envDir = path.join(this.dir, 'environments');
    this.envName = path.basename(sourceEnvFile, '.yaml');
    this.stackDir = path.join(this.dir, 'cdktf.out', 'stacks', stack);
    fs.mkdirSync(this.envDir);
    fs.writeFileSync(
      path.join(this.dir, 'cdktf.json'),
      `${JSON.stringify({ language: 'typescript', app: `node ${path.join(ROOT, 'dist', 'main.js')}`, projectId: 'capi-e2e-workload', sendCrashReports: 'false', terraformProviders: [], terraformModules: [], context: {} }, null, 2)}\n`,
    );
    this.writeVariant({});
  }

  /** The environment's variables for every cdktf/terraform call (ENVIRONMENTS_DIR, ENVIRONMENT). */
  get processEnv(): NodeJS.ProcessEnv {
    return { ...this.env, ENVIRONMENTS_DIR: this.envDir, ENVIRONMENT: this.envName };
  }

  /**
   * The environment file: environments/local.yaml plus existingManagementCluster (its kubeconfig
   * as a path relative to the environment file, as operators keep it next to it), plus `changes`.
   */
  writeVariant(changes: VariantChanges): string {
    const doc = parseDocument(fs.readFileSync(this.sourceEnvFile, 'utf8'));
    const kubeconfigFile = path.relative(this.envDir, this.management.kubeconfigFile);
    const egress = changes.managementEgressCidr !== undefined ? { egressCidr: changes.managementEgressCidr } : {};
    doc.set('existingManagementCluster', doc.createNode({ kubeconfigFile, context: this.management.context, ...egress }));
    const cluster = ['clusters', this.clusterName];
    if (!doc.hasIn(cluster)) throw new Error(`${this.sourceEnvFile} has no cluster "${this.clusterName}"`);
    if (changes.workerCount !== undefined) doc.setIn([...cluster, 'nodeGroups', 0, 'count'], changes.workerCount);
    if (changes.workerFlavor !== undefined) doc.setIn([...cluster, 'nodeGroups', 0, 'flavor'], changes.workerFlavor);
    if (changes.workerRootVolumeGb !== undefined) doc.setIn([...cluster, 'nodeGroups', 0, 'rootVolumeSizeGb'], changes.workerRootVolumeGb);
    if (changes.kubernetesVersion !== undefined) doc.setIn([...cluster, 'kubernetesVersion'], changes.kubernetesVersion);
    if (changes.nodeCidr !== undefined) doc.setIn([...cluster, 'network', 'nodeCidr'], changes.nodeCidr);
    if (changes.controlPlaneCount !== undefined) doc.setIn([...cluster, 'controlPlane', 'count'], changes.controlPlaneCount);
    if (changes.controlPlaneAntiAffinity !== undefined) doc.setIn([...cluster, 'controlPlane', 'antiAffinity'], changes.controlPlaneAntiAffinity);
    for (const [addon, version] of Object.entries(changes.addonVersions ?? {})) doc.setIn([...cluster, 'addons', addon], doc.createNode({ version }));
    if (changes.failureDomains !== undefined) doc.setIn([...cluster, 'failureDomains'], doc.createNode([...changes.failureDomains]));
    if (changes.apiAllowedCidrs !== undefined) doc.setIn([...cluster, 'apiAllowedCidrs'], doc.createNode([...changes.apiAllowedCidrs]));
    for (const addon of changes.disabledAddons ?? []) doc.setIn([...cluster, 'addons', addon], false);
    for (const addon of changes.enabledAddons ?? []) doc.setIn([...cluster, 'addons', addon, 'enabled'], true);
    for (const [addon, fields] of Object.entries(changes.addonFields ?? {})) for (const [k, v] of Object.entries(fields)) doc.setIn([...cluster, 'addons', addon, k], v);
    if (changes.clusterApiVersion !== undefined) doc.setIn(['versions', 'clusterApi'], changes.clusterApiVersion);
    if (changes.providerManifests !== undefined) doc.setIn(['management', 'providerManifests'], doc.createNode(changes.providerManifests));
    if (changes.registryMirrors !== undefined) doc.set('registryMirrors', doc.createNode(changes.registryMirrors.map((m) => ({ ...m }))));
    if (changes.workerLabels !== undefined) doc.setIn([...cluster, 'nodeGroups', 0, 'labels'], doc.createNode({ ...changes.workerLabels }));
    if (changes.proxy !== undefined) doc.set('proxy', doc.createNode({ httpProxy: changes.proxy.httpProxy, noProxy: [...(changes.proxy.noProxy ?? [])] }));
    if (changes.cloudCaCertificateFile !== undefined) doc.setIn(['cloud', 'caCertificateFile'], changes.cloudCaCertificateFile);
    if (changes.cloudAuthUrl !== undefined) {
      doc.setIn(['cloud', 'authUrl'], changes.cloudAuthUrl.url);
      if (changes.cloudAuthUrl.allowPlainHttp) doc.setIn(['cloud', 'allowPlainHttp'], true);
    }
    if (changes.unhealthyAfterMinutes !== undefined) doc.setIn([...cluster, 'machineHealthCheck', 'unhealthyAfterMinutes'], changes.unhealthyAfterMinutes);
    if (changes.chartRepository !== undefined) doc.set('chartRepository', doc.createNode({ ...changes.chartRepository }));
    if (changes.secondCluster) {
      const second = doc.getIn(cluster, true) as any;
      const copy = doc.createNode(second.toJSON());
      doc.setIn(['clusters', changes.secondCluster.name], copy);
      doc.setIn(['clusters', changes.secondCluster.name, 'nodeGroups'], doc.createNode([]));
      doc.setIn(['clusters', changes.secondCluster.name, 'network', 'nodeCidr'], changes.secondCluster.nodeCidr);
    }
    const text = doc.toString();
    fs.writeFileSync(path.join(this.envDir, `${this.envName}.yaml`), text);
    return text;
  }

  /** The resource name stem of the cluster's OpenStack resources (`<prefix>-<env>-<cluster>`). */
  get namePrefix(): string {
    const doc = parseDocument(fs.readFileSync(path.join(this.envDir, `${this.envName}.yaml`), 'utf8'));
    return `${(doc.get('prefix') as string | undefined) ?? 'capi'}-${this.envName}-${this.clusterName}`;
  }

  cdktf(args: readonly string[], timeoutMs = 15 * 60_000): Promise<RunResult> {
    return run(path.join(ROOT, 'node_modules', '.bin', 'cdktf'), args, { cwd: this.dir, env: this.processEnv, timeoutMs });
  }

  terraform(args: readonly string[], timeoutMs = 15 * 60_000): Promise<RunResult> {
    return run(this.env.TERRAFORM_BINARY_NAME || 'terraform', args, { cwd: this.stackDir, env: this.processEnv, timeoutMs });
  }

  async synth(): Promise<void> {
    expectExit(await this.cdktf(['synth'], 5 * 60_000), 'cdktf synth');
  }

  /** The synthesized stack (cdk.tf.json). */
  stackJson(): any {
    return JSON.parse(fs.readFileSync(path.join(this.stackDir, 'cdk.tf.json'), 'utf8'));
  }

  /** Every kubernetes_manifest of the synthesized stack: its Terraform name and its object's identity. */
  manifests(): { resource: string; apiVersion: string; kind: string; name: string; namespace: string; labels: Record<string, string> }[] {
    const json = this.stackJson();
    return Object.entries<any>(json.resource?.kubernetes_manifest ?? {}).map(([resource, r]) => ({
      resource,
      apiVersion: r.manifest.apiVersion,
      kind: r.manifest.kind,
      name: r.manifest.metadata.name,
      namespace: r.manifest.metadata.namespace,
      labels: r.manifest.metadata.labels ?? {},
    }));
  }

  /** `terraform plan` with a saved plan; exit code 0 = no changes, 2 = changes. */
  async plan(planFile = 'e2e.tfplan'): Promise<{ result: RunResult; changes: ResourceChange[] }> {
    const result = expectExit(await this.terraform(['plan', '-input=false', '-no-color', '-detailed-exitcode', `-out=${planFile}`]), 'terraform plan', [0, 2]);
    const show = expectExit(await this.terraform(['show', '-json', '-no-color', planFile], 120_000), 'terraform show -json');
    const json = JSON.parse(show.output);
    const changes: ResourceChange[] = (json.resource_changes ?? [])
      .filter((c: any) => !(c.change.actions.length === 1 && ['no-op', 'read'].includes(c.change.actions[0])))
      .map((c: any) => ({ address: c.address, type: c.type, actions: c.change.actions }));
    return { result, changes };
  }

  /** `terraform apply` of a saved plan; `timeoutMs` (default 15 min) bounds an apply that waits, e.g. on the upgrade gate. */
  async applyPlan(planFile = 'e2e.tfplan', timeoutMs = 15 * 60_000): Promise<RunResult> {
    return expectExit(await run(this.env.TERRAFORM_BINARY_NAME || 'terraform', ['apply', '-input=false', '-no-color', '-auto-approve', planFile], { cwd: this.stackDir, env: this.processEnv, timeoutMs }), 'terraform apply');
  }

  /** `terraform output -json` of the stack (values only). */
  async outputs(): Promise<Record<string, any>> {
    const r = expectExit(await this.terraform(['output', '-json', '-no-color'], 120_000), 'terraform output');
    return Object.fromEntries(Object.entries<any>(JSON.parse(r.output)).map(([k, v]) => [k, v.value]));
  }

  /** Addresses in the state ([] without state). */
  async stateList(): Promise<string[]> {
    if (!fs.existsSync(path.join(this.stackDir, '.terraform'))) return [];
    const r = await this.terraform(['state', 'list', '-no-color'], 120_000);
    if (r.code !== 0) return [];
    return r.lines.map((l) => l.text.trim()).filter(Boolean);
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
