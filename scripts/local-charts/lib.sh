# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# Shared helpers for scripts/local-charts/*. Sourced, not executed.

LOCAL_CHARTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# CACHE_ROOT, need, go_mod_dir, with_heartbeat, pid_alive come from local-kube.
# shellcheck source=../local-kube/lib.sh
. "$LOCAL_CHARTS_DIR/../local-kube/lib.sh"
# shellcheck source=../lib/pidfile.sh
. "$LOCAL_CHARTS_DIR/../lib/pidfile.sh"

log() { printf '[local-charts %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[local-charts] ERROR: %s\n' "$*" >&2; exit 1; }

# The Helm CLI that packages, indexes and pushes the charts and renders the stand-in site's
# cert-manager manifest, built once from helm.sh/helm/v3 (build-helm): the release CAAPH v0.6.4
# builds against, so its module is in the Go module cache and its packages largely in the build
# cache once the controllers are built.
HELM_VERSION="${LOCAL_CHARTS_HELM_VERSION:-v3.20.2}"
[[ "$HELM_VERSION" =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "LOCAL_CHARTS_HELM_VERSION: expected a Helm 3 release like v3.20.2, found '$HELM_VERSION'"
HELM_BIN="$CACHE_ROOT/local-charts-helm-$HELM_VERSION/helm"

# The release of cert-manager whose images scripts/local-vm/build-cert-manager builds here
# (CERT_MANAGER_VERSION in scripts/local-vm/versions.env, read by a bash of its own: nothing else
# of that file applies here).
# shellcheck disable=SC2016  # expanded by that bash
LOCAL_CHARTS_CERT_MANAGER_VERSION="$(bash -c 'set -eu; . "$1"; printf "%s" "$CERT_MANAGER_VERSION"' versions.env "$LOCAL_CHARTS_DIR/../local-vm/versions.env")"
[[ "$LOCAL_CHARTS_CERT_MANAGER_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "CERT_MANAGER_VERSION (scripts/local-vm/versions.env): expected a release like v1.11.5, found '$LOCAL_CHARTS_CERT_MANAGER_VERSION'"

# The catalogue's charts and the Go modules that carry their sources:
#   chart name (as the catalogue names it) | Go module | module version | chart directory in the module
#   [| recipe: how a chart whose Chart.yaml the module lacks is made the way its release makes it]
# A module version "-" means none is known to carry the chart; build reports why for each row it
# cannot package (the proxy serves no such version, no Chart.yaml at that path, ...). Recipes:
#   cert-manager-release  Chart.yaml from Chart.template.yaml with version and appVersion set to the
#                         module's version, the CRDs of deploy/crds joined as templates/crds.yaml;
#                         only where the module carries the main packages of the chart's images
#                         (build: cert_manager_release_chart).
# shellcheck disable=SC2034  # read by build
LOCAL_CHARTS_SOURCES=(
  # cloud-provider-openstack v1.36.0 carries chart 2.36.0; the catalogue pins 2.36.4, which no
  # served module version carries (the proxy serves v1.36.0 only): a cluster installs it with
  # addons.<addon>.version 2.36.0. The OCCM chart depends on Bitnami's "common" (a stand-in, see build).
  "openstack-cloud-controller-manager|k8s.io/cloud-provider-openstack|v1.36.0|charts/openstack-cloud-controller-manager"
  "openstack-cinder-csi|k8s.io/cloud-provider-openstack|v1.36.0|charts/cinder-csi-plugin"
  # the module's v0.8.0 carries chart 3.12.2, v0.9.0 chart 3.13.1 (the catalogue's pin)
  "metrics-server|sigs.k8s.io/metrics-server|v0.9.0|charts/metrics-server"
  # the catalogue pins 1.18.5; the proxy serves v1.15.6, v1.15.19 and v1.20.2 of the module
  "cilium|github.com/cilium/cilium|v1.20.2|install/kubernetes/cilium"
  "gateway-crds-helm|github.com/envoyproxy/gateway|v1.5.0|charts/gateway-crds-helm"
  # the catalogue pins v1.19.4: its module has only Chart.template.yaml and, from v1.12 on, its
  # binaries are nested Go modules the proxy does not serve, so no image of it can be built here.
  # The mirror holds the release whose images are built here; a cluster installs it with
  # addons.certManager.version.
  "cert-manager|github.com/cert-manager/cert-manager|v1.19.4|deploy/charts/cert-manager|cert-manager-release"
  "cert-manager|github.com/cert-manager/cert-manager|$LOCAL_CHARTS_CERT_MANAGER_VERSION|deploy/charts/cert-manager|cert-manager-release"
  # the chart's repository is no Go module; the proxy serves its tags as +incompatible versions
  "traefik|github.com/traefik/traefik-helm-chart|v41.6.0+incompatible|traefik"
  "kubelet-csr-approver|github.com/postfinance/kubelet-csr-approver|-|charts/kubelet-csr-approver"
  "snapshot-controller|github.com/piraeusdatastore/helm-charts|-|charts/snapshot-controller"
  "ingress-nginx|k8s.io/ingress-nginx|-|charts/ingress-nginx"
  "tigera-operator|github.com/projectcalico/calico|-|charts/tigera-operator"
  "flux2|github.com/fluxcd-community/helm-charts|-|charts/flux2"
)

# The Gateway API CRDs an operator applies before addons.gatewayApi (docs/addons.md#gateway-api):
# the standard channel of the release Traefik's pin is built against, from its Go module's
# config/crd/standard, into $LOCAL_CHARTS_PACKAGES/gateway-api-crds/ (build).
LOCAL_CHARTS_GATEWAY_API_VERSION="${LOCAL_CHARTS_GATEWAY_API_VERSION:-v1.6.1}"
[[ "$LOCAL_CHARTS_GATEWAY_API_VERSION" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "LOCAL_CHARTS_GATEWAY_API_VERSION: expected a release like v1.6.1, found '$LOCAL_CHARTS_GATEWAY_API_VERSION'"

# Packaged charts (<chart>-<version>.tgz) and the report of the last build, per Helm version.
LOCAL_CHARTS_PACKAGES="${LOCAL_CHARTS_PACKAGES:-$CACHE_ROOT/local-charts-packages}"
# Runtime state of a running repository: PKI, registry storage, served files, pids, logs.
LOCAL_CHARTS_STATE="${LOCAL_CHARTS_STATE:-$CACHE_ROOT/local-charts}"
# Where the repository listens: one IPv4 address (also in the serving certificate, with 127.0.0.1
# and localhost), the OCI registry's port and the HTTPS chart repository's port.
LOCAL_CHARTS_ADDRESS="${LOCAL_CHARTS_ADDRESS:-127.0.0.1}"
LOCAL_CHARTS_OCI_PORT="${LOCAL_CHARTS_OCI_PORT:-5443}"
LOCAL_CHARTS_HTTPS_PORT="${LOCAL_CHARTS_HTTPS_PORT:-5444}"
[[ "$LOCAL_CHARTS_ADDRESS" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "LOCAL_CHARTS_ADDRESS: expected an IPv4 address, found '$LOCAL_CHARTS_ADDRESS'"
for p in "$LOCAL_CHARTS_OCI_PORT" "$LOCAL_CHARTS_HTTPS_PORT"; do
  [[ "$p" =~ ^[0-9]{2,5}$ ]] || die "LOCAL_CHARTS_OCI_PORT / LOCAL_CHARTS_HTTPS_PORT: expected a port number, found '$p'"
done

# helm with its configuration, cache and registry logins kept in DIR (never in ~).
helm_in() { # DIR ARGS...
  local home="$1"; shift
  HELM_CONFIG_HOME="$home/config" HELM_CACHE_HOME="$home/cache" HELM_DATA_HOME="$home/data" "$HELM_BIN" "$@"
}
