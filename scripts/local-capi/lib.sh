# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# Shared helpers for scripts/local-capi/*. Sourced, not executed.

LOCAL_CAPI_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# versions (CAPI_VERSION, CAPO_VERSION, ORC_VERSION, CAAPH_VERSION), CACHE_ROOT, log/die/need,
# go_mod_dir, with_heartbeat and the local kube-apiserver's locations come from local-kube.
# shellcheck source=../local-kube/lib.sh
. "$LOCAL_CAPI_DIR/../local-kube/lib.sh"

log() { printf '[local-capi %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[local-capi] ERROR: %s\n' "$*" >&2; exit 1; }

# The controllers: name | Go module | version | main package (relative to the module) | the
# module's config directory (CRDs, RBAC, webhooks as its release is built from them).
LOCAL_CAPI_CONTROLLERS=(
  "capi|sigs.k8s.io/cluster-api|$CAPI_VERSION|$(capi_core_path "$CAPI_VERSION")|$(capi_core_config "$CAPI_VERSION")"
  "kubeadm-bootstrap|sigs.k8s.io/cluster-api|$CAPI_VERSION|bootstrap/kubeadm|bootstrap/kubeadm/config"
  "kubeadm-control-plane|sigs.k8s.io/cluster-api|$CAPI_VERSION|controlplane/kubeadm|controlplane/kubeadm/config"
  "orc|github.com/k-orc/openstack-resource-controller/v2|$ORC_VERSION|cmd/manager|config"
  "capo|sigs.k8s.io/cluster-api-provider-openstack|$CAPO_VERSION|.|config"
  "caaph|sigs.k8s.io/cluster-api-addon-provider-helm|$CAAPH_VERSION|.|config"
)
# Tools built beside them (same fields; never started): clusterctl, which the management backup and
# restore commands run (`capi-openstack management`), at the Cluster API version of the controllers.
LOCAL_CAPI_TOOLS=(
  "clusterctl|sigs.k8s.io/cluster-api|$CAPI_VERSION|cmd/clusterctl|-"
)
# The Cluster API version the controller-upgrade e2e starts a running cluster at (an older minor the
# Go module proxy serves) before it moves core and kubeadm to the pinned version; `build` builds those
# controllers and clusterctl at it too.
# shellcheck disable=SC2034  # used by build and the e2e
LOCAL_CAPI_UPGRADE_FROM="${LOCAL_CAPI_UPGRADE_FROM:-v1.13.6}"
[[ "$LOCAL_CAPI_UPGRADE_FROM" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "LOCAL_CAPI_UPGRADE_FROM: expected a version like v1.13.6, found '$LOCAL_CAPI_UPGRADE_FROM'"
# shellcheck disable=SC2034
LOCAL_CAPI_UPGRADE_NAMES=(capi kubeadm-bootstrap kubeadm-control-plane clusterctl)
# Binaries: one directory per (module, version), so a version bump rebuilds only what changed.
LOCAL_CAPI_BIN_ROOT="${LOCAL_CAPI_BIN_ROOT:-$CACHE_ROOT/local-capi-bin}"
# Runtime state (webhook certificates, kubeconfigs, logs, pids).
LOCAL_CAPI_STATE="${LOCAL_CAPI_STATE:-$CACHE_ROOT/local-capi}"

# controller_field NAME INDEX: field INDEX (0 name, 1 module, 2 version, 3 main, 4 config).
controller_field() {
  local row fields
  for row in "${LOCAL_CAPI_CONTROLLERS[@]}" "${LOCAL_CAPI_TOOLS[@]}"; do
    IFS='|' read -r -a fields <<<"$row"
    if [ "${fields[0]}" = "$1" ]; then printf '%s\n' "${fields[$2]}"; return 0; fi
  done
  die "unknown controller '$1'"
}
controller_names() { local row; for row in "${LOCAL_CAPI_CONTROLLERS[@]}"; do printf '%s\n' "${row%%|*}"; done; }
tool_names() { local row; for row in "${LOCAL_CAPI_TOOLS[@]}"; do printf '%s\n' "${row%%|*}"; done; }
# controller_bin NAME: where build puts the binary of NAME.
controller_bin() {
  local module version
  module="$(controller_field "$1" 1)"; version="$(controller_field "$1" 2)"
  printf '%s/%s@%s/%s\n' "$LOCAL_CAPI_BIN_ROOT" "${module//\//_}" "$version" "$1"
}

# pid_alive_capi NAME: the process recorded in $LOCAL_CAPI_STATE/run/NAME.pid runs binary NAME.
pid_alive_capi() { pid_alive "$1" "$LOCAL_CAPI_STATE/run"; }
