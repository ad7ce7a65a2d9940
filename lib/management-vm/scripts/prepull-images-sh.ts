import { NODE_CONTAINERD_CERTS_DIR } from '../kind-config';

export const PREPULL_IMAGES_SH = 'prepull-images.sh';

/** Seconds the pre-pull waits for the kind node's containerd before it gives up (quietly). */
export const PREPULL_NODE_WAIT_SECONDS = 600;
/** Seconds one image pull may take before the pre-pull gives up on it. */
export const PREPULL_IMAGE_SECONDS = 300;

/**
 * awk program: the image of every container in the YAML it reads (`image: <ref>`, quoted or not,
 * as a list item or not), one per line, named as containerd names it (`docker.io/library/…:latest`
 * for short names); references that still carry a template variable are left out (only clusterctl
 * would know their value).
 */
export const MANIFEST_IMAGES_AWK = String.raw`function q(r,  p, l) {
  if (split(r, p, "/") == 1) r = "docker.io/library/" r
  else if (p[1] !~ /[.:]/ && p[1] != "localhost") r = "docker.io/" r
  l = r; sub(/.*\//, "", l)
  return l ~ /[:@]/ ? r : r ":latest"
}
/^[ \t]*(-[ \t]+)?image:[ \t]*[^ \t]/ {
  v = $0; sub(/^[ \t]*(-[ \t]+)?image:[ \t]*/, "", v); sub(/[ \t]+(#.*)?$/, "", v); gsub(/^["']|["']$/, "", v)
  if (v != "" && v !~ /[$][{(]/) print q(v)
}`;

/**
 * awk program: the snapshotter of containerd's CRI plugin from `containerd config dump` (config
 * version 2 of containerd 1.x and version 3 of containerd 2.x), as `kind load` finds it. Images
 * unpacked for another snapshotter would not start.
 */
export const CONTAINERD_SNAPSHOTTER_AWK = String.raw`{ l = $0; sub(/^[ \t]+/, "", l) }
l ~ /^\[/ { s = l; gsub(/["']/, "", s); next }
(s == "[plugins.io.containerd.grpc.v1.cri.containerd]" || s == "[plugins.io.containerd.cri.v1.images]") && l ~ /^snapshotter[ \t]*=/ { sub(/^[^=]*=[ \t]*/, "", l); gsub(/["']/, "", l); print l; exit }`;

/**
 * Pulls every image the verified provider manifests name (ORC, cert-manager, the providers) into
 * the kind node's containerd while the cluster is still starting, all at once, so that the pods of
 * `clusterctl init` find their images in place instead of waiting for the kubelet's one-at-a-time
 * pulls. Started in the background by create-kind-cluster.sh; best effort: what it cannot pull,
 * the kubelet pulls when a pod needs it.
 */
export function renderPrepullImagesSh(manifestRepository: string): string {
  if (!/^\/[a-z0-9/_-]+$/.test(manifestRepository)) throw new Error(`manifestRepository: expected an absolute path, found "${manifestRepository}"`);
  const q = (awk: string) => `'${awk.replace(/'/g, `'\\''`)}'`;
  return `#!/usr/bin/env bash
# Pre-pulls the images of the verified manifests into the kind node. Usage: $0 NODE_CONTAINER
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly NODE=\${1:?usage: $0 NODE_CONTAINER}
readonly REPO_DIR=\${CAPI_BOOTSTRAP_REPOSITORY_DIR:-${manifestRepository}}
mapfile -t images < <(awk ${q(MANIFEST_IMAGES_AWK)} "$REPO_DIR"/*/*/*.yaml | sort -u)
((\${#images[@]})) || exit 0

# kind restarts containerd with its configuration before kubeadm init writes the API server's
# certificate, and the kubelet runs once kubeadm has started it: pulls begin after both, so they
# are not cut short and do not hold up the control plane's start.
deadline=$((SECONDS + ${PREPULL_NODE_WAIT_SECONDS}))
until docker exec "$NODE" test -e /etc/kubernetes/pki/apiserver.crt 2>/dev/null && docker exec "$NODE" systemctl is-active --quiet kubelet.service; do
  ((SECONDS < deadline)) || { log "no kind node after ${PREPULL_NODE_WAIT_SECONDS}s; not pre-pulling"; exit 0; }
  sleep 1
done
snapshotter=$(docker exec "$NODE" containerd config dump 2>/dev/null | awk ${q(CONTAINERD_SNAPSHOTTER_AWK)}) || true
[[ -n $snapshotter ]] || { log "unknown containerd snapshotter in $NODE; not pre-pulling"; exit 0; }
args=(--snapshotter "$snapshotter")
# the registry mirrors of the user data, as the kubelet's pulls use them
if docker exec "$NODE" test -d ${NODE_CONTAINERD_CERTS_DIR}; then
  args+=(--hosts-dir ${NODE_CONTAINERD_CERTS_DIR})
fi

# pull REF: one image into the kubelet's namespace, bounded; the kubelet pulls what fails here.
pull() {
  local started=$SECONDS
  if timeout ${PREPULL_IMAGE_SECONDS} docker exec "$NODE" ctr -n k8s.io images pull "\${args[@]}" "$1" >/dev/null 2>&1; then
    log "pre-pulled $1 in $((SECONDS - started))s"
  else
    log "could not pre-pull $1"
  fi
}

log "pre-pulling \${#images[@]} images into $NODE"
for image in "\${images[@]}"; do
  pull "$image" &
done
wait
log "pre-pull done"
`;
}
