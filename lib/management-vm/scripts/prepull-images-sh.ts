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
export const MANIFEST_IMAGES_AWK = String.raw`function qualified(ref,    parts, last) {
  if (split(ref, parts, "/") == 1) ref = "docker.io/library/" ref
  else if (parts[1] !~ /[.:]/ && parts[1] != "localhost") ref = "docker.io/" ref
  last = ref
  sub(/.*\//, "", last)
  if (last !~ /[:@]/) ref = ref ":latest"
  return ref
}
/^[ \t]*(-[ \t]+)?image:[ \t]*[^ \t]/ {
  v = $0
  sub(/^[ \t]*(-[ \t]+)?image:[ \t]*/, "", v)
  sub(/[ \t]+#.*$/, "", v)
  sub(/[ \t]+$/, "", v)
  gsub(/^["']|["']$/, "", v)
  if (v != "" && v !~ /[$][{(]/) print qualified(v)
}`;

/**
 * awk program: the snapshotter of containerd's CRI plugin from `containerd config dump` (config
 * version 2 of containerd 1.x and version 3 of containerd 2.x), as `kind load` finds it. Images
 * unpacked for another snapshotter would not start.
 */
export const CONTAINERD_SNAPSHOTTER_AWK = String.raw`{
  line = $0
  sub(/^[ \t]+/, "", line)
}
line ~ /^\[/ {
  section = line
  gsub(/["']/, "", section)
  next
}
(section == "[plugins.io.containerd.grpc.v1.cri.containerd]" || section == "[plugins.io.containerd.cri.v1.images]") && line ~ /^snapshotter[ \t]*=/ {
  sub(/^snapshotter[ \t]*=[ \t]*/, "", line)
  gsub(/["']/, "", line)
  print line
  exit
}`;

/**
 * Pulls every image the verified provider manifests name (ORC, cert-manager, the providers) into
 * the kind node's containerd while the cluster is still starting, all at once, so that the pods of
 * `clusterctl init` find their images in place instead of waiting for the kubelet's one-at-a-time
 * pulls. Started in the background by create-kind-cluster.sh; best effort: what it cannot pull,
 * the kubelet pulls when a pod needs it.
 */
export function renderPrepullImagesSh(manifestRepository: string): string {
  if (!/^\/[a-z0-9/_-]+$/.test(manifestRepository)) throw new Error(`manifestRepository: expected an absolute path, found "${manifestRepository}"`);
  return `#!/usr/bin/env bash
# Pre-pulls the images of the verified manifests into the kind node. Usage: $0 NODE_CONTAINER
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly NODE=\${1:?usage: $0 NODE_CONTAINER}
# CAPI_BOOTSTRAP_REPOSITORY_DIR exists for tests; on the VM the default applies.
readonly REPO_DIR=\${CAPI_BOOTSTRAP_REPOSITORY_DIR:-${manifestRepository}}
readonly HOSTS_DIR=${NODE_CONTAINERD_CERTS_DIR}

mapfile -t images < <(awk '${MANIFEST_IMAGES_AWK.replace(/'/g, `'\\''`)}' "$REPO_DIR"/*/*/*.yaml | sort -u)
if ((\${#images[@]} == 0)); then
  log "no images named in $REPO_DIR; nothing to pre-pull"
  exit 0
fi

# kind rewrites containerd's configuration and restarts it before kubeadm init writes the API
# server's certificate: from then on a pull is not cut short by that restart.
deadline=$((SECONDS + ${PREPULL_NODE_WAIT_SECONDS}))
until docker exec "$NODE" test -e /etc/kubernetes/pki/apiserver.crt 2>/dev/null && docker exec "$NODE" ctr version >/dev/null 2>&1; do
  if ((SECONDS >= deadline)); then
    log "the kind node $NODE did not come up within ${PREPULL_NODE_WAIT_SECONDS}s; not pre-pulling (the kubelet pulls the images)"
    exit 0
  fi
  sleep 1
done

snapshotter=$(docker exec "$NODE" containerd config dump 2>/dev/null | awk '${CONTAINERD_SNAPSHOTTER_AWK.replace(/'/g, `'\\''`)}') || true
if [[ -z $snapshotter ]]; then
  log "cannot tell the snapshotter of containerd in $NODE; not pre-pulling (the kubelet pulls the images)"
  exit 0
fi
pull_args=(--snapshotter "$snapshotter")
# the registry mirrors of the user data, as the kubelet's pulls use them
if docker exec "$NODE" test -d "$HOSTS_DIR"; then
  pull_args+=(--hosts-dir "$HOSTS_DIR")
fi

# pull REF: one image into the kubelet's namespace, bounded.
pull() {
  local ref=$1 started=$SECONDS
  if timeout ${PREPULL_IMAGE_SECONDS} docker exec "$NODE" ctr --namespace k8s.io images pull "\${pull_args[@]}" "$ref" >/dev/null 2>&1; then
    log "pre-pulled $ref in $((SECONDS - started))s"
  else
    log "could not pre-pull $ref; the kubelet pulls it when a pod needs it"
  fi
}

log "pre-pulling \${#images[@]} images into $NODE (snapshotter $snapshotter)"
started=$SECONDS
for image in "\${images[@]}"; do
  pull "$image" &
done
wait
log "pre-pull finished in $((SECONDS - started))s"
`;
}
