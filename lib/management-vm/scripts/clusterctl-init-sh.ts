import { BOOTSTRAP_STATUS_CONFIGMAP } from '../paths';
import { shellQuote } from '../shell-quote';
import { CLUSTERCTL_CONFIG_FILE } from './fetch-manifests-sh';

export interface ClusterctlInitScriptProps {
  /** Core, kubeadm bootstrap and kubeadm control plane provider version. */
  readonly clusterApi: string;
  readonly capo: string;
  readonly caaph: string;
  /** openstack-resource-controller (ORC) release CAPO depends on. */
  readonly orc: string;
  /** Recorded in the status ConfigMap. */
  readonly kindNodeImage: string;
  /**
   * Local clusterctl repository of verified manifests (written by fetch-manifests.sh): ORC and
   * the providers are installed from there with its clusterctl configuration.
   * @default - ORC from its GitHub release, providers fetched by clusterctl itself
   */
  readonly manifestRepository?: string;
}

export const CLUSTERCTL_INIT_SH = 'clusterctl-init.sh';

/** Seconds clusterctl waits for each provider to become available. */
export const PROVIDER_WAIT_SECONDS = 900;

/**
 * Installs ORC (CAPO needs it, clusterctl does not install it) while `clusterctl init` installs the
 * providers that are not installed yet (it brings cert-manager), waits for every deployment and
 * publishes a status ConfigMap that tells the outside world the management cluster is ready.
 */
export function renderClusterctlInitSh(props: ClusterctlInitScriptProps): string {
  for (const [field, v] of Object.entries(props)) {
    if (field !== 'kindNodeImage' && field !== 'manifestRepository' && !/^v\d+\.\d+\.\d+$/.test(v)) {
      throw new Error(`versions.${field}: expected a release version like v1.2.3, found "${v}"`);
    }
  }
  return `#!/usr/bin/env bash
# Turns the kind cluster into a Cluster API management cluster. Idempotent.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

readonly CAPI_VERSION=${props.clusterApi}
readonly CAPO_VERSION=${props.capo}
readonly CAAPH_VERSION=${props.caaph}
readonly ORC_VERSION=${props.orc}
readonly NODE_IMAGE=${shellQuote(props.kindNodeImage)}
${orcManifestLine(props.manifestRepository)}

export CLUSTER_TOPOLOGY=true
export EXP_CLUSTER_RESOURCE_SET=true

# ORC side by side with clusterctl init: its CRDs are in long before CAPO (installed fourth) starts,
# and the wait for every deployment below includes ORC's.
log "installing openstack-resource-controller $ORC_VERSION"
retry 5 20 kubectl apply --server-side --force-conflicts -f "$ORC_MANIFEST" >/dev/null &
orc_apply=$!

installed_providers() {
  kubectl get providers.clusterctl.cluster.x-k8s.io -A -o jsonpath='{range .items[*]}{.metadata.name}{"\\n"}{end}' 2>/dev/null || true
}

# init_missing: clusterctl init for the providers not installed yet (a retry after a partial
# failure only adds what is missing).
init_missing() {
  local installed args=()
  installed=$(installed_providers)
  want() {
    if grep -qxF "$2" <<<"$installed"; then
      log "provider $2 already installed"
    else
      args+=("$1" "$3")
    fi
  }
  want --core cluster-api "cluster-api:$CAPI_VERSION"
  want --bootstrap bootstrap-kubeadm "kubeadm:$CAPI_VERSION"
  want --control-plane control-plane-kubeadm "kubeadm:$CAPI_VERSION"
  want --infrastructure infrastructure-openstack "openstack:$CAPO_VERSION"
  want --addon addon-helm "helm:$CAAPH_VERSION"
  if ((\${#args[@]} == 0)); then
    return 0
  fi
  log "clusterctl init \${args[*]} (installs cert-manager first; several minutes)"
  clusterctl init "\${args[@]}"${props.manifestRepository ? ' --config "$CLUSTERCTL_CONFIG"' : ''} --wait-providers --wait-provider-timeout ${PROVIDER_WAIT_SECONDS}
}

retry 3 30 init_missing
wait "$orc_apply" || die "openstack-resource-controller $ORC_VERSION could not be applied"

for provider in cluster-api bootstrap-kubeadm control-plane-kubeadm infrastructure-openstack addon-helm; do
  grep -qxF "$provider" <<<"$(installed_providers)" || die "provider $provider is not installed after clusterctl init"
done
log "waiting for every deployment of the management cluster to be available"
kubectl wait --for=condition=Available deployment --all --all-namespaces --timeout=600s >/dev/null

kubectl create configmap ${BOOTSTRAP_STATUS_CONFIGMAP} -n kube-system \\
  --from-literal=phase=Ready \\
  --from-literal=clusterApi="$CAPI_VERSION" \\
  --from-literal=capo="$CAPO_VERSION" \\
  --from-literal=caaph="$CAAPH_VERSION" \\
  --from-literal=orc="$ORC_VERSION" \\
  --from-literal=kindNodeImage="$NODE_IMAGE" \\
  --dry-run=client -o yaml | kubectl apply -f - >/dev/null
log "management cluster ready: Cluster API $CAPI_VERSION, CAPO $CAPO_VERSION, CAAPH $CAAPH_VERSION, ORC $ORC_VERSION"
`;
}

/** Where ORC's manifest comes from: its GitHub release, or the verified local repository. */
function orcManifestLine(repository: string | undefined): string {
  if (repository === undefined) {
    return 'readonly ORC_MANIFEST="https://github.com/k-orc/openstack-resource-controller/releases/download/$ORC_VERSION/install.yaml"';
  }
  if (!/^\/[a-z0-9/_-]+$/.test(repository)) throw new Error(`manifestRepository: expected an absolute path, found "${repository}"`);
  return [
    `readonly REPO_DIR=\${CAPI_BOOTSTRAP_REPOSITORY_DIR:-${repository}}`,
    'readonly ORC_MANIFEST="$REPO_DIR/orc/$ORC_VERSION/install.yaml"',
    `readonly CLUSTERCTL_CONFIG="$REPO_DIR/${CLUSTERCTL_CONFIG_FILE}"`,
    '[[ -s $ORC_MANIFEST && -s $CLUSTERCTL_CONFIG ]] || die "the verified manifests are missing in $REPO_DIR (fetch-manifests.sh writes them)"',
  ].join('\n');
}
