# shellcheck shell=bash
# shellcheck source-path=SCRIPTDIR
# Shared helpers for scripts/local-images/*. Sourced, not executed.
# The add-ons' images, built here from the Go modules that carry their binaries (no image registry
# is reachable from the machines that build this project), pushed to the site's registry mirror.

LOCAL_IMAGES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# CACHE_ROOT, need, go_mod_dir, with_heartbeat come from local-kube; binary_image, push_image,
# registry_has, test_dockerd and LOCAL_VM_REGISTRY from local-vm.
# shellcheck source=../local-kube/lib.sh
. "$LOCAL_IMAGES_DIR/../local-kube/lib.sh"
# shellcheck source=../local-vm/lib.sh
. "$LOCAL_IMAGES_DIR/../local-vm/lib.sh"

log() { printf '[local-images %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[local-images] ERROR: %s\n' "$*" >&2; exit 1; }

# The images, one row each:
#   name | Go module | module version | main package | image (name:tag the chart asks for) | entrypoint | -X flags [| go mod edit flags]
# The image name and tag are what the chart the local chart mirror holds renders by default (its
# values' repository and its appVersion), so the product's values pull them through the nodes'
# registry mirror unchanged. In the -X flags, {v} is the module version. The optional last column
# edits the copy's go.mod before the build (then go.sum is completed from the proxy, checked
# against the checksum database as usual).
# shellcheck disable=SC2034  # read by build
LOCAL_IMAGES_SOURCES=(
  # Chart 3.13.1 (module v0.9.0's tree, the one the chart mirror holds) asks for metrics-server
  # v0.8.1, which the Go module proxy does not serve (403; it serves v0.7.2, v0.8.0, v0.9.0): the
  # image under v0.8.1's tag is built from v0.8.0, the same minor, and says v0.8.0 in its version.
  "metrics-server|sigs.k8s.io/metrics-server|v0.8.0|./cmd/metrics-server|registry.k8s.io/metrics-server/metrics-server:v0.8.1|/metrics-server|-X k8s.io/client-go/pkg/version.gitVersion={v}"
  # charts 2.36.0 of k8s.io/cloud-provider-openstack@v1.36.0 ask for their appVersion, v1.36.0
  "openstack-cloud-controller-manager|k8s.io/cloud-provider-openstack|v1.36.0|./cmd/openstack-cloud-controller-manager|registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.36.0|/bin/openstack-cloud-controller-manager|-X k8s.io/component-base/version.gitVersion={v} -X k8s.io/cloud-provider-openstack/pkg/version.Version={v}"
  "cinder-csi-plugin|k8s.io/cloud-provider-openstack|v1.36.0|./cmd/cinder-csi-plugin|registry.k8s.io/provider-os/cinder-csi-plugin:v1.36.0|/bin/cinder-csi-plugin|-X k8s.io/component-base/version.gitVersion={v} -X k8s.io/cloud-provider-openstack/pkg/version.Version={v}"
  # The Cinder CSI chart's (2.36.0) controller sidecars, at the tags its values name. The proxy
  # refuses external-attacher v4.10.0 (403) and lists v4.12.0 and v4.13.0: the image under
  # v4.10.0's tag is built from v4.12.0, the nearest served, and says v4.12.0 in its version.
  "csi-provisioner|github.com/kubernetes-csi/external-provisioner/v5|v5.3.0|./cmd/csi-provisioner|registry.k8s.io/sig-storage/csi-provisioner:v5.3.0|/csi-provisioner|-X main.version={v}"
  "csi-attacher|github.com/kubernetes-csi/external-attacher/v4|v4.12.0|./cmd/csi-attacher|registry.k8s.io/sig-storage/csi-attacher:v4.10.0|/csi-attacher|-X main.version={v}"
  "csi-resizer|github.com/kubernetes-csi/external-resizer|v1.14.0|./cmd/csi-resizer|registry.k8s.io/sig-storage/csi-resizer:v1.14.0|/csi-resizer|-X main.version={v}"
  # external-snapshotter's go.mod replaces its client module by ./client, a nested module its
  # module zip leaves out: the client of the same release from the proxy instead
  "csi-snapshotter|github.com/kubernetes-csi/external-snapshotter/v8|v8.4.0|./cmd/csi-snapshotter|registry.k8s.io/sig-storage/csi-snapshotter:v8.4.0|/csi-snapshotter|-X main.version={v}|-replace=github.com/kubernetes-csi/external-snapshotter/client/v8=github.com/kubernetes-csi/external-snapshotter/client/v8@v8.4.0"
  # livenessprobe's module (github.com/kubernetes-csi/livenessprobe/v2) is not served: the image
  # under the chart's tag holds a stand-in written here (standins/livenessprobe: the sidecar's
  # flags and its /healthz, an Identity Probe of the driver), built in a copy of the module above,
  # whose graph carries the CSI spec and gRPC. The node plugin's node-driver-registrar is not built.
  "livenessprobe|k8s.io/cloud-provider-openstack|v1.36.0|standin:livenessprobe|registry.k8s.io/sig-storage/livenessprobe:v2.17.0|/livenessprobe|"
  # The traefik chart 41.6.0 asks for docker.io/traefik:v3.7.13 (containerd names it
  # docker.io/library/traefik). Eight module versions Traefik v3.7.13 needs are not served: its fork
  # of go-http-auth (the basic and digest auth middlewares) and the SDKs of six ACME DNS providers.
  # Built (prepare_traefik) with stand-ins written here for the fork (standins/traefik-go-http-auth:
  # its API, refusing every credential, so basicAuth and digestAuth routes answer 401) and for
  # Traefik's nested module dynamic/ext, which its module zip leaves out (standins/
  # traefik-dynamic-ext: two empty types), and with lego's DNS provider list without those six.
  # None of it is on the Gateway API path the tests use.
  "traefik|github.com/traefik/traefik/v3|v3.7.13|./cmd/traefik|docker.io/library/traefik:v3.7.13|/usr/local/bin/traefik|-X github.com/traefik/traefik/v3/pkg/version.Version={v}|-replace=github.com/abbot/go-http-auth=./local-go-http-auth -replace=github.com/go-acme/lego/v5=./local-lego"
)

# Work a copy of a module needs before its build, by image name: a function of this file, called
# with the copy's folder (build_binary), before the table's go.mod edits.
declare -A LOCAL_IMAGES_PREPARE=([traefik]=prepare_traefik)

# The ACME DNS providers of lego that Traefik cannot be built with here (their SDKs' module
# versions are not served by the Go module proxy), by the names lego's provider list uses.
TRAEFIK_UNBUILDABLE_DNS_PROVIDERS=(edgedns huaweicloud oraclecloud sakuracloud ucloud yandexcloud)

# prepare_traefik WORK: a copy of the lego release Traefik requires, in WORK/local-lego, whose DNS
# provider list (providers/dns/zz_gen_dns_providers.go, generated by lego's release tooling) leaves
# out TRAEFIK_UNBUILDABLE_DNS_PROVIDERS: their imports and their cases. An ACME DNS challenge
# naming one of them then gets lego's "unrecognized DNS provider" error. Also the two stand-ins
# (the table's comment above) where Traefik's go.mod edits and replace directives look for them.
prepare_traefik() {
  local work="$1" lego version list p
  version="$(awk '$1 == "require" { $0 = substr($0, index($0, $2)) } $1 == "github.com/go-acme/lego/v5" { print $2; exit }' "$work/go.mod")"
  [ -n "$version" ] || die "prepare_traefik: no github.com/go-acme/lego/v5 in Traefik's go.mod"
  lego="$(go_mod_dir github.com/go-acme/lego/v5 "$version")"
  mkdir -p "$work/local-lego"
  cp -r "$lego/." "$work/local-lego/"
  chmod -R u+w "$work/local-lego"
  list="$work/local-lego/providers/dns/zz_gen_dns_providers.go"
  [ -f "$list" ] || die "prepare_traefik: no providers/dns/zz_gen_dns_providers.go in lego $version"
  for p in "${TRAEFIK_UNBUILDABLE_DNS_PROVIDERS[@]}"; do
    grep -q "^	\"github.com/go-acme/lego/v5/providers/dns/$p\"\$" "$list" || die "prepare_traefik: lego $version does not import provider $p as expected"
    # the import line, and the case whose body calls the provider's constructor
    sed -i -e "\|^	\"github.com/go-acme/lego/v5/providers/dns/$p\"\$|d" \
      -e "/^	case .*:\$/{N;/\n		return $p\.NewDNSProvider()\$/d}" "$list"
    ! grep -q "\b$p\." "$list" || die "prepare_traefik: provider $p is still used in lego's provider list"
    rm -rf "$work/local-lego/providers/dns/$p"
  done
  # Traefik's fork of go-http-auth, a stand-in written here that refuses every credential
  mkdir -p "$work/local-go-http-auth"
  cp "$LOCAL_IMAGES_DIR/standins/traefik-go-http-auth/"* "$work/local-go-http-auth/"
  # Traefik's go.mod replaces its nested module github.com/traefik/traefik/dynamic/ext by this
  # folder, which the module zip leaves out (and the proxy does not serve): a stand-in written here
  mkdir -p "$work/pkg/config/dynamic/ext"
  cp "$LOCAL_IMAGES_DIR/standins/traefik-dynamic-ext/"* "$work/pkg/config/dynamic/ext/"
}

# Charts that name the binary as the container's first argument (`args: [/bin/<binary>, ...]`, no
# `command`): the upstream images set it as CMD, not ENTRYPOINT (OCCM's pod exited with
# '"cloud-controller-manager" does not take any arguments, got ["/bin/openstack-cloud-controller-manager"]'
# from an ENTRYPOINT image), so these images do too.
# shellcheck disable=SC2034  # read by build
LOCAL_IMAGES_RUN_AS_COMMAND=(openstack-cloud-controller-manager cinder-csi-plugin)
runs_as_command() { local n; for n in "${LOCAL_IMAGES_RUN_AS_COMMAND[@]}"; do [ "$n" = "$1" ] && return 0; done; return 1; }

# as_command_image IMAGE ENTRY KEY: IMAGE again, with ENTRY as its CMD and no ENTRYPOINT (its file
# system exported from a container created, never started, from it, imported again with the same
# user, working directory and KEY label; `docker commit` cannot clear an ENTRYPOINT).
as_command_image() {
  local c
  c="$(docker create "$1")" || die "docker create $1 failed"
  docker export "$c" | docker import --change "CMD [\"$2\"]" --change 'USER 65532:65532' --change 'WORKDIR /' \
    --change "LABEL $LOCAL_VM_IMAGE_LABEL=$3" - "$1" > /dev/null || { docker rm "$c" > /dev/null; die "importing $1 again failed"; }
  docker rm "$c" > /dev/null
}

# image_row NAME: the table's row of NAME (dies when there is none).
image_row() {
  local row
  for row in "${LOCAL_IMAGES_SOURCES[@]}"; do
    [ "${row%%|*}" = "$1" ] && { printf '%s\n' "$row"; return 0; }
  done
  die "no image named '$1' (known: $(image_names | tr '\n' ' '))"
}
image_names() { local row; for row in "${LOCAL_IMAGES_SOURCES[@]}"; do printf '%s\n' "${row%%|*}"; done; }

# standin_source PACKAGE: the folder of a stand-in written here (`standin:<name>` in the table's
# package column), empty for a package of the module itself.
standin_source() { case "$1" in standin:*) printf '%s/standins/%s\n' "$LOCAL_IMAGES_DIR" "${1#standin:}" ;; esac; }

# build_key NAME: what the cached binary of NAME must have been built from: its table row, and for
# a stand-in the hash of its sources (an edit of them builds again).
build_key() {
  local row src
  row="$(image_row "$1")"
  printf '%s\n' "$row"
  IFS='|' read -r _ _ _ pkg _ <<<"$row"
  src="$(standin_source "$pkg")"
  if [ -n "$src" ]; then (cd "$src" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1); fi
  # a preparation's recipe (its function's text and the stand-ins named after the image): an edit
  # of either builds again
  if [ -n "${LOCAL_IMAGES_PREPARE[$1]:-}" ]; then
    { declare -f "${LOCAL_IMAGES_PREPARE[$1]}"; (cd "$LOCAL_IMAGES_DIR/standins" && find . -path "./$1-*" -type f | LC_ALL=C sort | xargs -r sha256sum); } | sha256sum | cut -d' ' -f1
  fi
}

# image_binary NAME VERSION: where the binary of NAME at VERSION is cached.
image_binary() { printf '%s/local-images-%s-%s/%s\n' "$CACHE_ROOT" "$1" "$2" "$1"; }
