import { apiFloatingIpDescription } from '../../config/owned-names';
import { CSI_CLUSTER_METADATA_KEY, Verdict } from './matchers';
import { CleanupOptions, CleanupResult, CleanupError, ResourceKind, ResourceRef } from './leftovers-types';
import { Tracked, converge, ref, waitForServersGone } from './resource-steps';
import { describeAuth, OpenStackSession } from '../openstack-session';

const NETWORK_TYPES = ['network'];

/**
 * One cleanup run: the logged-in session, the deadline, and the account of what was deleted, kept
 * and failed, shared by the steps for each service.
 */
export class CleanupRun {
  public readonly started = Date.now();
  public readonly deadline: number;
  public readonly poll: number;
  public readonly csiName: string;
  /** Neutron's v2.0 API, when the catalog has it. */
  public readonly neutron?: string;
  private readonly deleted: ResourceRef[] = [];
  private readonly kept: (ResourceRef & { reason: string })[] = [];
  private readonly failures: string[] = [];
  private readonly skippedServices: string[] = [];

  public static async start(options: CleanupOptions): Promise<CleanupRun> {
    return new CleanupRun(options, await OpenStackSession.login(options));
  }

  private constructor(
    public readonly options: CleanupOptions,
    public readonly session: OpenStackSession,
  ) {
    this.deadline = this.started + options.timeoutMs;
    this.poll = options.pollIntervalMs ?? 5000;
    this.csiName = options.csiClusterName ?? options.occmClusterName;
    this.log(
      `cluster "${options.occmClusterName}"${this.csiName !== options.occmClusterName ? ` (Cinder CSI: "${this.csiName}")` : ''}, project ${this.project} as ${describeAuth(options.auth)}, ` +
        `interface ${session.interfaceName}${options.region ? `, region ${options.region}` : ''}, timeout ${Math.round(options.timeoutMs / 1000)} s${options.dryRun ? ', DRY RUN: nothing is deleted' : ''}`,
    );
    const network = this.service(NETWORK_TYPES, 'floating IPs and security groups');
    this.neutron = network ? `${network.replace(/\/v2\.0$/, '')}/v2.0` : undefined;
  }

  public get project(): string {
    return this.session.projectId;
  }

  public log(line: string): void {
    this.options.log(`cleanup: ${line}`);
  }

  /** The project's own resources only. */
  public readonly owned = (item: { project_id?: string; tenant_id?: string }): boolean => (item.project_id ?? item.tenant_id) === this.project;

  /** The endpoint of a service, or undefined (said once) when the catalog has none. */
  public service(types: readonly string[], what: string): string | undefined {
    const found = this.session.endpoint(types);
    if (!found) {
      this.skippedServices.push(types[0]);
      this.log(`${what}: no ${types.join(' / ')} endpoint (${this.session.interfaceName}${this.options.region ? `, ${this.options.region}` : ''}) in the catalog: skipped`);
    }
    return found?.url;
  }

  /**
   * 0. Whether another cluster of the project has this cluster's name. Names join prefix,
   * environment and cluster with `-`, so another environment's cluster can carry the same name
   * (prefix `a` + environment `b-c` and prefix `a-b` + `c`), and OCCM and Cinder CSI mark both
   * clusters' resources alike. Each workload stack keeps one API floating IP described
   * `<name> Kubernetes API` until after this cleanup: a second one is such a twin. Then nothing
   * is deleted (the destroy goes on, the leftovers are named for a person to sort out).
   */
  public async hasNameTwin(): Promise<boolean> {
    if (!this.neutron) return false;
    const description = apiFloatingIpDescription(this.options.occmClusterName);
    const fips = (await this.session.listAll<any>(`${this.neutron}/floatingips?project_id=${encodeURIComponent(this.project)}`, 'floatingips')).filter(
      (f) => this.owned(f) && f.description === description,
    );
    if (fips.length < 2) return false;
    for (const f of fips) {
      this.keep('floating IP', f.id, `${f.floating_ip_address}, ${description}`, `another cluster of the project is named "${this.options.occmClusterName}" too`);
    }
    this.log(
      `NOTHING DELETED: ${fips.length} floating IPs are described "${description}", so another environment has a cluster named "${this.options.occmClusterName}" in this project ` +
        `and OCCM and Cinder CSI mark its load balancers and volumes exactly like this one's; delete this cluster's leftovers by hand ` +
        `(load balancers kube_service_${this.options.occmClusterName}_…, volumes with metadata ${CSI_CLUSTER_METADATA_KEY}=${this.csiName}) after checking whose they are`,
    );
    return true;
  }

  /** 1. Nothing inside the cluster may still run. */
  public async waitForMachines(): Promise<void> {
    const name = this.options.machineNetworkName;
    if (!name) return;
    if (!this.neutron) throw new CleanupError(`cannot check network ${name} for servers: no network endpoint in the catalog`);
    await waitForServersGone(this.session, this.neutron, name, { deadline: this.deadline, poll: this.poll, log: (l) => this.log(l), dryRun: this.options.dryRun === true, owned: this.owned });
  }

  /** Deletes the items (a dry run only lists them); returns what is gone. */
  public async remove(kind: ResourceKind, plural: string, items: Tracked[]): Promise<ResourceRef[]> {
    if (items.length === 0) {
      this.log(`${plural}: none of the cluster's`);
      return [];
    }
    this.log(`${plural}: ${this.options.dryRun ? 'would delete' : 'deleting'} ${items.length}: ${items.map((i) => `${i.id} (${i.label})`).join(', ')}`);
    if (this.options.dryRun) {
      this.deleted.push(...items.map(ref));
      return items.map(ref);
    }
    const result = await converge(items, { deadline: this.deadline, poll: this.poll, log: (l) => this.log(`${plural}: ${l}`), started: this.started });
    this.deleted.push(...result.gone.map(ref));
    this.failures.push(...result.failed.map((f) => `${kind} ${f.item.id} (${f.item.label}) ${f.why}`));
    if (result.gone.length > 0) this.log(`${plural}: deleted ${result.gone.length}`);
    return result.gone.map(ref);
  }

  public keep(kind: ResourceKind, id: string, label: string, reason: string): void {
    this.kept.push({ kind, id, label, reason });
    this.log(`${kind} ${id} (${label}) kept: ${reason}`);
  }

  /** The items that are provably the cluster's; look-alikes are recorded as kept, with why. */
  public judge<T extends { id: string }>(kind: ResourceKind, items: T[], verdict: (item: T) => Verdict, label: (item: T) => string): T[] {
    return items.filter((item) => {
      const v = verdict(item);
      if (!v.match && v.keptBecause) this.keep(kind, item.id, label(item), v.keptBecause);
      return v.match;
    });
  }

  /** Throws when anything could not be deleted; else the summary line and the result. */
  public finish(): CleanupResult {
    const seconds = Math.round((Date.now() - this.started) / 1000);
    const failures = this.failures;
    if (failures.length > 0) {
      const shown = failures.slice(0, 3).join('; ');
      throw new CleanupError(`${failures.length} of the cluster's resources could not be deleted within ${seconds} s: ${shown}${failures.length > 3 ? `; and ${failures.length - 3} more (see above)` : ''}`);
    }
    const count = (kind: ResourceKind): number => this.deleted.filter((d) => d.kind === kind).length;
    const dry = this.options.dryRun;
    this.log(
      `${dry ? 'dry run done' : 'done'} in ${seconds} s: ${dry ? 'would delete' : 'deleted'} ${count('load balancer')} load balancer(s), ${count('floating IP')} floating IP(s), ` +
        `${count('security group')} security group(s), ${count('volume snapshot')} snapshot(s), ${count('volume')} volume(s)` +
        `${this.kept.length > 0 ? `; kept ${this.kept.length} that are not provably the cluster's (see above)` : ''}`,
    );
    return { projectId: this.project, deleted: this.deleted, kept: this.kept, skippedServices: this.skippedServices, seconds };
  }
}
