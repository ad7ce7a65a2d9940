# shellcheck shell=bash
# Launching, waiting for and stopping the local cloud's processes.
# Needs lib/common.sh.

# service_argv NAME: prints the command of a service, one word per line
service_argv() {
  local E=$LC_STATE/etc L=$LC_STATE/log
  case $1 in
    mariadb)          printf '%s\n' /usr/sbin/mariadbd "--defaults-file=$E/my.cnf" ;;
    epmd)             printf '%s\n' /usr/bin/epmd -address 127.0.0.1 ;;
    rabbitmq)         printf '%s\n' /usr/lib/rabbitmq/bin/rabbitmq-server ;;
    keystone)         printf '%s\n' /usr/bin/uwsgi_python3 --ini "$E/keystone-uwsgi.ini" ;;
    placement-api)    printf '%s\n' /usr/bin/uwsgi_python3 --ini "$E/placement-uwsgi.ini" ;;
    nova-api)         printf '%s\n' /usr/bin/uwsgi_python3 --ini "$E/nova-api-uwsgi.ini" ;;
    neutron-server)   printf '%s\n' /usr/bin/neutron-server --config-file "$E/neutron.conf" ;;
    glance-api)       printf '%s\n' /usr/bin/glance-api --config-file "$E/glance-api.conf" ;;
    nova-conductor|nova-scheduler)
                      printf '%s\n' "/usr/bin/$1" --config-file "$E/nova.conf" --log-file "$L/$1.log" ;;
    nova-compute)     printf '%s\n' "$LC_DIR/lib/nova-compute" --config-file "$E/nova-compute.conf" --log-file "$L/nova-compute.log" ;;
    cinder-*)         printf '%s\n' "/usr/bin/$1" --config-file "$E/cinder.conf" --log-file "$L/$1.log" ;;
    octavia-api)      printf '%s\n' /usr/bin/uwsgi_python3 --ini "$E/octavia-api-uwsgi.ini" ;;
    octavia-driver-agent)
                      printf '%s\n' /usr/bin/octavia-driver-agent --config-file "$E/octavia.conf" --log-file "$L/$1.log" ;;
    swift-*)          local k=${1#swift-}
                      printf '%s\n' /usr/bin/python3 "$LC_DIR/python/capi_localcloud_swift.py" "$E/swift" "$k" "$E/swift/$k-server.conf" ;;
    *) die "unknown service $1" ;;
  esac
}

# launch NAME: start a service in the background in a new session (so its
# process group id = its pid, saved in run/NAME.pid); no-op if it runs
launch() {
  local name=$1 argv=() log
  if is_running "$name"; then
    say "$name already running (pid $(pid_recorded "$(pidfile "$name")"))"
    return 0
  fi
  mapfile -t argv < <(service_argv "$name")
  log=$(service_log "$name")
  # remember where the service log ended, so waits only read new lines
  stat -c %s "$log" > "$LC_STATE/run/$name.logoffset" 2>/dev/null || echo 0 > "$LC_STATE/run/$name.logoffset"
  now > "$LC_STATE/run/$name.started"
  # neutron-server finds the bind-everything ML2 driver and octavia its
  # provider through PYTHONPATH (entry point metadata); rabbitmq keeps its erlang cookie in $HOME
  local envs=("PYTHONPATH=$LC_DIR/python")
  # Swift: the pinned release of lib/swift.sh before anything Debian installed
  case $name in swift-*) envs=("PYTHONPATH=$LC_SWIFT_CODE:$LC_DIR/python") ;; esac
  if [ "$name" = rabbitmq ]; then
    envs+=("HOME=$LC_STATE/rabbitmq" ERL_EPMD_ADDRESS=127.0.0.1
           "RABBITMQ_CONF_ENV_FILE=$LC_STATE/etc/rabbitmq-env.conf")
  fi
  (
    cd "$LC_STATE" || exit 1
    # setsid does not fork here (a background job is not a group leader):
    # $! is the service itself and leads its own process group
    setsid env "${envs[@]}" "${argv[@]}" > "$LC_STATE/log/$name.stdout" 2>&1 < /dev/null &
    pid_record "$(pidfile "$name")" $!
  )
}

# fail_service NAME WHY: report a service that did not come up, with its logs
fail_service() {
  local name=$1 why=$2 f
  say "ERROR: $name $why" >&2
  for f in "$(service_log "$name")" "$LC_STATE/log/$name.stdout"; do
    if [ -s "$f" ]; then
      echo "----- last lines of $f" >&2
      tail -n 25 "$f" >&2
    fi
  done
  die "$name did not start; all logs are in $LC_STATE/log (scripts/local-cloud/stop to clean up)"
}

# wait_until NAME TIMEOUT_S WHAT CMD...: poll CMD every 0.5 s until it succeeds
wait_until() {
  local name=$1 timeout=$2 what=$3; shift 3
  local deadline=$(( $(date +%s) + timeout ))
  until "$@" > /dev/null 2>&1; do
    if ! is_running "$name"; then fail_service "$name" "exited while waiting for $what"; fi
    if [ "$(date +%s)" -ge "$deadline" ]; then fail_service "$name" "not ready after ${timeout}s (waiting for $what)"; fi
    sleep 0.5
  done
  say "$name ready after $(elapsed "$(cat "$LC_STATE/run/$name.started")") s"
}

http_up() { # any HTTP answer below 500 means the API is serving
  local code
  code=$(curl -s -o /dev/null --max-time 5 -w '%{http_code}' "$1") || return 1
  [ "$code" -ge 200 ] && [ "$code" -lt 500 ]
}
tcp_up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
log_has() { # log_has NAME REGEX: REGEX appears in the lines logged since launch
  local f off
  f=$(service_log "$1"); off=$(cat "$LC_STATE/run/$1.logoffset" 2>/dev/null || echo 0)
  tail -c "+$((off + 1))" "$f" 2>/dev/null | grep -qE "$2"
}
mysql_up() { mysqladmin --defaults-file="$LC_STATE/etc/my.cnf" -u root ping; }
sql() { # sql DB QUERY: run a query as the MariaDB root user (unix socket)
  mysql --defaults-file="$LC_STATE/etc/my.cnf" -u root -N -B "$1" -e "$2"
}
compute_heartbeat() { # nova-compute has reported since it was launched
  local since
  since=$(date -u -d "@$(cut -d. -f1 "$LC_STATE/run/nova-compute.started")" '+%Y-%m-%d %H:%M:%S')
  [ "$(sql nova "select count(*) from services where \`binary\`='nova-compute' and deleted=0 and updated_at >= '$since'")" -ge 1 ]
}

# wait_service NAME TIMEOUT_S: the readiness check of each service
wait_service() {
  local name=$1 t=$2
  case $name in
    mariadb)        wait_until "$name" "$t" "its socket" mysql_up ;;
    rabbitmq)       wait_until "$name" "$t" "port 5672" tcp_up 5672 ;;
    keystone)       wait_until "$name" "$t" "http :5000" http_up "$LC_KEYSTONE/v3" ;;
    neutron-server) wait_until "$name" "$t" "http :9696" http_up "$(lc_api_url 9696)/" ;;
    placement-api)  wait_until "$name" "$t" "http :8778" http_up "$(lc_api_url 8778)/" ;;
    glance-api)     wait_until "$name" "$t" "http :9292" http_up "$(lc_api_url 9292)/" ;;
    nova-api)       wait_until "$name" "$t" "http :8774" http_up "$(lc_api_url 8774)/" ;;
    cinder-api)     wait_until "$name" "$t" "http :8776" http_up "$(lc_api_url 8776)/" ;;
    octavia-api)    wait_until "$name" "$t" "http :9876" http_up "$(lc_api_url 9876)/" ;;
    swift-account)  wait_until "$name" "$t" "port 6202" tcp_up 6202 ;;
    swift-container) wait_until "$name" "$t" "port 6201" tcp_up 6201 ;;
    swift-object)   wait_until "$name" "$t" "port 6200" tcp_up 6200 ;;
    swift-proxy)    wait_until "$name" "$t" "http :$LC_SWIFT_PORT/healthcheck" http_up "http://127.0.0.1:$LC_SWIFT_PORT/healthcheck" ;;
    octavia-driver-agent) wait_until "$name" "$t" "its provider agent" log_has "$name" 'local cloud provider agent started' ;;
    nova-conductor) wait_until "$name" "$t" "'Starting conductor node'" log_has "$name" 'Starting conductor node' ;;
    nova-scheduler) wait_until "$name" "$t" "'Starting scheduler node'" log_has "$name" 'Starting scheduler node' ;;
    nova-compute)   wait_until "$name" "$t" "its first heartbeat" compute_heartbeat ;;
    cinder-scheduler) wait_until "$name" "$t" "'Starting cinder-scheduler node'" log_has "$name" 'Starting cinder-scheduler node' ;;
    cinder-volume)  wait_until "$name" "$t" "driver initialization" log_has "$name" 'Driver post RPC initialization completed' ;;
    *)              wait_until "$name" "$t" "process" true ;;
  esac
}

# stop_services TIMEOUT_S NAME...: TERM (INT for uwsgi) each process group (the
# driver agent: its leader), wait, then KILL what is left of the group. Only
# groups recorded in run/*.pid are touched.
stop_services() {
  local t=$1 name pgid deadline left
  shift
  local -a groups=()
  for name in "$@"; do
    is_running "$name" || { rm -f "$(pidfile "$name")"; continue; }
    pgid=$(pid_recorded "$(pidfile "$name")")
    case $name in
      keystone|placement-api|nova-api|octavia-api) kill -INT -- "-$pgid" 2>/dev/null || true ;;
      # only the leader: it stops its worker processes through an event;
      # a TERM of their own runs the leader's handler in them (inherited by
      # fork), which fails there and leaves their socket servers running
      octavia-driver-agent) kill -TERM "$pgid" 2>/dev/null || true ;;
      *) kill -TERM -- "-$pgid" 2>/dev/null || true ;;
    esac
    groups+=("$pgid:$name")
  done
  [ ${#groups[@]} -gt 0 ] || return 0
  deadline=$(( $(date +%s) + t ))
  while :; do
    left=0
    for g in "${groups[@]}"; do pgrep -g "${g%%:*}" > /dev/null && left=1; done
    [ $left = 0 ] && break
    [ "$(date +%s)" -lt "$deadline" ] || break
    sleep 0.3
  done
  for g in "${groups[@]}"; do
    if pgrep -g "${g%%:*}" > /dev/null; then
      say "${g#*:} did not stop in ${t}s: killing process group ${g%%:*}"
      kill -KILL -- "-${g%%:*}" 2>/dev/null || true
    fi
    rm -f "$(pidfile "${g#*:}")"
    say "stopped ${g#*:}"
  done
}
