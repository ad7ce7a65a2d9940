/**
 * Converts the settings of the old bootstrap's `environment-<cloud>.tfvars` (already parsed from
 * HCL into plain values) into an environment file. Pure: no output, no writing. Every key of the
 * input ends up in `outcomes`, either carried over or reported with the reason.
 */
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { addonsSchema, clusterNetworkSchema, clusterSchema, controlPlaneSchema, nodeGroupSchema } from '../../../config/cluster-schema';
import { environmentSchema, managementSchema, networkSchema, proxySchema, registryMirrorSchema } from '../../../config/environment-schema';
import { cidr, dnsLabel } from '../../../config/fields';
import { checkControllerVersions, DEFAULT_CONTROLLER_VERSIONS, isVersion, workloadKubernetesProblem } from '../../../config/versions';
import { CliError } from '../errors';
import { parseHostsFile } from './registry-hosts';
import { asBool, asInt, asString, asStringList, asStringMap, asToggle, Checked, ok, schemaProblem, unusable, withV } from './values';

export type FieldPath = readonly (string | number)[];

/** A comment for the written YAML: above the key (`before`) or after a scalar value (`inline`). */
export interface FieldComment {
  readonly path: FieldPath;
  readonly text: string;
  readonly inline?: boolean;
}

export interface KeyOutcome {
  readonly key: string;
  /** `carried`: the setting is in the new file with the same meaning; `reported`: see notes. */
  readonly status: 'carried' | 'reported';
  /** Why it was not (fully) carried over; empty when carried. */
  readonly notes: readonly string[];
  /** Fields of the new file the setting went to (dotted paths). */
  readonly fields: readonly string[];
  /** Carried without writing a field: the value means what the new default does. */
  readonly sameAsDefault?: string;
}

export interface TfvarsConversion {
  /** The environment file content (camelCase keys, only what the old file set plus what is required). */
  readonly environment: Record<string, unknown>;
  readonly comments: readonly FieldComment[];
  /** One per key of the input, in input order. */
  readonly outcomes: readonly KeyOutcome[];
  readonly clusterName: string;
}

export interface ConvertOptions {
  /** clouds.yaml entry; replaces `cloud_provider`. */
  readonly cloud?: string;
  /** Directories relative file names of the old file (containerd_registry_files) are looked up in, in order. */
  readonly fileBases: readonly string[];
  /** Name of the source file, for messages. */
  readonly sourceName: string;
}

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

const DEFAULT_CLUSTER_NAME = 'testcluster';
const DEFAULT_NODE_GROUP = 'md-0';
const OPEN = '0.0.0.0/0';

export function convertTfvars(values: Record<string, unknown>, options: ConvertOptions): TfvarsConversion {
  return new Converter(values, options).run();
}

type Obj = Record<string, unknown>;

class Converter {
  private readonly env: Obj = {
    prefix: undefined,
    availabilityZone: undefined,
    cloud: {},
    network: {},
    management: {},
    proxy: {},
    registryMirrors: undefined,
    versions: {},
    clusters: {},
  };
  private readonly comments: FieldComment[] = [];
  private readonly notes = new Map<string, string[]>();
  private readonly handled = new Set<string>();
  private readonly fields = new Map<string, string[]>();
  private readonly sameAsDefault = new Map<string, string>();
  private clusterApi: string = DEFAULT_CONTROLLER_VERSIONS.clusterApi;
  private clusterName = DEFAULT_CLUSTER_NAME;

  constructor(
    private readonly values: Record<string, unknown>,
    private readonly options: ConvertOptions,
  ) {}

  run(): TfvarsConversion {
    this.cloudAndPrefix();
    this.network();
    this.management();
    this.proxy();
    this.registryFiles();
    this.versions();
    this.cluster();
    this.unsupported();
    for (const key of Object.keys(this.values)) {
      if (!this.handled.has(key)) {
        this.handled.add(key);
        this.report(key, 'unknown setting (not one of the old tool\'s variables; misspelt?): not carried over');
      }
    }
    prune(this.env, []);
    return {
      environment: this.env,
      comments: this.comments,
      clusterName: this.clusterName,
      outcomes: Object.keys(this.values).map((key) => {
        const notes = this.notes.get(key) ?? [];
        const fields = this.fields.get(key) ?? [];
        const same = notes.length === 0 && fields.length === 0 ? this.sameAsDefault.get(key) : undefined;
        return { key, status: notes.length > 0 ? 'reported' : 'carried', notes, fields, ...(same ? { sameAsDefault: same } : {}) };
      }),
    };
  }

  // ---- plumbing ----------------------------------------------------------------------------

  /** Marks the key handled and returns its value; unusable values (placeholders, expressions, null) are reported and return undefined. */
  private take(key: string): unknown {
    if (!(key in this.values)) return undefined;
    this.handled.add(key);
    const value = this.values[key];
    if (value === null) {
      this.sameAsDefault.set(key, 'null: the default applies');
      return undefined;
    }
    const why = unusable(value);
    if (why) {
      this.report(key, `${why}: not carried over, the default applies`);
      return undefined;
    }
    return value;
  }

  private report(key: string, note: string): void {
    this.handled.add(key);
    const list = this.notes.get(key) ?? [];
    list.push(note);
    this.notes.set(key, list);
  }

  /**
   * Writes a field. `key`: the old setting it comes from (recorded, and an inline `old <key>`
   * comment unless `comment` says otherwise: a text, or false for none).
   */
  private set(at: FieldPath, value: unknown, key?: string, comment?: string | false): void {
    let obj = this.env as Record<string | number, unknown>;
    for (const k of at.slice(0, -1)) {
      if (obj[k] === undefined) obj[k] = typeof k === 'number' ? [] : {};
      obj = obj[k] as Record<string | number, unknown>;
    }
    obj[at[at.length - 1]] = value;
    if (key) this.mapped(key, at);
    const text = comment === undefined ? (key ? `old ${key}` : undefined) : comment || undefined;
    if (text) this.comment(at, text, true);
  }

  private mapped(key: string, at: FieldPath): void {
    const list = this.fields.get(key) ?? [];
    list.push(at.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join(''));
    this.fields.set(key, list);
  }

  private comment(at: FieldPath, text: string, inline = false): void {
    this.comments.push({ path: at, text, inline });
  }

  /** Reads, converts and validates one value; reports and returns undefined when it does not fit. */
  private read<T>(key: string, convert: (v: unknown) => Checked<T>, schema?: z.ZodType): T | undefined {
    const raw = this.take(key);
    if (raw === undefined) return undefined;
    const c = convert(raw);
    if (!c.ok) {
      this.report(key, `${c.reason}: not carried over, the default applies`);
      return undefined;
    }
    const problem = schema ? schemaProblem(schema, c.value) : undefined;
    if (problem) {
      this.report(key, `${problem}: not carried over, the default applies`);
      return undefined;
    }
    return c.value;
  }

  /** One old key → one field. */
  private simple<T>(key: string, at: FieldPath, convert: (v: unknown) => Checked<T>, schema: z.ZodType): T | undefined {
    const v = this.read(key, convert, schema);
    if (v !== undefined) this.set(at, v, key);
    return v;
  }

  private get c(): FieldPath {
    return ['clusters', this.clusterName];
  }

  // ---- sections -----------------------------------------------------------------------------

  private cloudAndPrefix(): void {
    const provider = this.read('cloud_provider', asString, z.string().min(1));
    const name = this.options.cloud ?? provider;
    if (this.options.cloud && provider !== undefined && provider !== this.options.cloud) {
      this.report('cloud_provider', `"${provider}" replaced by --cloud ${this.options.cloud}`);
    }
    if (!name) {
      throw new CliError(
        `${this.options.sourceName} names no usable clouds.yaml entry (cloud_provider is missing or a placeholder): pass --cloud <clouds.yaml entry>`,
      );
    }
    if (!this.options.cloud) this.set(['cloud', 'name'], name, 'cloud_provider');
    else if (provider === this.options.cloud) this.set(['cloud', 'name'], name, 'cloud_provider', 'old cloud_provider, same as --cloud');
    else this.set(['cloud', 'name'], name, undefined, 'from --cloud');
    this.comment(['cloud'], 'Credentials stay in clouds.yaml (or OS_* variables), never in this file.');

    const raw = this.read('prefix', asString);
    if (raw !== undefined) {
      const schema = environmentSchema.shape.prefix;
      if (!schemaProblem(schema, raw)) {
        this.set(['prefix'], raw, 'prefix');
      } else {
        const fixed = raw.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '').replace(/-+$/, '').slice(0, 20).replace(/-+$/, '');
        if (fixed && !schemaProblem(schema, fixed)) {
          this.set(['prefix'], fixed, 'prefix');
          this.report('prefix', `"${raw}" changed to "${fixed}" (${schemaProblem(schema, raw)})`);
        } else {
          this.report('prefix', `${schemaProblem(schema, raw)}: not carried over, the default "capi" applies`);
        }
      }
    }
    this.comment(['prefix'], 'OpenStack resources are named <prefix>-<environment>-<thing>; the old resources are not adopted.');
    this.simple('availability_zone', ['availabilityZone'], asString, z.string().min(1));
  }

  private network(): void {
    const name = this.read('external', asString);
    const id = this.read('external_id', asString);
    if (name && id) {
      this.set(['network', 'externalNetworkId'], id, 'external_id');
      this.report('external', `both external ("${name}") and external_id are set; the environment file takes one of them: the id is used`);
    } else if (name) {
      this.set(['network', 'externalNetworkName'], name, 'external');
    } else if (id) {
      this.set(['network', 'externalNetworkId'], id, 'external_id');
    }
    // "" meant auto-detect in the old tool: same as leaving the field out.
    for (const [key, v] of [['external', name], ['external_id', id]] as const) {
      if (v === '') this.sameAsDefault.set(key, name || id ? 'empty: the other of external / external_id names the network' : 'empty: the external network is auto-detected (the default)');
    }
    this.simple('mgmt_cidr', ['network', 'managementCidr'], asString, networkSchema.shape.managementCidr);
    const range = this.read('mgmt_ip_range', asStringMap);
    if (range) {
      for (const [k, field] of [
        ['start', 'allocationPoolStart'],
        ['end', 'allocationPoolEnd'],
      ] as const) {
        if (range[k] === undefined) continue;
        const problem = schemaProblem(networkSchema.shape[field], range[k]);
        if (problem) this.report('mgmt_ip_range', `${k}: ${problem}: not carried over, the default applies`);
        else this.set(['network', field], range[k], 'mgmt_ip_range', `old mgmt_ip_range.${k}`);
      }
      const extra = Object.keys(range).filter((k) => k !== 'start' && k !== 'end');
      if (extra.length > 0) this.report('mgmt_ip_range', `keys ${extra.join(', ')} are not part of the range (start, end): not carried over`);
    }
    this.simple('dns_nameservers', ['network', 'dnsNameservers'], asStringList, networkSchema.shape.dnsNameservers);
    this.simple('kind_mtu', ['network', 'mtu'], asInt, networkSchema.shape.mtu);
  }

  private management(): void {
    this.simple('kind_flavor', ['management', 'flavor'], asString, managementSchema.shape.flavor);
    this.simple('image', ['management', 'image'], asString, managementSchema.shape.image);
    this.simple('ssh_username', ['management', 'sshUsername'], asString, managementSchema.shape.sshUsername);

    const list = this.read('restrict_mgmt_server', asStringList);
    let carried: string[] = [];
    if (list) {
      if (list.includes(OPEN)) {
        this.report(
          'restrict_mgmt_server',
          `${OPEN} (everyone, the old default) is not carried over: the management VM is closed unless CIDRs are listed; put the networks of your operators and CI runners into management.apiAllowedCidrs`,
        );
      }
      for (const c of list.filter((c) => c !== OPEN)) {
        const problem = schemaProblem(cidr(), c);
        if (problem) this.report('restrict_mgmt_server', `${problem}: not carried over`);
        else carried.push(c);
      }
      carried = [...new Set(carried)];
    }
    this.set(['management', 'apiAllowedCidrs'], carried, list ? 'restrict_mgmt_server' : undefined, false);
    this.set(['management', 'sshAllowedCidrs'], [...carried], list ? 'restrict_mgmt_server' : undefined, false);
    if (list) {
      this.comment(
        ['management', 'apiAllowedCidrs'],
        [
          'From restrict_mgmt_server. The old tool let these networks reach the management VM, and operators',
          'worked on it over SSH. Here Terraform and kubectl reach the management cluster through its',
          'Kubernetes API (6443), so the same networks are allowed there, and keep SSH (break-glass only; it',
          'needs management.sshPublicKey, no key pair is generated any more).',
          ...(carried.length === 0 ? ['Empty = closed: add the networks Terraform and kubectl run from before deploying clusters.'] : []),
        ].join('\n'),
      );
    } else {
      this.comment(
        ['management', 'apiAllowedCidrs'],
        'Closed by default (the old default 0.0.0.0/0 is not carried over). Add the networks Terraform and kubectl\nrun from: the workload stacks reach the management cluster through this API (6443).',
      );
    }
  }

  private proxy(): void {
    this.simple('http_proxy', ['proxy', 'httpProxy'], asString, proxySchema.shape.httpProxy);
    const noProxy = this.read('no_proxy', (v) =>
      typeof v === 'string'
        ? { ok: true as const, value: v.split(',').map((s) => s.trim()).filter(Boolean) }
        : asStringList(v),
    proxySchema.shape.noProxy);
    if (noProxy) {
      this.set(['proxy', 'noProxy'], noProxy, 'no_proxy');
      this.comment(['proxy', 'noProxy'], 'Cluster CIDRs, localhost and the metadata address are added automatically.');
    }
  }

  private registryFiles(): void {
    const key = 'containerd_registry_files';
    const raw = this.take(key);
    if (raw === undefined) return;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      this.report(key, `expected a map with hosts and certs, found ${Array.isArray(raw) ? 'a list' : typeof raw}: not carried over`);
      return;
    }
    const obj = raw as Obj;
    for (const k of Object.keys(obj).filter((k) => k !== 'hosts' && k !== 'certs')) this.report(key, `unknown attribute ${k}: not carried over`);
    // The old variable defaulted hosts to the docker.io file of its repository.
    const hosts = obj.hosts === undefined ? ok(['./files/containerd/docker.io']) : asStringList(obj.hosts);
    const certs = obj.certs === undefined ? ok<string[]>([]) : asStringList(obj.certs);
    const mirrors = new Map<string, { registry: string; endpoints: string[]; skipVerify?: boolean }>();
    if (!hosts.ok) this.report(key, `hosts: ${hosts.reason}: not carried over`);
    const hostList = hosts.ok ? hosts.value : [];
    for (const file of hostList) {
      const found = this.options.fileBases.map((b) => path.resolve(b, file)).find((p) => fs.existsSync(p) && fs.statSync(p).isFile());
      if (!found) {
        this.report(
          key,
          `hosts file ${file} not found (looked in ${this.options.fileBases.join(', ')}): convert it to registryMirrors by hand (registry, endpoints)`,
        );
        continue;
      }
      const parsed = parseHostsFile(path.basename(found), fs.readFileSync(found, 'utf8'));
      for (const p of parsed.problems) this.report(key, `hosts file ${file}: ${p}: convert by hand`);
      if (parsed.endpoints.length === 0) continue;
      const mirror = mirrors.get(parsed.registry) ?? { registry: parsed.registry, endpoints: [] };
      mirror.endpoints.push(...parsed.endpoints.filter((e) => !mirror.endpoints.includes(e)));
      if (parsed.skipVerify) mirror.skipVerify = true;
      const problem = schemaProblem(registryMirrorSchema, mirror);
      if (problem) {
        this.report(key, `hosts file ${file}: ${problem}: not carried over`);
        continue;
      }
      mirrors.set(parsed.registry, mirror);
    }
    if (certs.ok && certs.value.length > 0) {
      this.report(
        key,
        `certs ${certs.value.join(', ')}: not carried over; set registryMirrors[].caCertificateFile to the CA of the mirror it belongs to (client certificates are not supported)`,
      );
    } else if (!certs.ok) {
      this.report(key, `certs: ${certs.reason}: not carried over`);
    }
    if (mirrors.size > 0) {
      this.set(['registryMirrors'], [...mirrors.values()], key, false);
      this.comment(['registryMirrors'], `From containerd_registry_files (the containerd hosts files ${hostList.join(', ')}).`);
    }
  }

  private versions(): void {
    const capi = this.read('clusterapi_version', asString);
    if (capi !== undefined) {
      const v = withV(capi.trim());
      const problem = isVersion(v)
        ? checkControllerVersions({ ...DEFAULT_CONTROLLER_VERSIONS, clusterApi: v }).find((p) => p.field === 'clusterApi')?.message
        : `expected a version like 1.12.10, found "${capi}"`;
      if (problem) {
        this.report('clusterapi_version', `${problem}: not carried over, the current default ${DEFAULT_CONTROLLER_VERSIONS.clusterApi} is used`);
      } else {
        this.set(['versions', 'clusterApi'], v, 'clusterapi_version');
        this.clusterApi = v;
      }
    }
    const capo = this.read('capi_openstack_version', asString);
    if (capo !== undefined) {
      const v = withV(capo.trim());
      const problem = isVersion(v)
        ? checkControllerVersions({ ...DEFAULT_CONTROLLER_VERSIONS, clusterApi: this.clusterApi, capo: v }).find((p) => p.field === 'capo')?.message
        : `expected a version like 0.14.2, found "${capo}"`;
      if (problem) {
        this.report('capi_openstack_version', `${problem}: not carried over, the current default ${DEFAULT_CONTROLLER_VERSIONS.capo} is used`);
      } else {
        this.set(['versions', 'capo'], v, 'capi_openstack_version');
      }
    }
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

    // Kubernetes version: outside the supported range → the current default, written out.
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

    // Control plane.
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

    // Workers: one node group.
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

    // Networks and API access.
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

    this.addons();
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
        this.report(key, 'needs cilium (it had no effect with calico in the old tool either): not carried over');
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

/** Drops undefined values and empty maps (a cluster entry stays even when empty: it means "all defaults"). */
function prune(obj: Obj, at: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) {
      delete obj[k];
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      prune(v as Obj, [...at, k]);
      const isClusterEntry = at.length === 1 && at[0] === 'clusters';
      if (Object.keys(v).length === 0 && !isClusterEntry && !(at.length === 0 && k === 'cloud')) delete obj[k];
    }
  }
}
