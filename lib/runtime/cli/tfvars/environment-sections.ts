/** The environment-level settings of the old file: cloud, prefix, network, management VM, proxy, registries, versions. */
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { environmentSchema, managementSchema, networkSchema, proxySchema, registryMirrorSchema } from '../../../config/environment-schema';
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile } from '../../../config/bounded-file';
import { cidr } from '../../../config/fields';
import { checkControllerVersions, DEFAULT_CONTROLLER_VERSIONS, isVersion } from '../../../config/versions';
import { CliError } from '../errors';
import { ConversionRecord, Obj } from './conversion-record';
import { parseHostsFile } from './registry-hosts';
import { asInt, asString, asStringList, asStringMap, ok, schemaProblem, withV } from './values';

/** Anywhere: the old tool's "no restriction". */
const OPEN = '0.0.0.0/0';

export abstract class EnvironmentSections extends ConversionRecord {
  protected cloudAndPrefix(): void {
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

  protected network(): void {
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

  protected management(): void {
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
    if (carried.length === 0) {
      // A closed API cannot be waited for from the deploying machine: synthesis refuses that pair.
      this.set(['management', 'waitForReady'], false, undefined, 'remove once apiAllowedCidrs lists the networks cdktf deploy runs from');
    }
  }

  protected proxy(): void {
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

  protected registryFiles(): void {
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
      // only files inside the folders searched: a path like ../../../../etc/passwd was read and its lines echoed
      const inside = this.options.fileBases.map((b) => [b, path.resolve(b, file)]).filter(([b, p]) => !path.relative(b, p).startsWith('..') && !path.isAbsolute(path.relative(b, p)));
      if (inside.length === 0) {
        this.report(key, `hosts file ${file} is outside the folders searched (${this.options.fileBases.join(', ')}): not read; copy it next to the tfvars file`);
        continue;
      }
      const found = inside.map(([, p]) => p).find((p) => fs.existsSync(p) && fs.statSync(p).isFile());
      if (!found) {
        this.report(
          key,
          `hosts file ${file} not found (looked in ${this.options.fileBases.join(', ')}): convert it to registryMirrors by hand (registry, endpoints)`,
        );
        continue;
      }
      const read = readBoundedFile(found, 'containerd hosts file', MAX_SETTINGS_FILE_BYTES);
      if ('problem' in read) {
        this.report(key, `hosts file ${file}: ${read.problem}: convert it by hand`);
        continue;
      }
      const parsed = parseHostsFile(path.basename(found), read.bytes.toString('utf8'));
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

  protected versions(): void {
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
}
