# shellcheck shell=bash
# Object storage of the local cloud (LOCAL_CLOUD_SWIFT=1): Swift with its S3 API, for the team e2e
# (Terraform's S3 backend with its lock file). Needs lib/common.sh.
#
# Why not Debian's swift 2.30: its s3api answers every conditional PUT ("If-None-Match: *") with
# 501, and Terraform takes its S3 lock exactly that way. Swift accepts the header from 2.36.0, a
# pure-Python release whose dependencies bookworm packages; its wheel is pinned here by sha256.
# 2.36.4 because bookworm's keystone (security update) answers /v3/s3tokens only to services, and
# s3token authenticates as one from 2.36.4 on.

LC_SWIFT_VERSION=2.36.4
LC_SWIFT_WHEEL_URL=https://files.pythonhosted.org/packages/fc/3b/b120c0603749f2395323ef95cba8905789274b3594d82985315a7a319921/swift-2.36.4-py3-none-any.whl
LC_SWIFT_WHEEL_SHA256=1d74d283c124fb9b9629d4cd72f00cbab9bdda9311d20fe2adf1812f36dca3ed
LC_SWIFT_CODE=${LOCAL_CLOUD_SWIFT_CODE:-${HOME:-/root}/.cache/capi-openstack-cdktf/swift-$LC_SWIFT_VERSION}
LC_SWIFT_PORT=8080
LC_SWIFT_S3_REGION=RegionOne

# swift_fetch: the pinned wheel, verified, unpacked into $LC_SWIFT_CODE (once per version)
swift_fetch() {
  [ -f "$LC_SWIFT_CODE/.verified" ] && return 0
  local tmp whl
  tmp=$(mktemp -d); whl=$tmp/swift.whl
  say "downloading swift $LC_SWIFT_VERSION (pinned wheel)"
  curl -fsSL --retry 3 -o "$whl" "$LC_SWIFT_WHEEL_URL" || { rm -rf "$tmp"; die "download of $LC_SWIFT_WHEEL_URL failed"; }
  echo "$LC_SWIFT_WHEEL_SHA256  $whl" | sha256sum -c --quiet - \
    || { rm -rf "$tmp"; die "swift wheel: sha256 is $(sha256sum "$whl" | cut -c1-64), expected $LC_SWIFT_WHEEL_SHA256"; }
  rm -rf "$LC_SWIFT_CODE" && mkdir -p "$LC_SWIFT_CODE"
  /usr/bin/python3 -m zipfile -e "$whl" "$LC_SWIFT_CODE"
  rm -rf "$tmp"
  touch "$LC_SWIFT_CODE/.verified"
}

# swift_conf SERVER PORT: the [DEFAULT] and pipeline of an account, container or object server
swift_backend_conf() {
  cat <<EOT
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $2
workers = 0
swift_dir = $LC_STATE/etc/swift
devices = $LC_STATE/swift/devices
mount_check = false
log_name = swift-$1
log_facility = LOG_LOCAL0
log_address = /nonexistent
log_udp_host =

[pipeline:main]
pipeline = $1-server

[app:$1-server]
use = egg:swift#$1
EOT
}

swift_write_configs() {
  local W=$LC_STATE/etc/swift
  mkdir -p "$W" "$LC_STATE/swift/devices/d1"
  [ -s "$LC_STATE/swift/hash-suffix" ] || (umask 077; gen_secret > "$LC_STATE/swift/hash-suffix")
  printf '[swift-hash]\nswift_hash_path_suffix = %s\n\n[storage-policy:0]\nname = gold\ndefault = yes\n' \
    "$(cat "$LC_STATE/swift/hash-suffix")" > "$W/swift.conf"
  swift_backend_conf account 6202 > "$W/account-server.conf"
  swift_backend_conf container 6201 > "$W/container-server.conf"
  swift_backend_conf object 6200 > "$W/object-server.conf"
  cat > "$W/proxy-server.conf" <<EOT
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $LC_SWIFT_PORT
workers = 0
swift_dir = $W
log_name = swift-proxy

[pipeline:main]
; authtoken before s3token: it strips the identity headers s3token sets for keystoneauth
pipeline = catch_errors gatekeeper healthcheck proxy-logging listing_formats authtoken s3api s3token keystoneauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo

; S3 API: signatures checked by Keystone (EC2 credentials of the project's users)
[filter:s3api]
use = egg:swift#s3api
location = $LC_SWIFT_S3_REGION
s3_acl = false
[filter:s3token]
use = egg:swift#s3token
auth_uri = $LC_KEYSTONE/v3
delay_auth_decision = false
; no memcached here: every request asks keystone
secret_cache_duration = 0
; keystone validates signatures for services only: s3token logs in as the swift service user
auth_type = password
auth_url = $LC_KEYSTONE/v3
user_domain_name = Default
project_domain_name = Default
project_name = service
username = swift
password = $SERVICE_PASS

[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
delay_auth_decision = true
auth_url = $LC_KEYSTONE
www_authenticate_uri = $LC_KEYSTONE
auth_type = password
user_domain_name = Default
project_domain_name = Default
project_name = service
username = swift
password = $SERVICE_PASS
region_name = RegionOne

[filter:keystoneauth]
use = egg:swift#keystoneauth
operator_roles = admin, member
EOT
}

# swift_rings: one device, one replica; built once (the ring files are the cluster's layout)
swift_rings() {
  local W=$LC_STATE/etc/swift kind port
  for kind in account:6202 container:6201 object:6200; do
    port=${kind#*:}; kind=${kind%%:*}
    [ -s "$W/$kind.ring.gz" ] && continue
    rm -f "$W/$kind.builder"
    swift_python -m swift.cli.ringbuilder "$W/$kind.builder" create 6 1 1 > /dev/null
    swift_python -m swift.cli.ringbuilder "$W/$kind.builder" add "r1z1-127.0.0.1:$port/d1" 100 > /dev/null
    swift_python -m swift.cli.ringbuilder "$W/$kind.builder" rebalance > /dev/null \
      || die "swift: building the $kind ring failed"
  done
}

# swift_python ARGS...: Debian's python with the pinned swift release first on the path
swift_python() { PYTHONPATH=$LC_SWIFT_CODE:$LC_DIR/python /usr/bin/python3 "$@"; }
