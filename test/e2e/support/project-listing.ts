/**
 * Everything a project holds that a cluster could leave behind, as sorted "<kind> <name> <id>"
 * lines, so that a listing before a deploy and one after its destroy compare with one toEqual.
 */
import { OpenStackSession } from './workload-openstack';

export type ProjectListing = Record<string, string[]>;

const line = (o: any, name = o.name ?? o.description ?? '') => `${name} ${o.id}`;

/** Servers, ports, networks, subnets, routers, security groups, floating IPs, load balancers, volumes, server groups, application credentials. */
export async function projectListing(os: OpenStackSession): Promise<ProjectListing> {
  const has = (type: string) => {
    try {
      os.endpoint(type);
      return true;
    } catch {
      return false;
    }
  };
  const p = `project_id=${os.projectId}`;
  const listing: ProjectListing = {
    servers: (await os.get('compute', '/servers/detail?all_tenants=0')).servers.map((s: any) => line(s)),
    ports: (await os.get('network', `/v2.0/ports?${p}`)).ports.map((x: any) => `${x.device_owner || '-'} ${line(x)}`),
    networks: (await os.get('network', `/v2.0/networks?${p}`)).networks.map((x: any) => line(x)),
    subnets: (await os.get('network', `/v2.0/subnets?${p}`)).subnets.map((x: any) => `${x.cidr} ${line(x)}`),
    routers: (await os.get('network', `/v2.0/routers?${p}`)).routers.map((x: any) => line(x)),
    securityGroups: (await os.get('network', `/v2.0/security-groups?${p}`)).security_groups.map((x: any) => line(x)),
    floatingIps: (await os.get('network', `/v2.0/floatingips?${p}`)).floatingips.map((x: any) => `${x.floating_ip_address} ${line(x, x.description)}`),
    serverGroups: (await os.serverGroups()).map((x) => line(x)),
    applicationCredentials: (await os.get('identity', `/v3/users/${os.userId}/application_credentials`)).application_credentials.map((x: any) => line(x)),
    loadBalancers: has('load-balancer') ? (await os.get('load-balancer', `/v2/lbaas/loadbalancers?${p}`)).loadbalancers.map((x: any) => line(x)) : ['(no Octavia)'],
    volumes: has('volumev3') ? (await os.get('volumev3', '/volumes/detail')).volumes.map((x: any) => line(x)) : ['(no Cinder)'],
  };
  for (const k of Object.keys(listing)) listing[k].sort();
  return listing;
}
