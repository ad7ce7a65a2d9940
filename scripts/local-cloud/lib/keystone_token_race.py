#!/usr/bin/python3
"""Does keystone hand a request another request's token? (keystone-token-race)

  keystone_token_race.py KEYSTONE_URL SECONDS

Logs in with the clouds.yaml entries `local-e2e` (a user with member and load-balancer_member) and
`local-admin` (OS_CLIENT_CONFIG_FILE, else the local cloud's clouds.yaml). For SECONDS, two
threads create (and delete) application credentials of the e2e user with both roles, as the
product's workload stack does, while others validate the admin's token (whose roles lack
load-balancer_member) and one re-assigns the e2e user a role it has, which empties keystone's
computed-assignments cache as seeding a lane does. Every creation must succeed: a refusal for an
"unassigned role" means the roles checked were the admin token's. Exits 1 on any refusal.
"""
import collections
import os
import sys
import threading
import time

import requests
import yaml


def login(url, auth):
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": auth["username"], "domain": {"name": auth.get("user_domain_name", "Default")},
        "password": auth["password"]}}}, "scope": {"project": {
            "name": auth["project_name"], "domain": {"name": auth.get("project_domain_name", "Default")}}}}}
    r = requests.post(url + "/auth/tokens", json=body, timeout=30)
    if r.status_code != 201:
        sys.exit("login as %s failed: %s %s" % (auth["username"], r.status_code, r.text[:200]))
    return r.headers["X-Subject-Token"], r.json()["token"]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: keystone_token_race.py KEYSTONE_URL SECONDS")
    url, seconds = sys.argv[1].rstrip("/"), float(sys.argv[2])
    clouds_file = os.environ.get("OS_CLIENT_CONFIG_FILE") or os.path.expanduser(
        "~/.cache/capi-openstack-cdktf/local-cloud/clouds.yaml")
    with open(clouds_file) as f:
        clouds = yaml.safe_load(f)["clouds"]
    user_token, user = login(url, clouds["local-e2e"]["auth"])
    admin_token, _ = login(url, clouds["local-admin"]["auth"])
    role_names = {r["name"] for r in user["roles"]}
    if not {"member", "load-balancer_member"} <= role_names:
        sys.exit("%s lacks member or load-balancer_member (has %s): nothing to measure"
                 % (user["user"]["name"], ", ".join(sorted(role_names))))
    uid, pid = user["user"]["id"], user["project"]["id"]
    rid = next(r["id"] for r in user["roles"] if r["name"] == "member")
    stop = time.time() + seconds
    results = collections.Counter()

    def validate_admin():
        while time.time() < stop:
            requests.get(url + "/auth/tokens", timeout=30,
                         headers={"X-Auth-Token": admin_token, "X-Subject-Token": admin_token})

    def reassign():
        while time.time() < stop:
            requests.put("%s/projects/%s/users/%s/roles/%s" % (url, pid, uid, rid), timeout=30,
                         headers={"X-Auth-Token": admin_token})
            time.sleep(0.2)

    def create(k):
        i = 0
        while time.time() < stop:
            i += 1
            r = requests.post("%s/users/%s/application_credentials" % (url, uid), timeout=30,
                              headers={"X-Auth-Token": user_token},
                              json={"application_credential": {
                                  "name": "keystone-token-race-%d-%d-%d" % (os.getpid(), k, i),
                                  "roles": [{"name": "member"}, {"name": "load-balancer_member"}]}})
            if r.status_code == 201:
                requests.delete("%s/users/%s/application_credentials/%s" % (
                    url, uid, r.json()["application_credential"]["id"]), timeout=30,
                    headers={"X-Auth-Token": user_token})
                results["created"] += 1
            else:
                results["%s %s" % (r.status_code, r.json().get("error", {}).get("message", r.text)[:120])] += 1

    threads = [threading.Thread(target=validate_admin) for _ in range(6)]
    threads += [threading.Thread(target=reassign)] + [threading.Thread(target=create, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    refused = sum(n for what, n in results.items() if what != "created")
    print("%s, %.0f s: %d credentials created, %d refused%s" % (
        url, seconds, results["created"], refused,
        "".join("\n  %dx %s" % (n, what) for what, n in results.items() if what != "created")), flush=True)
    if results["created"] + refused == 0:
        sys.exit("no credential request completed")
    sys.exit(1 if refused else 0)


if __name__ == "__main__":
    main()
