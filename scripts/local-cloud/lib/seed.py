#!/usr/bin/python3
"""Idempotent set-up of the local cloud through its own APIs.

  seed.py catalog   service project, roles, service users, endpoints
  seed.py e2e       the capi-e2e tenant: project, user, roles, quotas,
                    external network "public", flavors and images
                    (LC_E2E_NAME names another tenant: an e2e lane's, scripts/e2e/lane)
  seed.py volume-probe   waits until Cinder can place a volume (the scheduler
                    learns of the volume backend some time after both run)

LC_CINDER=1 / LC_OCTAVIA=1 / LC_SWIFT=1 add the optional services' endpoints (and take
them out again when 0).

Passwords come from the environment (LC_ADMIN_PASS, LC_SERVICE_PASS,
LC_E2E_PASS), never from the command line. Every step looks before it
creates, so running it again changes nothing.
"""
import os
import sys
import time

import openstack


# The public network's range. Private on purpose: the management VM's stand-in (scripts/local-vm)
# takes its floating IP on a docker network of this machine, and a documentation range such as
# 203.0.113.0/24 can be where this machine's egress proxy lives (it is here: a route to that
# range on a local bridge cut off the Go module proxy and the package mirrors).
PUBLIC_PREFIX = "172.30.251"
PUBLIC_CIDR = PUBLIC_PREFIX + ".0/24"

AUTH_URL = "http://127.0.0.1:5000/v3"
REGION = "RegionOne"
# the e2e tenant's project and user; each e2e lane has one of its own (scripts/e2e/lane)
E2E = os.environ.get("LC_E2E_NAME", "capi-e2e")

# The address the APIs listen on (lib/common.sh LC_ADDRESS): the catalog names it, so what follows
# the catalog (OCCM and Cinder CSI on the node stand-ins too) reaches them there. Swift stays on
# loopback (only the host's tests use it).
API = "http://" + os.environ.get("LC_ADDRESS", "127.0.0.1")
CATALOG = [
    # service name, type, endpoint URL
    ("keystone", "identity", API + ":5000/v3/"),
    ("neutron", "network", API + ":9696"),
    ("nova", "compute", API + ":8774/v2.1"),
    ("placement", "placement", API + ":8778"),
    ("glance", "image", API + ":9292"),
]
CINDER_CATALOG = [
    ("cinderv3", "volumev3", API + ":8776/v3/%(project_id)s"),
    ("cinder", "block-storage", API + ":8776/v3/%(project_id)s"),
]
OCTAVIA_CATALOG = [
    ("octavia", "load-balancer", API + ":9876"),
]
SWIFT_CATALOG = [
    ("swift", "object-store", "http://127.0.0.1:8080/v1/AUTH_%(project_id)s"),
]
SERVICE_USERS = ("neutron", "nova", "placement", "glance", "cinder", "octavia", "swift")
# octavia's default policy (octavia/policies/base.py) lets nobody but admins
# in without one of its own roles, legacy defaults or not: "member" is not
# enough. load-balancer_member reads and writes the own project's load
# balancers (what public clouds give their customers); it includes everything
# load-balancer_observer (read only) allows.
OCTAVIA_ROLES = ("load-balancer_member",)

FLAVORS = [
    # name, vcpus, ram MiB, disk GB
    ("SCS-2V-4", 2, 4096, 0),
    ("SCS-2V-4-20s", 2, 4096, 20),
    ("SCS-4V-8", 4, 8192, 0),
    ("SCS-4V-8-20s", 4, 8192, 20),
    ("m1.tiny", 1, 512, 1),
]
IMAGES = ["Ubuntu 24.04", "ubuntu-capi-image-v1.33.5", "ubuntu-capi-image-v1.35.9", "ubuntu-capi-image-v1.35.10", "ubuntu-capi-image-v1.36.5", "ubuntu-capi-image-v1.37.2"]


def say(msg):
    print("[seed %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def admin():
    return openstack.connect(
        auth_url=AUTH_URL, username="admin", password=os.environ["LC_ADMIN_PASS"],
        project_name="admin", user_domain_name="Default",
        project_domain_name="Default", region_name=REGION, interface="public",
        # Keystone at the auth URL (loopback, always), not at the catalog's identity endpoint: the
        # catalog may still name an address the cloud no longer listens on (LOCAL_CLOUD_ADDRESS changed)
        identity_endpoint_override=AUTH_URL)


def password_works(user, project, password):
    try:
        openstack.connect(
            auth_url=AUTH_URL, username=user, password=password,
            project_name=project, user_domain_name="Default",
            project_domain_name="Default", region_name=REGION).authorize()
        return True
    except openstack.exceptions.SDKException:
        return False


def first(items):
    """First item of a filtered listing, or None. Listing by name instead of
    find_*() keeps keystone from logging a 404 traceback per lookup."""
    return next(iter(items), None)


def ensure_role(idc, name):
    return first(idc.roles(name=name)) or idc.create_role(name=name)


def catalog(conn):
    idc = conn.identity
    service_project = first(idc.projects(name="service", domain_id="default")) or \
        idc.create_project(name="service", domain_id="default",
                           description="local cloud service users")
    admin_role = ensure_role(idc, "admin")
    roles = [admin_role] + [ensure_role(idc, r) for r in ("member", "reader", "service")]
    for name in SERVICE_USERS:
        user = first(idc.users(name=name, domain_id="default"))
        if user is None:
            user = idc.create_user(name=name, password=os.environ["LC_SERVICE_PASS"],
                                   default_project_id=service_project.id,
                                   domain_id="default")
        for role in (admin_role, roles[-1]):  # admin + service
            idc.assign_project_role_to_user(service_project, user, role)
    entries = list(CATALOG)
    for env, optional in (("LC_CINDER", CINDER_CATALOG), ("LC_OCTAVIA", OCTAVIA_CATALOG),
                          ("LC_SWIFT", SWIFT_CATALOG)):
        if os.environ.get(env) == "1":
            entries += optional
            continue
        for name, _, _ in optional:  # no endpoint that nothing answers on
            svc = first(idc.services(name=name))
            if svc is not None:
                for ep in idc.endpoints(service_id=svc.id):
                    idc.delete_endpoint(ep)
                idc.delete_service(svc)
                say("removed %s from the catalog" % name)
    for name, stype, url in entries:
        svc = first(idc.services(name=name)) or idc.create_service(name=name, type=stype)
        have = {e.interface: e for e in idc.endpoints(service_id=svc.id)}
        for iface in ("public", "internal", "admin"):
            if iface not in have:
                idc.create_endpoint(service_id=svc.id, interface=iface, url=url,
                                    region_id=REGION)
            elif have[iface].url != url:  # the address changed (LOCAL_CLOUD_ADDRESS)
                idc.update_endpoint(have[iface], url=url)
                say("%s %s endpoint now %s" % (name, iface, url))
    say("keystone catalog ready")


def e2e(conn):
    idc = conn.identity
    project = first(idc.projects(name=E2E, domain_id="default")) or idc.create_project(
        name=E2E, domain_id="default", description="capi-openstack-cdktf e2e tests")
    user = first(idc.users(name=E2E, domain_id="default"))
    if user is None:
        user = idc.create_user(name=E2E, password=os.environ["LC_E2E_PASS"],
                               default_project_id=project.id, domain_id="default")
    elif not password_works(E2E, E2E, os.environ["LC_E2E_PASS"]):
        # the stored password is authoritative (a password change revokes
        # the user's tokens, so only when it no longer matches)
        idc.update_user(user, password=os.environ["LC_E2E_PASS"])
    # member: own networks, routers, floating IPs, servers, volumes and
    # application credentials (legacy policy defaults); reader for completeness
    rnames = ["member", "reader"]
    if os.environ.get("LC_OCTAVIA") == "1":
        rnames += OCTAVIA_ROLES
    for rname in rnames:
        idc.assign_project_role_to_user(project, user, ensure_role(idc, rname))
    say("project/user %s ready (roles %s)" % (E2E, ", ".join(rnames)))

    # quotas: room for a management VM plus a few workload-sized servers
    conn.set_compute_quotas(project.id, instances=20, cores=80, ram=327680,
                            key_pairs=50, server_groups=20, server_group_members=20)
    conn.set_network_quotas(project.id, network=20, subnet=20, port=200, router=10,
                            floatingip=50, security_group=50,
                            security_group_rule=500)
    if os.environ.get("LC_CINDER") == "1":
        conn.set_volume_quotas(project.id, volumes=40, gigabytes=4000, snapshots=40)
    if os.environ.get("LC_OCTAVIA") == "1":
        # one API load balancer per cluster; octavia counts and enforces these
        conn.load_balancer.update_quota(project.id, load_balancers=10, listeners=50,
                                        pools=50, members=200, health_monitors=50)
    say("quotas set")

    net = conn.network.find_network("public")
    if net is None:
        net = conn.network.create_network(
            name="public", is_router_external=True, is_shared=False,
            provider_network_type="flat", provider_physical_network="public")
    if not conn.network.find_subnet("public-subnet", network_id=net.id):
        conn.network.create_subnet(
            name="public-subnet", network_id=net.id, ip_version=4,
            cidr=PUBLIC_CIDR, gateway_ip=PUBLIC_PREFIX + ".1", is_dhcp_enabled=False,
            allocation_pools=[{"start": PUBLIC_PREFIX + ".10", "end": PUBLIC_PREFIX + ".250"}])
    say(f"external network public ({PUBLIC_CIDR}) ready")

    for name, vcpus, ram, disk in FLAVORS:
        if conn.compute.find_flavor(name) is None:
            conn.compute.create_flavor(name=name, vcpus=vcpus, ram=ram, disk=disk,
                                       is_public=True)
    say("flavors ready: %s" % ", ".join(f[0] for f in FLAVORS))

    # a 64 KiB raw disk: an empty MBR partition table is enough, the fake
    # virt driver never reads it
    disk = bytearray(64 * 1024)
    disk[510:512] = b"\x55\xaa"
    for name in IMAGES:
        # the public images only: the admin lists every project's images, and a suite may upload a
        # private one of the same name (management-first-boot does) while another start seeds
        public = list(conn.image.images(name=name, visibility="public"))
        for stale in [i for i in public if i.status != "active"]:
            conn.image.delete_image(stale)
        if not any(i.status == "active" for i in public):
            conn.image.create_image(
                name=name, data=bytes(disk), disk_format="raw",
                container_format="bare", visibility="public",
                os_distro="ubuntu", wait=True, allow_duplicates=True)
    say("images ready: %s" % ", ".join(IMAGES))


def volume_probe(conn, timeout_s=240):
    """Creates 1 GB volumes until one becomes available (each one that went to
    error, typically NoValidBackend before the scheduler has the backend's
    capacity, is deleted and tried again); deletes the probe. Fails after
    timeout_s."""
    t0 = time.time()
    tries = 0
    while True:
        tries += 1
        vol = conn.block_storage.create_volume(name="local-cloud-volume-probe", size=1)
        try:
            vol = conn.block_storage.wait_for_status(vol, status="available", failures=["error"], interval=1, wait=60)
            say("cinder placed a volume after %d s (%d %s)" % (time.time() - t0, tries, "try" if tries == 1 else "tries"))
            return
        except openstack.exceptions.SDKException as e:
            if time.time() - t0 > timeout_s:
                sys.exit("cinder could not place a volume within %d s (%d tries): %s" % (timeout_s, tries, e))
            time.sleep(3)
        finally:
            conn.block_storage.delete_volume(vol, ignore_missing=True)
            conn.block_storage.wait_for_delete(vol, interval=1, wait=60)


def main():
    steps = {"catalog": catalog, "e2e": e2e, "volume-probe": volume_probe}
    if len(sys.argv) != 2 or sys.argv[1] not in steps:
        sys.exit("usage: seed.py catalog|e2e|volume-probe")
    conn = admin()
    steps[sys.argv[1]](conn)


if __name__ == "__main__":
    main()
