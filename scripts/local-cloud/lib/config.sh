# shellcheck shell=bash
# Writes every service's configuration into $LC_STATE/etc. Called by start on
# each run, so an updated script takes effect on the next start. Needs
# lib/common.sh and load_secrets first.

# keystone_auth SECTION USER: a [section] that authenticates as a service user
keystone_auth() {
  cat <<EOT
[$1]
auth_url = $LC_KEYSTONE
auth_type = password
user_domain_name = Default
project_domain_name = Default
project_name = service
username = $2
password = $SERVICE_PASS
region_name = RegionOne
EOT
}

# authtoken USER: keystonemiddleware section of an API service
authtoken() {
  keystone_auth keystone_authtoken "$1"
  echo "www_authenticate_uri = $LC_KEYSTONE"
  echo "service_token_roles_required = true"
}

# service_with_nova SERVICE: database, API authentication and the [nova] login of a service
# that calls Nova (neutron's port events, cinder's attachments), then its lock directory
service_with_nova() {
  cat <<EOT
[database]
connection = $(db_url "$1")

$(authtoken "$1")

$(keystone_auth nova nova)

[oslo_concurrency]
lock_path = $S/$1/lock
EOT
}

# legacy (pre-"secure RBAC") policy defaults: project members may manage their
# own resources, which is what the public clouds the product targets do
legacy_policy() {
  printf '[oslo_policy]\nenforce_new_defaults = false\nenforce_scope = false\n'
}

# uwsgi_ini NAME PORT WSGI_SCRIPT PROCESSES THREADS [env lines...]: listens on loopback and on
# LC_ADDRESS (when that is another one): Keystone must answer clouds.yaml's loopback auth_url and
# the catalog's address; the others answer both alike
uwsgi_ini() {
  local name=$1 port=$2 script=$3 procs=$4 threads=$5; shift 5
  cat <<EOT
[uwsgi]
plugins = python3
http-socket = 127.0.0.1:$port
$(if [ "$LC_ADDRESS" != 127.0.0.1 ]; then echo "http-socket = $LC_ADDRESS:$port"; fi)
wsgi-file = $script
chdir = $LC_STATE
master = true
need-app = true
lazy-apps = true
processes = $procs
threads = $threads
enable-threads = true
die-on-term = true
no-orphans = true
buffer-size = 65535
http-auto-chunked = true
http-chunked-input = true
http-raw-body = true
logto = $LC_STATE/log/$name-uwsgi.log
; the http-socket closes the connection after each response: say so, or
; clients reuse it after a 204 and get "connection reset"
add-header = Connection: close
EOT
  local e
  for e in "$@"; do echo "env = $e"; done
}

write_configs() {
  local E=$LC_STATE/etc S=$LC_STATE
  local rabbit="rabbit://capi:$RABBIT_PASS@127.0.0.1:5672/"
  mkdir -p "$E"
  chmod 700 "$E"

  # ---------------------------------------------------------------- MariaDB
  cat > "$E/my.cnf" <<EOT
# private MariaDB: unix socket only (no TCP listener), throw-away durability
[mysqld]
datadir = $S/mysql
socket = $S/run/mysqld.sock
pid-file = $S/run/mysqld.pid
log-error = $S/log/mariadb.log
user = $(id -un)
skip-networking
skip-name-resolve
character-set-server = utf8mb4
collation-server = utf8mb4_general_ci
max_connections = 500
innodb_buffer_pool_size = 96M
innodb_log_file_size = 48M
innodb_flush_log_at_trx_commit = 0
innodb_doublewrite = 0
sync_binlog = 0
performance_schema = off

[client]
socket = $S/run/mysqld.sock
EOT

  # --------------------------------------------------------------- RabbitMQ
  cat > "$E/rabbitmq.conf" <<EOT
listeners.tcp.default = 127.0.0.1:5672
default_user = capi
default_pass = $RABBIT_PASS
loopback_users = none
log.console = false
log.file.level = warning
vm_memory_high_watermark.absolute = 768MB
disk_free_limit.absolute = 50MB
EOT
  cat > "$E/rabbitmq-env.conf" <<EOT
NODENAME=rabbit@localhost
NODE_IP_ADDRESS=127.0.0.1
NODE_PORT=5672
DIST_PORT=25672
CONFIG_FILE=$E/rabbitmq.conf
ENABLED_PLUGINS_FILE=$E/rabbitmq-plugins
MNESIA_BASE=$S/rabbitmq/mnesia
LOG_BASE=$S/log/rabbitmq
PID_FILE=$S/rabbitmq/rabbit.pid
SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
EOT
  echo '[].' > "$E/rabbitmq-plugins"

  # --------------------------------------------------------------- Keystone
  cat > "$E/keystone.conf" <<EOT
[DEFAULT]
log_dir = $S/log
log_file = keystone.log

[database]
connection = $(db_url keystone)

[token]
provider = fernet
expiration = 28800

[fernet_tokens]
key_repository = $S/keystone/fernet-keys

[fernet_receipts]
key_repository = $S/keystone/fernet-keys

[credential]
key_repository = $S/keystone/credential-keys
; its cache hands the EC2/S3 signature check a record without the encrypted secret (KeyError
; 'encrypted_blob' in keystone 22): the object store's S3 API needs that check
caching = false

[identity]
; a throw-away cloud: cheapest bcrypt allowed
password_hash_rounds = 4

[cache]
; one uwsgi process, so a process-local cache stays coherent
enabled = true
backend = dogpile.cache.memory

$(legacy_policy)
EOT
  # One thread: keystone 22's AuthContextMiddleware keeps the token it validated in an attribute
  # of its one instance (self.token), and the request handler takes the token from there, so with
  # several threads a request can run on another request's token; an application credential was
  # refused for an "unassigned role" because the roles checked were another user's
  # (scripts/local-cloud/keystone-token-race measures it). One process keeps the memory cache coherent.
  uwsgi_ini keystone 5000 /usr/bin/keystone-wsgi-public 1 1 \
    "OS_KEYSTONE_CONFIG_FILES=$E/keystone.conf" > "$E/keystone-uwsgi.ini"

  # -------------------------------------------------------------- Placement
  cat > "$E/placement.conf" <<EOT
[DEFAULT]
log_dir = $S/log
log_file = placement.log

[api]
auth_strategy = keystone

[placement_database]
connection = $(db_url placement)

$(authtoken placement)

$(legacy_policy)
EOT
  uwsgi_ini placement 8778 /usr/bin/placement-api 1 4 \
    "OS_PLACEMENT_CONFIG_DIR=$E" > "$E/placement-uwsgi.ini"

  # ----------------------------------------------------------------- Glance
  cat > "$E/glance-api.conf" <<EOT
[DEFAULT]
bind_host = $LC_ADDRESS
bind_port = 9292
workers = 1
log_dir = $S/log
log_file = glance-api.log
enabled_backends = file:file
show_image_direct_url = false

[glance_store]
default_backend = file

[file]
filesystem_store_datadir = $S/glance/images

[os_glance_staging_store]
filesystem_store_datadir = $S/glance/staging

[os_glance_tasks_store]
filesystem_store_datadir = $S/glance/tasks

[database]
connection = $(db_url glance)

$(authtoken glance)

[paste_deploy]
flavor = keystone
config_file = /etc/glance/glance-api-paste.ini

[oslo_concurrency]
lock_path = $S/glance/lock

[image_import_opts]
image_import_plugins = []

$(legacy_policy)
EOT

  # ---------------------------------------------------------------- Neutron
  cat > "$E/neutron.conf" <<EOT
[DEFAULT]
bind_host = $LC_ADDRESS
bind_port = 9696
core_plugin = ml2
; L3 API (routers, external gateways, floating IPs) without any L3 agent
service_plugins = router
auth_strategy = keystone
allow_overlapping_ips = true
api_workers = 1
rpc_workers = 0
rpc_state_report_workers = 0
transport_url = $rabbit
notify_nova_on_port_status_changes = true
notify_nova_on_port_data_changes = true
dhcp_agent_notification = false
state_path = $S/neutron
log_dir = $S/log
log_file = neutron-server.log

$(service_with_nova neutron)

[oslo_messaging_notifications]
driver = noop

[agent]
root_helper = true

[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vxlan
; binds every port without an agent: python/capi_localcloud_ml2
mechanism_drivers = capi_bind_all
extension_drivers = port_security

[ml2_type_flat]
flat_networks = public

[ml2_type_vlan]
network_vlan_ranges = public

[ml2_type_vxlan]
vni_ranges = 1:10000

[securitygroup]
enable_security_group = true

$(legacy_policy)
EOT

  # ------------------------------------------------------------------- Nova
  cat > "$E/nova.conf" <<EOT
[DEFAULT]
host = local-cloud-compute
my_ip = 127.0.0.1
; no hypervisor: servers only exist in nova's database
compute_driver = fake.FakeDriver
transport_url = $rabbit
state_path = $S/nova
instances_path = $S/nova/instances
log_dir = $S/log
enabled_apis = osapi_compute
osapi_compute_listen = $LC_ADDRESS
osapi_compute_workers = 1
reserved_host_memory_mb = 0
reserved_host_disk_mb = 0
reserved_host_cpus = 0
cpu_allocation_ratio = 16.0
ram_allocation_ratio = 4.0
disk_allocation_ratio = 4.0
vif_plugging_is_fatal = false
vif_plugging_timeout = 0
heal_instance_info_cache_interval = -1
update_resources_interval = 60

[api]
auth_strategy = keystone

[api_database]
connection = $(db_url nova_api)

[database]
connection = $(db_url nova)

[wsgi]
api_paste_config = /etc/nova/api-paste.ini

$(authtoken nova)

$(keystone_auth placement placement)
valid_interfaces = public

$(keystone_auth neutron neutron)
valid_interfaces = public
service_metadata_proxy = false

[glance]
region_name = RegionOne
valid_interfaces = public

[cinder]
os_region_name = RegionOne

$(keystone_auth service_user nova)
; cinder only lets nova detach/delete attachments with a service token
send_service_user_token = true

[conductor]
workers = 1

[scheduler]
workers = 1
discover_hosts_in_cells_interval = -1

[oslo_concurrency]
lock_path = $S/nova/lock

[oslo_messaging_notifications]
driver = noop

[notifications]
notification_format = unversioned

[vnc]
enabled = false

[spice]
enabled = false

[oslo_policy]
enforce_new_defaults = false
enforce_scope = false
policy_file = $E/nova-policy.yaml
EOT
  cat > "$E/nova-policy.yaml" <<'EOT'
# Local-cloud deviations from nova's default policy (see README.md):
# project members may boot from an image on a flavor with 0 GB disk
# (SCS-2V-4 style). Real clouds require a boot volume for those.
"os_compute_api:servers:create:zero_disk_flavor": "rule:admin_or_owner"
EOT
  # nova-compute talks to the databases only through nova-conductor
  sed -e '/^\[api_database\]/,/^$/d' -e '/^\[database\]/,/^$/d' "$E/nova.conf" > "$E/nova-compute.conf"
  # nova-api is eventlet-patched: with several threads per uwsgi process an
  # RPC reply can be picked up by the wrong thread (MessagingTimeout), so
  # it gets two processes of one thread each
  uwsgi_ini nova-api 8774 /usr/bin/nova-api-wsgi 2 1 \
    "OS_NOVA_CONFIG_DIR=$E" "OS_NOVA_CONFIG_FILES=/etc/nova/api-paste.ini;nova.conf" > "$E/nova-api-uwsgi.ini"

  # ----------------------------------------------------------------- Cinder
  cat > "$E/cinder.conf" <<EOT
[DEFAULT]
host = local-cloud-volume
my_ip = 127.0.0.1
transport_url = $rabbit
auth_strategy = keystone
osapi_volume_listen = $LC_ADDRESS
osapi_volume_listen_port = 8776
osapi_volume_workers = 1
state_path = $S/cinder
log_dir = $S/log
enabled_backends = fake
default_volume_type = __DEFAULT__
glance_api_servers = $(lc_api_url 9292)

[fake]
; cinder's test driver (volumes exist only in the database) plus image copy: python/capi_localcloud_cinder.py
volume_driver = capi_localcloud_cinder.LocalCloudVolumeDriver
volume_backend_name = fake

$(service_with_nova cinder)

[coordination]
backend_url = file://$S/cinder/coordination

[oslo_messaging_notifications]
driver = noop

$(legacy_policy)
EOT

  # ---------------------------------------------------------------- Octavia
  cat > "$E/octavia.conf" <<EOT
[DEFAULT]
host = local-cloud-octavia
transport_url = $rabbit
log_dir = $S/log

[api_settings]
bind_host = $LC_ADDRESS
bind_port = 9876
auth_strategy = keystone
; no amphorae: python/capi_localcloud_octavia.py (no data plane)
enabled_provider_drivers = localcloud:Local test cloud provider without a data plane
default_provider_driver = localcloud
; TLS listeners would need barbican
allow_tls_terminated_listeners = false

[database]
connection = $(db_url octavia)

$(authtoken octavia)

$(keystone_auth service_auth octavia)

[neutron]
region_name = RegionOne
endpoint_type = public

[controller_worker]
; octavia-api allocates the VIP port itself with the neutron network driver
network_driver = allowed_address_pairs_driver
compute_driver = compute_noop_driver
amphora_driver = amphora_noop_driver

[driver_agent]
status_socket_path = $S/run/octavia-status.sock
stats_socket_path = $S/run/octavia-stats.sock
get_socket_path = $S/run/octavia-get.sock
enabled_provider_agents = localcloud
provider_agent_shutdown_timeout = 5

[oslo_messaging_notifications]
driver = noop

$(legacy_policy)
EOT
  uwsgi_ini octavia-api 9876 /usr/bin/octavia-wsgi 1 4 > "$E/octavia-api-uwsgi.ini"
  echo "pyargv = --config-file $E/octavia.conf --log-file $S/log/octavia-api.log" >> "$E/octavia-api-uwsgi.ini"
}
