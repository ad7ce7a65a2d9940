# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# Shared helpers for scripts/local-kube/*. Sourced, not executed.

LOCAL_KUBE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
. "$LOCAL_KUBE_DIR/versions.env"

CACHE_ROOT="${CAPI_OPENSTACK_CDKTF_CACHE:-$HOME/.cache/capi-openstack-cdktf}"
# Binaries: one directory per (kubernetes, etcd) version pair.
LOCAL_KUBE_BIN_DIR="${LOCAL_KUBE_BIN_DIR:-$CACHE_ROOT/local-kube-k8s${KUBERNETES_VERSION#v}-etcd${ETCD_VERSION#v}/bin}"
# Full CRD manifests: one directory per (capi, capo, caaph) version triple.
LOCAL_KUBE_CRD_DIR="${LOCAL_KUBE_CRD_DIR:-$CACHE_ROOT/local-kube-crds-capi${CAPI_VERSION#v}-capo${CAPO_VERSION#v}-caaph${CAAPH_VERSION#v}}"
# Runtime state (certs, etcd data, logs, pids, kubeconfig).
LOCAL_KUBE_STATE="${LOCAL_KUBE_STATE:-$CACHE_ROOT/local-kube}"
LOCAL_KUBE_PORT="${LOCAL_KUBE_PORT:-6443}"
LOCAL_KUBE_ETCD_CLIENT_PORT="${LOCAL_KUBE_ETCD_CLIENT_PORT:-23790}"
LOCAL_KUBE_ETCD_PEER_PORT="${LOCAL_KUBE_ETCD_PEER_PORT:-23800}"
LOCAL_KUBE_KCM_PORT="${LOCAL_KUBE_KCM_PORT:-10357}"

export CHECKPOINT_DISABLE=1
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GOFLAGS=-mod=mod
# shellcheck source=../toolchain/lib.sh
. "$LOCAL_KUBE_DIR/../toolchain/lib.sh"
toolchain_go_env # every module checked against the Go checksum database, whatever the caller set
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi

log() { printf '[local-kube %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[local-kube] ERROR: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found in PATH ($2)"; }

# go_mod_dir MODULE VERSION -> prints the extracted module directory in the module cache.
go_mod_dir() {
  local json dir
  json="$(cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod go mod download -json "$1@$2")" \
    || die "go mod download $1@$2 failed (is the Go module proxy reachable? output: $json)"
  dir="$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  { [ -n "$dir" ] && [ -d "$dir" ]; } || die "go mod download $1@$2 returned no Dir: $json"
  printf '%s\n' "$dir"
}

# capi_core_path VERSION: where Cluster API core's main package sits in module
# sigs.k8s.io/cluster-api at VERSION: the module root up to v1.13, core/ from v1.14 on (whose
# config/ moved along, and whose API types became the nested module sigs.k8s.io/cluster-api/api).
capi_core_path() {
  case "$1" in
    v1.[0-9].*|v1.1[0-3].*) echo . ;;
    *) echo core ;;
  esac
}
# capi_core_config VERSION: the config directory (CRDs, RBAC, webhooks) of that main package.
capi_core_config() {
  local p
  p="$(capi_core_path "$1")"
  if [ "$p" = . ]; then echo config; else echo "$p/config"; fi
}

# nested_module_replaces MODULE VERSION: a replace line for each nested module of MODULE that its
# go.mod replaces with a local directory (`replace M/api => ./api`, Cluster API from v1.14): replace
# directives of a dependency are ignored and its placeholder requirement (v0.0.0-…) resolves to
# nothing, so the wrapper points each at the published twin of the same VERSION.
nested_module_replaces() {
  local m
  while read -r m; do
    case "$m" in "$1"/*) printf 'replace %s => %s %s\n' "$m" "$m" "$2" ;; esac
  done < <(sed -n 's#^\(replace\)\{0,1\}[[:space:]]*\([^[:space:]]*\) => \./.*#\2#p' "$(go_mod_dir "$1" "$2")/go.mod")
}

# build_go_main NAME MODULE VERSION PACKAGE BIN LDFLAGS WORKDIR: builds PACKAGE (a main package
# of MODULE) at VERSION into BIN, inside a wrapper module in WORKDIR/NAME that requires MODULE
# (`go install` refuses some modules here). Every module comes through the proxy, checked against
# the Go checksum database.
build_go_main() {
  local name="$1" module="$2" version="$3" pkg="$4" bin="$5" ldflags="$6" w="$7/$1" go_line t0
  mkdir -p "$w" "$(dirname "$bin")"
  go_line="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$(go_mod_dir "$module" "$version")/go.mod")"
  printf 'module local-build/%s\n\ngo %s\n\nrequire %s %s\n\n%s\n' "$name" "${go_line:-1.24}" "$module" "$version" \
    "$(nested_module_replaces "$module" "$version")" > "$w/go.mod"
  log "$name: resolving $module@$version"
  (cd "$w" && go get "$pkg@$version" >/dev/null 2>"$w/get.log") \
    || { tail -30 "$w/get.log" >&2; die "resolving $pkg@$version failed"; }
  log "$name: compiling $pkg (cold: minutes on 2 cores)"
  t0=$(date +%s)
  with_heartbeat "compiling $name" \
    env -C "$w" CGO_ENABLED=0 go build -trimpath -ldflags="$ldflags" -o "$bin.tmp" "$pkg" \
    || die "building $name ($module@$version) failed"
  mv "$bin.tmp" "$bin"
  log "$name built in $(( $(date +%s) - t0 ))s: $bin"
}

# pid_alive NAME [RUN_DIR]: the process recorded in RUN_DIR/NAME.pid (default
# $LOCAL_KUBE_STATE/run) runs binary NAME.
pid_alive() {
  local f="${2:-$LOCAL_KUBE_STATE/run}/$1.pid" pid exe=""
  [ -f "$f" ] || return 1
  pid="$(cat "$f")"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  IFS= read -r -d '' exe < "/proc/$pid/cmdline" || true
  [ "${exe##*/}" = "$1" ]
}

# spawn_detached NAME PIDFILE LOGFILE COMMAND...: runs COMMAND in its own session (setsid), output
# appended to LOGFILE, its pid in PIDFILE; returns once the process runs binary NAME or has ended
# (settle_exec), so that pid_alive tells a starting process from one that exited.
spawn_detached() {
  local name="$1" pidfile="$2" logfile="$3"
  shift 3
  setsid "$@" >> "$logfile" 2>&1 < /dev/null &
  echo $! > "$pidfile"
  settle_exec "$name" $!
}

# settle_exec NAME PID: waits (at most 10 s) until PID, just started through setsid (and env), runs
# binary NAME or has ended. Until the launcher has exec'ed NAME its command line names the launcher,
# and pid_alive would take the starting process for one that exited.
settle_exec() {
  local name="$1" pid="$2" i state exe
  for ((i = 0; i < 200; i++)); do
    state="$(sed -n 's/^.*) \(.\).*$/\1/p' "/proc/$pid/stat" 2>/dev/null)"
    [ -n "$state" ] && [ "$state" != Z ] || return 0
    exe=""
    IFS= read -r -d '' exe 2>/dev/null < "/proc/$pid/cmdline" || true
    [ "${exe##*/}" = "$name" ] && return 0
    sleep 0.05
  done
}

# with_heartbeat WHAT COMMAND...: runs COMMAND, logging "still WHAT" every minute; returns its status.
with_heartbeat() {
  local what="$1" pid t0 next rc=0
  shift
  t0=$(date +%s)
  next=$((t0 + 60))
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 2
    if [ "$(date +%s)" -ge "$next" ]; then
      log "still $what ($(( $(date +%s) - t0 ))s)"
      next=$((next + 60))
    fi
  done
  wait "$pid" || rc=$?
  return "$rc"
}

# write_kubernetes_build_module DIR: a wrapper module in DIR that requires k8s.io/kubernetes at
# $KUBERNETES_VERSION. k8s.io/kubernetes replaces every k8s.io/<staging> module with
# ./staging/src/...; replace directives of a dependency are ignored, so each one points at its
# published v0.Y.Z twin.
write_kubernetes_build_module() {
  local dir="$1" k8s_dir staging_version go_line m
  local -a staging
  log "kubernetes $KUBERNETES_VERSION: downloading k8s.io/kubernetes (large, first run only)"
  k8s_dir="$(go_mod_dir k8s.io/kubernetes "$KUBERNETES_VERSION")"
  staging_version="v0.${KUBERNETES_VERSION#v1.}"
  mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\1#p' "$k8s_dir/go.mod")
  [ "${#staging[@]}" -gt 10 ] || die "could not read the staging replace list from $k8s_dir/go.mod"
  go_line="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$k8s_dir/go.mod")"
  mkdir -p "$dir"
  {
    echo "module local-kube/kubernetes-build"
    echo
    echo "go ${go_line:-1.25}"
    echo
    echo "require k8s.io/kubernetes $KUBERNETES_VERSION"
    echo
    echo "replace ("
    for m in "${staging[@]}"; do echo "	$m => $m $staging_version"; done
    echo ")"
  } > "$dir/go.mod"
}

# kubernetes_ldflags: the -ldflags that stamp $KUBERNETES_VERSION into a Kubernetes binary.
kubernetes_ldflags() {
  local minor="${KUBERNETES_VERSION#v1.}" flags="-s -w" p
  minor="${minor%%.*}"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $p.gitVersion=$KUBERNETES_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    flags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  printf '%s\n' "$flags"
}

# The kubelet stand-in (kubelet-standin/): built against the kubelet streaming server of the
# Kubernetes minor in use; its stamp names that version and a hash of the source.
KUBELET_STANDIN_SRC="$LOCAL_KUBE_DIR/kubelet-standin"
kubelet_standin_stamp() {
  printf 'kubernetes=%s src=%s\n' "$KUBERNETES_VERSION" "$(cat "$KUBELET_STANDIN_SRC"/*.go | sha256sum | cut -c1-16)"
}
kubelet_standin_current() {
  [ -x "$LOCAL_KUBE_BIN_DIR/kubelet-standin" ] \
    && [ "$(cat "$LOCAL_KUBE_BIN_DIR/.kubelet-standin-stamp" 2>/dev/null)" = "$(kubelet_standin_stamp)" ]
}

# build_kubelet_standin: compiles kubelet-standin/ in a wrapper module that requires the staging
# module holding the kubelet's port-forward server at v0.<minor>.<patch> of KUBERNETES_VERSION:
# k8s.io/kubelet up to v1.35, k8s.io/cri-streaming from v1.36 on (build tag cristreaming).
build_kubelet_standin() {
  local staging="v0.${KUBERNETES_VERSION#v1.}" minor module tags="" w t0
  minor="${KUBERNETES_VERSION#v1.}"; minor="${minor%%.*}"
  if [ "$minor" -ge 36 ]; then
    module=k8s.io/cri-streaming; tags=cristreaming
  else
    module=k8s.io/kubelet
  fi
  w="$(mktemp -d "${TMPDIR:-/tmp}/kubelet-standin-build.XXXXXX")"
  cp "$KUBELET_STANDIN_SRC"/*.go "$w/"
  printf 'module local-kube/kubelet-standin\n\ngo 1.25\n\nrequire %s %s\n' "$module" "$staging" > "$w/go.mod"
  log "kubelet-standin: resolving $module@$staging"
  (cd "$w" && go get "$module@$staging" >/dev/null 2>"$w/get.log") \
    || { tail -30 "$w/get.log" >&2; rm -rf "$w"; die "resolving $module@$staging failed"; }
  t0=$(date +%s)
  env -C "$w" CGO_ENABLED=0 go build -tags="$tags" -trimpath -ldflags='-s -w' -o "$LOCAL_KUBE_BIN_DIR/kubelet-standin.tmp" . \
    || { rm -rf "$w"; die "building kubelet-standin ($module@$staging) failed"; }
  mv "$LOCAL_KUBE_BIN_DIR/kubelet-standin.tmp" "$LOCAL_KUBE_BIN_DIR/kubelet-standin"
  kubelet_standin_stamp > "$LOCAL_KUBE_BIN_DIR/.kubelet-standin-stamp"
  rm -rf "$w"
  log "kubelet-standin built in $(( $(date +%s) - t0 ))s ($module@$staging)"
}
