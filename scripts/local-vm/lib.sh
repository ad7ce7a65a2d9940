# shellcheck shell=bash disable=SC2034
# Shared helpers for scripts/local-vm/*. Sourced, not executed.
# Test tooling only: builds the images the management VM's stand-in needs, here, from Debian's
# packages and Go modules (no image registry is reachable from the machines that build this project).

LOCAL_VM_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_ROOT="${CAPI_OPENSTACK_CDKTF_CACHE:-$HOME/.cache/capi-openstack-cdktf}"
LOCAL_VM_CACHE="${LOCAL_VM_CACHE:-$CACHE_ROOT/local-vm}"
# The Debian release every rootfs is made from; the mirror is the one apt uses on this machine.
LOCAL_VM_SUITE="${LOCAL_VM_SUITE:-bookworm}"
LOCAL_VM_MIRROR="${LOCAL_VM_MIRROR:-http://deb.debian.org/debian}"
# The test dockerd: its own data root, socket, bridge and address range (never the host's docker).
LOCAL_VM_DOCKER_ROOT="${LOCAL_VM_DOCKER_ROOT:-$CACHE_ROOT/local-vm-docker}"
LOCAL_VM_DOCKER_SOCK="${LOCAL_VM_DOCKER_SOCK:-$LOCAL_VM_DOCKER_ROOT/run/docker.sock}"
LOCAL_VM_BRIDGE="${LOCAL_VM_BRIDGE:-lvm-docker0}"
LOCAL_VM_BRIDGE_CIDR="${LOCAL_VM_BRIDGE_CIDR:-172.30.250.1/24}"
LOCAL_VM_DOCKERD_PIDFILE="$LOCAL_VM_DOCKER_ROOT/run/dockerd.pid"
# test_dockerd_running: the process dockerd's pid file names is this dockerd (its command line
# names this data root). dockerd writes that file itself, without a start time, and refuses to
# start while the number in it names any live process: a stale file's number can by then belong
# to another one.
test_dockerd_running() {
  local pid
  pid="$(cat "$LOCAL_VM_DOCKERD_PIDFILE" 2>/dev/null)" && [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--data-root $LOCAL_VM_DOCKER_ROOT/data "
}

# shellcheck source=../lib/pidfile.sh
. "$LOCAL_VM_DIR/../lib/pidfile.sh"

log() { printf '[local-vm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[local-vm] ERROR: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found in PATH ($2)"; }

# Packages of each rootfs, by role. The cache key is the suite plus this list, so changing a list
# rebuilds that rootfs only.
# standin: the management VM stand-in. systemd is PID 1 because the user data is cloud-init, which
# runs in systemd's boot stages and writes systemd units (docker, the metadata block).
# locales: cloud-init's locale module fails without it (Ubuntu's cloud images have it).
# cloud-init and docker.io are installed by apt inside the rootfs after debootstrap (ROOTFS_APT_*):
# debootstrap's own configure pass fails on python3-cryptography when cloud-init is --include'd.
ROOTFS_PACKAGES_standin="systemd,systemd-sysv,dbus,ca-certificates,curl,iproute2,iptables,openssl,python3,procps,kmod,sudo,gnupg"
ROOTFS_APT_standin="cloud-init docker.io locales"
# kindbase: kind's node base (systemd + containerd + runc + CNI plugins + the tools kubeadm calls).
ROOTFS_PACKAGES_kindbase="systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,iproute2,conntrack,socat,ethtool,ebtables,kmod,mount,util-linux,ca-certificates,procps,libseccomp2,bash,findutils,hostname,curl"
# workload: the workload node stand-in (build-workload-images): kind's node base plus cloud-init,
# what an image-builder CAPI image boots with on a real cloud (locales: as for standin).
ROOTFS_PACKAGES_workload="$ROOTFS_PACKAGES_kindbase"
ROOTFS_APT_workload="cloud-init locales"
# amphora: the stand-in of an Octavia amphora (amphora-up): Debian's haproxy, as real amphorae run.
ROOTFS_PACKAGES_amphora="haproxy,iproute2,procps"

# rootfs_tarball ROLE -> the cached tarball path for that role's package list.
rootfs_tarball() {
  local var="ROOTFS_PACKAGES_$1" key
  [ -n "${!var:-}" ] || die "unknown rootfs role '$1'"
  local apt="ROOTFS_APT_$1"
  key="$(printf '%s %s %s' "$LOCAL_VM_SUITE" "${!var}" "${!apt:-}" | sha256sum | cut -c1-12)"
  printf '%s/rootfs-%s-%s-%s.tar\n' "$LOCAL_VM_CACHE" "$1" "$LOCAL_VM_SUITE" "$key"
}

# compile_product OUT_DIR FILE...: compiles the named lib/ modules (and what they import) to
# CommonJS in OUT_DIR, so a script can call the product's own render functions with node
# (NODE_PATH=<repo>/node_modules).
compile_product() {
  local out="$1" repo
  shift
  repo="$(cd "$LOCAL_VM_DIR/../.." && pwd)"
  (cd "$repo" && npx tsc --outDir "$out" --rootDir . --module commonjs --target es2022 --esModuleInterop \
    --resolveJsonModule --skipLibCheck "$@") || die "compiling $* failed"
}

# The test registry (registry-start): what the stand-in's docker and the kind node's containerd
# reach as the site mirror of registry.k8s.io, quay.io and docker.io.
LOCAL_VM_REGISTRY="${LOCAL_VM_BRIDGE_CIDR%/*}:5000"

# release_image NAME: the image repository a controller's release manifests name (each module's
# Makefile PROD_REGISTRY + IMAGE_NAME; ORC's dist/install.yaml), without the tag. The local image
# carries this name, and the test registry holds it under the same path without the registry host,
# the layout a registry mirror serves.
release_image() {
  case "$1" in
    capi) echo registry.k8s.io/cluster-api/cluster-api-controller ;;
    kubeadm-bootstrap) echo registry.k8s.io/cluster-api/kubeadm-bootstrap-controller ;;
    kubeadm-control-plane) echo registry.k8s.io/cluster-api/kubeadm-control-plane-controller ;;
    capo) echo registry.k8s.io/capi-openstack/capi-openstack-controller ;;
    orc) echo quay.io/orc/openstack-resource-controller ;;
    caaph) echo registry.k8s.io/cluster-api-helm/cluster-api-helm-controller ;;
    *) die "no release image known for controller '$1'" ;;
  esac
}

# registry_has REPOSITORY_PATH TAG: the test registry serves that manifest.
registry_has() {
  curl -fsS --max-time 5 -o /dev/null -I \
    -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
    "http://$LOCAL_VM_REGISTRY/v2/$1/manifests/$2" 2>/dev/null
}

# Images built from one static binary (controllers, cert-manager): no base image is reachable here.
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
LOCAL_VM_IMAGE_LABEL=capi-openstack-cdktf.local-vm.key

# binary_image BIN IMAGE KEY ENTRY: on the test dockerd, `docker import` of a rootfs holding BIN
# at ENTRY (the entrypoint), the host's CA bundle and a passwd naming UID 65532 (the non-root user
# release images run as), labelled with KEY so a later run can tell it is current.
binary_image() {
  local bin="$1" image="$2" key="$3" entry="$4" root
  root="$(mktemp -d "${TMPDIR:-/tmp}/local-vm-image.XXXXXX")"
  mkdir -p "$root/etc/ssl/certs" "$root/tmp" "$root$(dirname "$entry")"
  chmod 1777 "$root/tmp"
  install -m 0755 "$bin" "$root$entry"
  install -m 0644 "$CA_BUNDLE" "$root/etc/ssl/certs/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' > "$root/etc/group"
  nice -n 19 ionice -c3 tar -C "$root" --numeric-owner --owner=0 --group=0 -cf - . \
    | nice -n 19 ionice -c3 docker import \
        --change "ENTRYPOINT [\"$entry\"]" --change 'USER 65532:65532' --change 'WORKDIR /' \
        --change "LABEL $LOCAL_VM_IMAGE_LABEL=$key" - "$image" >/dev/null \
    || { rm -rf "$root"; die "importing $image failed"; }
  rm -rf "$root"
}

# binary_image_recipe: hash of binary_image's definition (part of every image key).
binary_image_recipe() { declare -f binary_image | sha256sum | cut -c1-16; }

# binary_image_key BIN: the key an image of BIN carries: its binary, the CA bundle and the recipe.
binary_image_key() {
  printf '%s %s %s\n' "$(sha256sum "$1" | cut -c1-16)" "$(sha256sum "$CA_BUNDLE" | cut -c1-16)" "$(binary_image_recipe)" | sha256sum | cut -c1-16
}

# binary_image_key_of IMAGE: the key the local image carries (empty when there is none).
binary_image_key_of() {
  docker image inspect -f "{{index .Config.Labels \"$LOCAL_VM_IMAGE_LABEL\"}}" "$1" 2>/dev/null || true
}

# management_ca DIR: a CA as the product's Terraform mints it for the management cluster
# (ca.crt, ca.key; kubeadm reuses it), for the proofs that render the user data without Terraform.
management_ca() {
  mkdir -p "$1"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1/ca.key" -out "$1/ca.crt" -days 2 -subj /CN=kubernetes \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign,digitalSignature 2>/dev/null \
    || die "making a test CA in $1 failed"
}

# push_image IMAGE PATH TAG: pushes IMAGE to the test registry as PATH:TAG.
push_image() {
  local pushed="$LOCAL_VM_REGISTRY/$2:$3"
  docker tag "$1" "$pushed"
  nice -n 19 ionice -c3 docker push -q "$pushed" >/dev/null || die "pushing $pushed failed"
}

# The site mirror (file-server-start): HTTPS on the bridge address, its CA and certificate here.
LOCAL_VM_FILE_SERVER_DIR="$CACHE_ROOT/local-vm-file-server"
LOCAL_VM_FILE_SERVER_PORT="${LOCAL_VM_FILE_SERVER_PORT:-8443}"

# The stand-in network (standin-up with LOCAL_VM_STANDIN_IP): a bridge of the test dockerd whose
# addresses can be fixed; its range is the local cloud's public network (scripts/local-cloud), so
# a stand-in can take a server's floating IP. The stand-in reaches the registry and the file
# server on the test bridge's address, a local address of this machine (no forwarding involved).
# Never a documentation range such as 203.0.113.0/24: the route this bridge adds on the host
# would capture whatever this machine reaches there (here: its egress proxy).
LOCAL_VM_STANDIN_NETWORK="${LOCAL_VM_STANDIN_NETWORK:-lvm-vm}"
LOCAL_VM_STANDIN_SUBNET="${LOCAL_VM_STANDIN_SUBNET:-172.30.251.0/24}"

# standin_network: creates the stand-in network once (needs DOCKER_HOST on the test dockerd).
standin_network() {
  docker network inspect "$LOCAL_VM_STANDIN_NETWORK" >/dev/null 2>&1 && return 0
  docker network create --driver bridge --subnet "$LOCAL_VM_STANDIN_SUBNET" \
    --opt com.docker.network.bridge.name="$LOCAL_VM_STANDIN_NETWORK" "$LOCAL_VM_STANDIN_NETWORK" >/dev/null \
    || die "creating the docker network $LOCAL_VM_STANDIN_NETWORK failed"
}

# push_node_image LOCAL_IMAGE: pushes the locally built kind node image to the test registry as
# kindest/node:<tag> and prints its name pinned by digest (kindest/node:<tag>@sha256:…), the form
# the product's versions.kindNodeImage takes.
push_node_image() {
  local tag="${1##*:}" digest
  docker tag "$1" "$LOCAL_VM_REGISTRY/kindest/node:$tag"
  nice -n 19 ionice -c3 docker push -q "$LOCAL_VM_REGISTRY/kindest/node:$tag" >/dev/null || die "pushing the node image failed"
  digest="$(docker inspect -f '{{range .RepoDigests}}{{println .}}{{end}}' "$1" | sed -n "s#^$LOCAL_VM_REGISTRY/kindest/node@##p" | head -1)"
  [ -n "$digest" ] || die "no digest for $LOCAL_VM_REGISTRY/kindest/node:$tag after the push"
  printf 'kindest/node:%s@%s\n' "$tag" "$digest"
}

# The site the stand-in reaches instead of the internet (start): the mirror's files, and the
# settings that point a management VM at it.
LOCAL_VM_SITE_DIR="$CACHE_ROOT/local-vm-site"
LOCAL_VM_SITE_JSON="$CACHE_ROOT/local-vm-site.json"

# kubeadm_constant NAME: a constant of kubeadm at the node image's Kubernetes version (the image
# tags it asks for: DefaultEtcdVersion, CoreDNSVersion, PauseVersion), read from its module.
kubeadm_constant() {
  local file value
  file="$(go_mod_dir k8s.io/kubernetes "$KUBERNETES_VERSION")/cmd/kubeadm/app/constants/constants.go"
  value="$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\"\([^\"]*\)\"$/\1/p" "$file" | head -1)"
  [ -n "$value" ] || die "no $1 in $file"
  printf '%s\n' "$value"
}

# test_dockerd: points docker at the test dockerd (docker-start) and checks that it runs.
test_dockerd() {
  export DOCKER_HOST="unix://$LOCAL_VM_DOCKER_SOCK"
  docker info >/dev/null 2>&1 || die "the test dockerd is not running (scripts/local-vm/docker-start)"
}

# import_rootfs ROLE: imports build-rootfs ROLE's tarball into the test dockerd once, prints the
# image (local-vm/ROLE-rootfs:<key>).
import_rootfs() {
  local tar key image
  tar="$("$LOCAL_VM_DIR/build-rootfs" "$1" | tail -1)"
  key="${tar##*-}"; key="${key%.tar}"
  image="local-vm/$1-rootfs:$key"
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    log "importing $tar as $image"
    docker import "$tar" "$image" >/dev/null
  fi
  printf '%s\n' "$image"
}

# kubeadm_binary_image NAME:TAG BINARY ENTRYPOINT-NAME [EXTRA_BINARY...]: an image holding one
# static binary in /usr/local/bin (the control-plane images a node carries; no base image is
# reachable here), and the extra binaries beside it under their own names.
kubeadm_binary_image() {
  local d x
  d="$(mktemp -d "${TMPDIR:-/tmp}/local-vm-img.XXXXXX")"
  mkdir -p "$d/usr/local/bin" "$d/tmp" "$d/etc"
  cp "$2" "$d/usr/local/bin/$3"
  for x in "${@:4}"; do cp "$x" "$d/usr/local/bin/"; done
  chmod 1777 "$d/tmp"
  tar -C "$d" --numeric-owner -cf - . | docker import \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
    --change "ENTRYPOINT [\"/usr/local/bin/$3\"]" - "$1" >/dev/null
  rm -rf "$d"
}

# kubeadm_image_archives OUT_DIR NODE_BIN KUBE_BIN BASE_IMAGE: builds, on the test dockerd, the
# images kubeadm $KUBERNETES_VERSION asks for under the names and tags it asks for
# (cmd/kubeadm/app/constants; etcd is the locally built $ETCD_VERSION under kubeadm's tag) from
# build-node-binaries' (NODE_BIN) and local-kube's (KUBE_BIN) binaries, kube-proxy on BASE_IMAGE
# (it calls iptables), and saves each as OUT_DIR/<name>.tar for a node to import at boot.
# KUBE_PROXY_WRAPPER, when given, becomes /usr/local/bin/kube-proxy of that image, the binary
# /usr/local/libexec/kube-proxy (workloadnode/kube-proxy/kube-proxy says why); ETCDCTL, when given,
# goes into the etcd image beside etcd, as in the released image.
# Prints the pause image (containerd's sandbox image).
kubeadm_image_archives() {
  local out="$1" node_bin="$2" kube_bin="$3" base="$4" wrapper="${5:-}" etcdctl="${6:-}" v="$KUBERNETES_VERSION" r=registry.k8s.io pause d i tag
  mkdir -p "$out"
  kubeadm_binary_image "$r/kube-apiserver:$v" "$kube_bin/kube-apiserver" kube-apiserver
  kubeadm_binary_image "$r/kube-controller-manager:$v" "$kube_bin/kube-controller-manager" kube-controller-manager
  kubeadm_binary_image "$r/kube-scheduler:$v" "$node_bin/kube-scheduler" kube-scheduler
  kubeadm_binary_image "$r/etcd:$(kubeadm_constant DefaultEtcdVersion)" "$kube_bin/etcd" etcd ${etcdctl:+"$etcdctl"}
  kubeadm_binary_image "$r/coredns/coredns:$(kubeadm_constant CoreDNSVersion)" "$node_bin/coredns" coredns
  pause="$r/pause:$(kubeadm_constant PauseVersion)"
  kubeadm_binary_image "$pause" "$node_bin/pause" pause
  d="$(mktemp -d "${TMPDIR:-/tmp}/local-vm-kube-proxy.XXXXXX")"
  cp "$node_bin/kube-proxy" "$d/kube-proxy"
  if [ -n "$wrapper" ]; then
    cp "$wrapper" "$d/kube-proxy-wrapper"
    printf 'FROM %s\nCOPY kube-proxy /usr/local/libexec/kube-proxy\nCOPY kube-proxy-wrapper /usr/local/bin/kube-proxy\n' "$base" > "$d/Dockerfile"
  else
    printf 'FROM %s\nCOPY kube-proxy /usr/local/bin/kube-proxy\n' "$base" > "$d/Dockerfile"
  fi
  docker build -q -t "$r/kube-proxy:$v" "$d" >/dev/null
  rm -rf "$d"
  for i in kube-apiserver:$v kube-controller-manager:$v kube-scheduler:$v kube-proxy:$v \
      "etcd:$(kubeadm_constant DefaultEtcdVersion)" "coredns/coredns:$(kubeadm_constant CoreDNSVersion)" "${pause#"$r/"}"; do
    tag="$r/$i"
    i="${i%%:*}"
    docker save -o "$out/${i//\//_}.tar" "$tag"
  done
  printf '%s\n' "$pause"
}

# systemd_container_args NAME [HOSTNAME]: sets SYSTEMD_CONTAINER_ARGS to the `docker create` arguments of a
# machine stand-in: privileged (through runc-wrapper), hostname HOSTNAME (default NAME; Docker sets
# it again on every start, as a VM's OS sets its /etc/hostname on every boot), systemd as PID 1 with its
# own cgroup namespace and tmpfs /run, /tmp, a volume for containerd's data (overlayfs cannot
# stack on the container's overlayfs root). The resolver is the test bridge's address, where
# nothing answers: with a loopback resolver, containers inside would be handed public resolvers.
systemd_container_args() {
  SYSTEMD_CONTAINER_ARGS=(--tty --name "$1" --hostname "${2:-$1}" --privileged --cgroupns=private
    --security-opt seccomp=unconfined --security-opt apparmor=unconfined
    --tmpfs /run --tmpfs /run/lock --tmpfs /tmp --volume /var/lib/containerd
    --dns "${LOCAL_VM_BRIDGE_CIDR%/*}")
}

# nocloud_seed_arg SEED_DIR: the --volume argument that makes SEED_DIR (user-data, meta-data)
# cloud-init's NoCloud seed, as a VM reads its config drive.
nocloud_seed_arg() {
  { [ -s "$1/user-data" ] && [ -e "$1/meta-data" ]; } || die "$1 needs user-data and meta-data"
  printf -- '--volume=%s:/var/lib/cloud/seed/nocloud:ro\n' "$(cd "$1" && pwd)"
}

# trust_ca NAME CA_FILE: adds a PEM CA to the created (not yet started) container's trust store, as
# a site's image that trusts its own mirror's CA.
trust_ca() {
  local trust
  [ -s "$2" ] || die "LOCAL_VM_TRUST_CA: no file $2"
  trust="$(mktemp -d)"
  docker cp "$1:/etc/ssl/certs/ca-certificates.crt" "$trust/bundle.crt"
  cat "$2" >> "$trust/bundle.crt"
  docker cp "$2" "$1:/usr/local/share/ca-certificates/local-vm-site.crt"
  docker cp "$trust/bundle.crt" "$1:/etc/ssl/certs/ca-certificates.crt"
  rm -rf "$trust"
}

# wait_booted NAME WITH_SEED T0: waits (LOCAL_VM_BOOT_TIMEOUT seconds, default 120) until the
# container's systemd has booted. With user data (WITH_SEED non-empty), cloud-init's final stage
# (its runcmd) holds systemd in "starting" until it ends, as on a VM: booted enough once
# cloud-init runs.
wait_booted() {
  local name="$1" seed="$2" t0="$3" state="" limit="${LOCAL_VM_BOOT_TIMEOUT:-120}"
  for _ in $(seq "$limit"); do
    state="$(docker exec "$name" systemctl is-system-running 2>/dev/null || true)"
    case "$state" in running|degraded) break ;; esac
    if [ -n "$seed" ] && [ "$state" = starting ] && docker exec "$name" cloud-init status 2>/dev/null | grep -q 'status: running'; then break; fi
    sleep 1
  done
  case "$state" in
    running|degraded|starting) log "$name booted ($state) in $(( $(date +%s) - t0 ))s" ;;
    *) docker logs --tail 40 "$name" >&2 || true; die "$name did not boot in $limit s (systemd: '$state')" ;;
  esac
  if [ "$state" = degraded ]; then docker exec "$name" systemctl --failed --no-legend >&2 || true; fi
}

# The label of node networks (node-network-up), so docker-stop finds those a run left behind.
LOCAL_VM_NODE_NETWORK_LABEL=capi-openstack-cdktf.local-vm.role=node-network
# node_bridge_name NETWORK: the bridge device of a node network (node-network-up): unique per
# network name and within the 15 characters a Linux interface name allows.
node_bridge_name() { printf 'lvmn-%s\n' "$(printf '%s' "$1" | sha256sum | cut -c1-10)"; }

# valid_ipv4 VALUE, valid_ipv4_cidr VALUE: the shapes the node and amphora scripts take.
valid_ipv4() { [[ "$1" =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}$ ]]; }
valid_ipv4_cidr() { [[ "$1" =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$ ]]; }

# local_vm_files_hash PATH...: a hash of the files under these paths of scripts/local-vm (part of
# an image's key).
local_vm_files_hash() {
  (cd "$LOCAL_VM_DIR" && find "$@" -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-12
}

# amphora_image: the amphora stand-in's image (amphora/Dockerfile on build-rootfs amphora), built on
# the test dockerd when missing; prints its name, local-vm/amphora:<key of files and rootfs>.
amphora_image() {
  local base image
  base="$(import_rootfs amphora)"
  image="local-vm/amphora:$(printf '%s %s\n' "$(local_vm_files_hash amphora)" "$base" | sha256sum | cut -c1-12)"
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    log "building $image"
    docker build -q --build-arg "ROOTFS=$base" -t "$image" "$LOCAL_VM_DIR/amphora" >/dev/null || die "building $image failed"
  fi
  printf '%s\n' "$image"
}
