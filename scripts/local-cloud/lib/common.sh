# shellcheck shell=bash disable=SC2034
# Shared settings and helpers for scripts/local-cloud/*. Source it, do not run it.

LC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LC_STATE=${LOCAL_CLOUD_STATE:-${HOME:-/root}/.cache/capi-openstack-cdktf/local-cloud}
# Cinder, Octavia (load balancers) and Swift (object storage) are optional. start remembers the choice in the state dir
# (.cinder-enabled, .octavia-enabled, .swift-enabled), so a later plain "start" (or smoke) keeps what the first
# one chose. optional_on VALUE MARKER: VALUE when set, else 1 when MARKER exists, else 0.
optional_on() { if [ -n "$1" ]; then echo "$1"; elif [ -f "$LC_STATE/$2" ]; then echo 1; else echo 0; fi; }
LC_CINDER=$(optional_on "${LOCAL_CLOUD_CINDER:-}" .cinder-enabled)
LC_OCTAVIA=$(optional_on "${LOCAL_CLOUD_OCTAVIA:-}" .octavia-enabled)
LC_SWIFT=$(optional_on "${LOCAL_CLOUD_SWIFT:-}" .swift-enabled)
# The services are Debian's python3 programs: never pick up a venv/pyenv python.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8

# Debian packages (bookworm ships OpenStack "Zed"). nova-compute's package is
# left out on purpose: it depends on qemu/libvirt; lib/nova-compute runs the
# same entry point from python3-nova with the fake virt driver.
LC_PACKAGES=(
  keystone neutron-server placement-api glance-api
  nova-api nova-conductor nova-scheduler
  rabbitmq-server mariadb-server python3-pymysql
  python3-openstackclient curl procps openssh-client
)
LC_CINDER_PACKAGES=(cinder-api cinder-scheduler cinder-volume qemu-utils)
# octavia-api and octavia-driver-agent bring python3-octavia(-lib); the
# worker, health manager and housekeeping are not needed (no amphorae)
LC_OCTAVIA_PACKAGES=(octavia-api octavia-driver-agent python3-octaviaclient)
# Swift itself is the pinned release of lib/swift.sh; these are its dependencies
LC_SWIFT_PACKAGES=(python3-eventlet python3-greenlet python3-pyeclib python3-xattr python3-lxml
                   python3-pastedeploy python3-dnspython python3-cryptography python3-requests
                   python3-keystonemiddleware python3-keystoneclient)

# Services in start order. Each runs in its own process group; its pid file
# holds the group id.
LC_CORE_SERVICES=(mariadb epmd rabbitmq keystone neutron-server placement-api glance-api
                  nova-conductor nova-scheduler nova-compute nova-api)
LC_CINDER_SERVICES=(cinder-api cinder-scheduler cinder-volume)
LC_OCTAVIA_SERVICES=(octavia-driver-agent octavia-api)
LC_SWIFT_SERVICES=(swift-account swift-container swift-object swift-proxy)
LC_SERVICES=("${LC_CORE_SERVICES[@]}")
if [ "$LC_CINDER" = 1 ]; then LC_SERVICES+=("${LC_CINDER_SERVICES[@]}"); fi
if [ "$LC_OCTAVIA" = 1 ]; then LC_SERVICES+=("${LC_OCTAVIA_SERVICES[@]}"); fi
if [ "$LC_SWIFT" = 1 ]; then LC_SERVICES+=("${LC_SWIFT_SERVICES[@]}"); fi

LC_DATABASES=(keystone neutron placement glance nova_api nova nova_cell0 cinder octavia)
# The address the OpenStack APIs listen on and the catalog names (LOCAL_CLOUD_ADDRESS; default
# 127.0.0.1, loopback only). Another address lets the workload node stand-ins (scripts/local-vm)
# and their pods reach the APIs, as OCCM and Cinder CSI must: start puts it on a link of its own
# (LC_LINK) and remembers it in the state dir, like the optional services, so a later plain start,
# status or smoke keeps it. Host processes reach it as one of this machine's addresses.
LC_ADDRESS_FILE=$LC_STATE/.address
if [ -n "${LOCAL_CLOUD_ADDRESS:-}" ]; then LC_ADDRESS=$LOCAL_CLOUD_ADDRESS
elif [ -s "$LC_ADDRESS_FILE" ]; then LC_ADDRESS=$(cat "$LC_ADDRESS_FILE")
else LC_ADDRESS=127.0.0.1; fi
[[ "$LC_ADDRESS" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] \
  || { echo "[local-cloud] ERROR: LOCAL_CLOUD_ADDRESS must be an IPv4 address, found '$LC_ADDRESS'" >&2; exit 1; }
LC_LINK=lc-cloud0
# Keystone also stays on loopback: clouds.yaml's auth_url is http://127.0.0.1:5000/v3 either way, so
# environments that name the local cloud keep passing the product's plain-http check (http only to
# loopback without cloud.allowPlainHttp). The catalog names LC_ADDRESS (lc_api_url).
LC_KEYSTONE=http://127.0.0.1:5000
lc_api_url() { echo "http://$LC_ADDRESS:$1"; } # lc_api_url PORT: a service's URL as the catalog names it

say() { printf '[local-cloud %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { say "ERROR: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# as_root SCRIPT ARGS...: continues as root, through sudo when this is another user (sudo asks for
# the password); the LOCAL_CLOUD_* choices go along.
as_root() {
  [ "$(id -u)" = 0 ] && return 0
  command -v sudo >/dev/null 2>&1 || die "$1 must run as root (it installs Debian packages) and sudo is not installed"
  say "not root: running $1 again through sudo"
  exec sudo --preserve-env=LOCAL_CLOUD_CINDER,LOCAL_CLOUD_OCTAVIA,LOCAL_CLOUD_SWIFT,LOCAL_CLOUD_STATE "$@"
}

# ---- secrets: generated once per state dir, kept in $LC_STATE/secrets.env (mode 600)
gen_secret() { head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24; }
load_secrets() {
  local f=$LC_STATE/secrets.env
  if [ ! -s "$f" ]; then
    mkdir -p "$LC_STATE"
    ( umask 077
      { echo "ADMIN_PASS=$(gen_secret)"; echo "SERVICE_PASS=$(gen_secret)"
        echo "DB_PASS=$(gen_secret)"; echo "RABBIT_PASS=$(gen_secret)"
        echo "E2E_PASS=$(gen_secret)"; } > "$f.tmp" && mv "$f.tmp" "$f" )
  fi
  chmod 600 "$f"
  # shellcheck disable=SC1090
  source "$f"
}

db_url() { # db_url NAME -> SQLAlchemy URL of database NAME (unix socket, no TCP)
  echo "mysql+pymysql://openstack:$DB_PASS@localhost/$1?unix_socket=$LC_STATE/run/mysqld.sock&charset=utf8"
}

pidfile() { echo "$LC_STATE/run/$1.pid"; }
# shellcheck source=../../lib/pidfile.sh
. "$LC_DIR/../lib/pidfile.sh"
is_running() { # is_running NAME: its process group leader, the one its pid file records, is alive
  pid_running "$(pidfile "$1")"
}
service_log() { # the file to show when a service fails
  case $1 in
    keystone) echo "$LC_STATE/log/keystone.log" ;;
    placement-api) echo "$LC_STATE/log/placement.log" ;;
    nova-api) echo "$LC_STATE/log/nova-api-wsgi.log" ;;
    octavia-api) echo "$LC_STATE/log/octavia-api-uwsgi.log" ;;
    mariadb) echo "$LC_STATE/log/mariadb.log" ;;
    epmd|rabbitmq) echo "$LC_STATE/log/$1.stdout" ;;
    *) echo "$LC_STATE/log/$1.log" ;;
  esac
}

# shellcheck source=lib/swift.sh
source "$LC_DIR/lib/swift.sh"
