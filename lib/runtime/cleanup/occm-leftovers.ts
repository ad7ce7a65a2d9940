/** What OCCM made for the cluster's Services: Octavia load balancers, their floating IPs, security groups. */
import { CleanupRun } from './cleanup-run';
import { occmFloatingIpVerdict, occmLoadBalancerVerdict, occmSecurityGroupVerdict } from './matchers';
import { stepLoadBalancer, stepSimpleDelete, tracked } from './resource-steps';

const LOAD_BALANCER_TYPES = ['load-balancer'];

/** 2. OCCM's load balancers (cascade); returns the VIP ports of those deleted (dry run: to be deleted). */
export async function removeLoadBalancers(run: CleanupRun): Promise<Set<string>> {
  const deletedVipPorts = new Set<string>();
  const lbApi = run.service(LOAD_BALANCER_TYPES, 'load balancers');
  if (!lbApi) return deletedVipPorts;
  const octavia = `${lbApi.replace(/\/v2(\.0)?$/, '')}/v2/lbaas`;
  const all = (await run.session.listAll<any>(`${octavia}/loadbalancers?project_id=${encodeURIComponent(run.project)}`, 'loadbalancers')).filter(run.owned);
  const mine = run.judge('load balancer', all, (lb) => occmLoadBalancerVerdict(lb, run.options.occmClusterName), (lb) => lb.name ?? '');
  const gone = await run.remove(
    'load balancer',
    'load balancers',
    mine.map((lb) => tracked('load balancer', lb.id, lb.name, () => stepLoadBalancer(run.session, `${octavia}/loadbalancers/${lb.id}`))),
  );
  for (const lb of mine) if (gone.some((g) => g.id === lb.id) && lb.vip_port_id) deletedVipPorts.add(lb.vip_port_id);
  return deletedVipPorts;
}

/** 3. + 4. OCCM's floating IPs (free, or on a deleted load balancer's address) and security groups. */
export async function removeFloatingIpsAndGroups(run: CleanupRun, deletedVipPorts: ReadonlySet<string>): Promise<void> {
  const neutron = run.neutron;
  if (!neutron) return;
  const cluster = run.options.occmClusterName;
  const fips = (await run.session.listAll<any>(`${neutron}/floatingips?project_id=${encodeURIComponent(run.project)}`, 'floatingips')).filter(run.owned);
  const fipLabel = (f: any): string => `${f.floating_ip_address}, ${f.description}`;
  const mine = run.judge('floating IP', fips, (f) => occmFloatingIpVerdict(f, cluster), fipLabel).filter((f) => {
    if (!f.port_id || deletedVipPorts.has(f.port_id)) return true;
    run.keep('floating IP', f.id, fipLabel(f), `still associated with port ${f.port_id}, which is not the address of a deleted load balancer`);
    return false;
  });
  await run.remove(
    'floating IP',
    'floating IPs',
    mine.map((f) => tracked('floating IP', f.id, f.floating_ip_address, () => stepSimpleDelete(run.session, `${neutron}/floatingips/${f.id}`))),
  );

  const groups = (await run.session.listAll<any>(`${neutron}/security-groups?project_id=${encodeURIComponent(run.project)}`, 'security_groups')).filter(run.owned);
  const mineGroups = run.judge('security group', groups, (g) => occmSecurityGroupVerdict(g, cluster), (g) => g.name ?? '');
  await run.remove(
    'security group',
    'security groups',
    mineGroups.map((g) => tracked('security group', g.id, g.name, () => stepSimpleDelete(run.session, `${neutron}/security-groups/${g.id}`))),
  );
}
