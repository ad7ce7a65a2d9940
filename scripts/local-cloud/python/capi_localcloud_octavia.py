"""Octavia provider "localcloud" for the local test cloud: no data plane.

Two halves, both found by octavia through the entry points in
capi_localcloud_octavia-1.0.dist-info on PYTHONPATH:

- LocalCloudProviderDriver (octavia.api.drivers) runs inside octavia-api. It
  accepts every request and does nothing. It does not implement
  create_vip_port, so octavia-api allocates the VIP itself with its network
  driver (allowed_address_pairs): a real neutron port "octavia-lb-<id>",
  device_owner "Octavia", on the requested subnet, in the load balancer's
  project.
- provider_agent (octavia.driver_agent.provider_agents) runs as a process of
  octavia-driver-agent. It polls octavia's database for load balancers of
  this provider in a PENDING_* state and reports the end state of the whole
  tree through octavia-lib's status API (the driver agent's status socket):
  PENDING_CREATE/PENDING_UPDATE -> ACTIVE, PENDING_DELETE -> DELETED (with
  every child). Reporting a load balancer DELETED makes the driver agent
  delete its VIP port and release the quota.

Polling the committed state (instead of acting inside the API call, which
runs before octavia-api commits) also means nothing stays PENDING_* when
octavia-api or the agent restarts in between: the next poll finishes it.
"""
import time

from oslo_config import cfg
from oslo_log import log as logging

from octavia_lib.api.drivers import driver_lib
from octavia_lib.api.drivers import exceptions as driver_exceptions
from octavia_lib.api.drivers import provider_base

from octavia.common import constants as consts
from octavia.db import api as db_api
from octavia.db import models
from octavia.db import repositories

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

PROVIDER = "localcloud"
POLL_SECONDS = 0.25
RETRY_SECONDS = 5
PENDING = (consts.PENDING_CREATE, consts.PENDING_UPDATE, consts.PENDING_DELETE)


def _accept(*args, **kwargs):
    """Every operation is accepted; provider_agent finishes it."""
    return None


class LocalCloudProviderDriver(provider_base.ProviderDriver):
    """Accepts everything; create_vip_port is left unimplemented on purpose
    (octavia-api then creates the VIP port itself, octavia_owned)."""

    def __init__(self):
        super().__init__()
        self.name = PROVIDER

    loadbalancer_create = staticmethod(_accept)
    loadbalancer_update = staticmethod(_accept)
    loadbalancer_delete = staticmethod(_accept)
    loadbalancer_failover = staticmethod(_accept)
    listener_create = staticmethod(_accept)
    listener_update = staticmethod(_accept)
    listener_delete = staticmethod(_accept)
    pool_create = staticmethod(_accept)
    pool_update = staticmethod(_accept)
    pool_delete = staticmethod(_accept)
    member_create = staticmethod(_accept)
    member_update = staticmethod(_accept)
    member_delete = staticmethod(_accept)
    member_batch_update = staticmethod(_accept)
    health_monitor_create = staticmethod(_accept)
    health_monitor_update = staticmethod(_accept)
    health_monitor_delete = staticmethod(_accept)
    l7policy_create = staticmethod(_accept)
    l7policy_update = staticmethod(_accept)
    l7policy_delete = staticmethod(_accept)
    l7rule_create = staticmethod(_accept)
    l7rule_update = staticmethod(_accept)
    l7rule_delete = staticmethod(_accept)


def _entry(obj, gone, operating):
    """The status record of one object, or None when nothing changes."""
    if gone or obj.provisioning_status == consts.PENDING_DELETE:
        return {"id": obj.id, "provisioning_status": consts.DELETED}
    rec = {"id": obj.id}
    if obj.provisioning_status in (consts.PENDING_CREATE, consts.PENDING_UPDATE):
        rec["provisioning_status"] = consts.ACTIVE
    if not obj.enabled:
        operating = consts.OFFLINE
    if operating != obj.operating_status:
        rec["operating_status"] = operating
    return rec if len(rec) > 1 else None


def lb_status(lb):
    """The status update that finishes whatever is pending in the tree of
    load balancer lb (an octavia data model)."""
    st = {k: [] for k in ("loadbalancers", "listeners", "pools", "members",
                          "healthmonitors", "l7policies", "l7rules")}

    def add(kind, obj, gone, operating=consts.ONLINE):
        rec = _entry(obj, gone, operating)
        if rec:
            st[kind].append(rec)
        return gone or obj.provisioning_status == consts.PENDING_DELETE

    lb_gone = add("loadbalancers", lb, False)
    for listener in lb.listeners or []:
        listener_gone = add("listeners", listener, lb_gone)
        for policy in listener.l7policies or []:
            policy_gone = add("l7policies", policy, listener_gone)
            for rule in policy.l7rules or []:
                add("l7rules", rule, policy_gone)
    for pool in lb.pools or []:
        pool_gone = add("pools", pool, lb_gone)
        hm = pool.health_monitor
        monitored = False
        if hm is not None:
            hm_gone = add("healthmonitors", hm, pool_gone)
            monitored = hm.enabled and not hm_gone
        for member in pool.members or []:
            # what the amphora driver reports without traffic: ONLINE when a
            # health monitor (which would pass) watches it, else NO_MONITOR
            add("members", member, pool_gone,
                consts.ONLINE if monitored else consts.NO_MONITOR)
    return {k: v for k, v in st.items() if v}


def _library(exit_event):
    while not exit_event.is_set():
        try:
            return driver_lib.DriverLibrary(
                status_socket=CONF.driver_agent.status_socket_path,
                stats_socket=CONF.driver_agent.stats_socket_path,
                get_socket=CONF.driver_agent.get_socket_path)
        except driver_exceptions.DriverAgentNotFound:
            LOG.warning("driver agent sockets not there yet, retrying")
            exit_event.wait(1)
    return None


def provider_agent(exit_event):
    lib = _library(exit_event)
    LOG.info("local cloud provider agent started (provider %s, polling every %ss)",
             PROVIDER, POLL_SECONDS)
    lb_repo = repositories.LoadBalancerRepository()
    retry_at = {}  # lb id -> time of the next attempt after a failure
    while not exit_event.is_set():
        session = db_api.get_session()
        try:
            ids = [row[0] for row in session.query(models.LoadBalancer.id).filter(
                models.LoadBalancer.provider == PROVIDER,
                models.LoadBalancer.provisioning_status.in_(PENDING))]
            for lb_id in ids:
                if retry_at.get(lb_id, 0) > time.monotonic():
                    continue
                lb = lb_repo.get(session, id=lb_id)
                if lb is None or lb.provisioning_status not in PENDING:
                    continue
                status = lb_status(lb)
                try:
                    lib.update_loadbalancer_status(status)
                    retry_at.pop(lb_id, None)
                    LOG.info("load balancer %s: %s -> %s", lb_id, lb.provisioning_status,
                             status["loadbalancers"][0].get("provisioning_status"))
                except driver_exceptions.UpdateStatusError as e:
                    retry_at[lb_id] = time.monotonic() + RETRY_SECONDS
                    LOG.error("status update of load balancer %s failed (retry in %ss): "
                              "%s %s: %s", lb_id, RETRY_SECONDS, e.status_object,
                              e.status_object_id, e.fault_string)
        except Exception:
            LOG.exception("polling octavia's database failed")
            exit_event.wait(RETRY_SECONDS)
        finally:
            session.close()
        exit_event.wait(POLL_SECONDS)
    LOG.info("local cloud provider agent stopped")
