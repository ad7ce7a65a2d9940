#!/usr/bin/python3
"""Prints what the project of a clouds.yaml entry holds, as JSON: a sorted list of "<kind> <id>
<name>" for servers, volumes, networks, subnets, routers, ports, floating IPs, security groups,
key pairs and the user's application credentials. scripts/bench/deploy.js compares it before and
after each destroy (leftovers). Usage: project-listing.py <cloud> (OS_CLIENT_CONFIG_FILE says which
clouds.yaml)."""
import json
import sys

import openstack


def main():
    conn = openstack.connect(cloud=sys.argv[1])
    project = conn.current_project_id
    rows = []

    def add(kind, items):
        rows.extend(f"{kind} {i.id} {i.name or ''}" for i in items)

    add("server", conn.compute.servers())
    add("keypair", conn.compute.keypairs())
    if conn.has_service("block-storage"):
        add("volume", conn.block_storage.volumes())
    add("network", conn.network.networks(project_id=project))
    add("subnet", conn.network.subnets(project_id=project))
    add("router", conn.network.routers(project_id=project))
    add("port", conn.network.ports(project_id=project))
    add("floating-ip", conn.network.ips(project_id=project))
    add("security-group", conn.network.security_groups(project_id=project))
    add("application-credential", conn.identity.application_credentials(user=conn.current_user_id))
    print(json.dumps(sorted(rows), indent=1))


if __name__ == "__main__":
    main()
