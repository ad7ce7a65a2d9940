import { BOOTSTRAP_PATHS } from '../paths';
import { shellQuote } from '../shell-quote';
import { PREPULL_IMAGES_SH } from './prepull-images-sh';

export interface KindClusterScriptProps {
  readonly clusterName: string;
  /** kind node image with digest (pulled first, with retries). */
  readonly nodeImage: string;
  readonly apiServerPort: number;
  /**
   * Start prepull-images.sh in the background while the cluster is created (it needs the
   * verified manifests, so only with pinned ones).
   * @default false
   */
  readonly prepullImages?: boolean;
}

export const KIND_CLUSTER_SH = 'create-kind-cluster.sh';

/**
 * Seconds the script waits for kube-proxy to route the API server's Service address. The node is
 * Ready before kube-proxy has written its rules; a controller started in that gap (ORC, cert-manager's
 * webhook, which clusterctl init waits for) cannot reach the API server, gives up after a 30 s
 * timeout and restarts.
 */
export const SERVICE_NETWORK_WAIT_SECONDS = 120;

/**
 * Creates the kind cluster unless it exists (the node image is normally pulled by then, see
 * pull-node-image.sh), optionally pre-pulling the controllers' images into the node meanwhile, writes a root-only kubeconfig that talks to
 * https://127.0.0.1:<port>, waits for the node and for the Service network, and checks that the
 * cluster runs on the CA from the user data (the admin certificate Terraform mints is only valid if
 * it does).
 */
export function renderKindClusterSh(props: KindClusterScriptProps): string {
  const p = BOOTSTRAP_PATHS;
  return `#!/usr/bin/env bash
# Creates the kind management cluster. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly CLUSTER=${shellQuote(props.clusterName)}
readonly NODE_IMAGE=${shellQuote(props.nodeImage)}
readonly API_PORT=${props.apiServerPort}
readonly KIND_CONFIG=${p.kindConfig}
readonly CA_CERT=${p.caCertificate}
readonly CA_KEY=${p.caPrivateKey}
readonly OUT_KUBECONFIG=${p.kubeconfig}

for f in "$CA_CERT" "$CA_KEY" "$KIND_CONFIG"; do
  [[ -s $f ]] || die "$f is missing or empty (it is written by cloud-init from the user data)"
done
chmod 0600 "$CA_KEY"

if kind get clusters 2>/dev/null | grep -qxF "$CLUSTER"; then
  log "kind cluster $CLUSTER already exists"
else
  if ! docker image inspect "$NODE_IMAGE" >/dev/null 2>&1; then
    log "pulling $NODE_IMAGE"
    retry 5 20 docker pull -q "$NODE_IMAGE" >/dev/null
  fi
${props.prepullImages ? `  # not waited for: clusterctl-init can start while the last images arrive
  "$(dirname "$0")/${PREPULL_IMAGES_SH}" "$CLUSTER-control-plane" &
` : ''}  log "creating kind cluster $CLUSTER (a few minutes)"
  kind create cluster --config "$KIND_CONFIG" --kubeconfig "$OUT_KUBECONFIG" --wait 10m
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
kind get kubeconfig --name "$CLUSTER" >"$tmp"
kubectl --kubeconfig "$tmp" config set-cluster "kind-$CLUSTER" --server "https://127.0.0.1:$API_PORT" >/dev/null
install -m 0600 "$tmp" "$OUT_KUBECONFIG"
log "kubeconfig for local use: $OUT_KUBECONFIG"

retry 60 5 kubectl --kubeconfig "$OUT_KUBECONFIG" get --raw /readyz >/dev/null
kubectl --kubeconfig "$OUT_KUBECONFIG" wait --for=condition=Ready node --all --timeout=300s

svc=$(kubectl --kubeconfig "$OUT_KUBECONFIG" get svc kubernetes -o jsonpath='{.spec.clusterIP}')
[[ $svc =~ ^[0-9a-fA-F.:]+$ ]] || die "no Service IP: '$svc'"
s=$SECONDS
until docker exec "$CLUSTER-control-plane" timeout 2 bash -c ">/dev/tcp/$svc/443" 2>/dev/null; do
  ((SECONDS - s < ${SERVICE_NETWORK_WAIT_SECONDS})) || die "kube-proxy does not route $svc:443"
  sleep 1
done
log "Service network up after $((SECONDS - s))s"

served_ca=$(kubectl --kubeconfig "$OUT_KUBECONFIG" config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d | openssl x509 -noout -fingerprint -sha256)
given_ca=$(openssl x509 -in "$CA_CERT" -noout -fingerprint -sha256)
if [[ $served_ca != "$given_ca" ]]; then
  die "the cluster does not use the CA from the user data ($given_ca, cluster has $served_ca); delete it with 'kind delete cluster --name $CLUSTER' and run the bootstrap again"
fi
log "kind cluster $CLUSTER is ready and uses the provided CA ($given_ca)"
`;
}
