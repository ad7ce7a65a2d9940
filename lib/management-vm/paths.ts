/** Where the management VM's bootstrap keeps its files. One place, so scripts, units and tests agree. */
export const BOOTSTRAP_PATHS = {
  /** Configuration written by cloud-init (root only). */
  configDir: '/etc/capi-bootstrap',
  /** Scripts run by the bootstrap (root only). */
  scriptDir: '/usr/local/lib/capi-bootstrap',
  /** Verified binaries. */
  binDir: '/usr/local/bin',
  /** Progress log. */
  logFile: '/var/log/capi-bootstrap.log',
  /** Markers: `done` on success, `error` (failed step, exit code, time) on failure. */
  stateDir: '/var/lib/capi-bootstrap',
  /** Local clusterctl repository of verified provider manifests (only when they are pinned). */
  manifestRepository: '/var/lib/capi-bootstrap/repository',
  caCertificate: '/etc/capi-bootstrap/pki/ca.crt',
  caPrivateKey: '/etc/capi-bootstrap/pki/ca.key',
  kindConfig: '/etc/capi-bootstrap/kind-config.yaml',
  /** kubeconfig of the kind cluster for local use (server https://127.0.0.1:<port>). */
  kubeconfig: '/etc/capi-bootstrap/kubeconfig',
  proxyEnv: '/etc/capi-bootstrap/proxy.env',
  dockerDaemonBase: '/etc/capi-bootstrap/docker-daemon.base.json',
  /** containerd registry host directory mounted into the kind node at /etc/containerd/certs.d. */
  containerdCertsDir: '/etc/capi-bootstrap/containerd-certs.d',
  dockerProxyDropIn: '/etc/systemd/system/docker.service.d/http-proxy.conf',
} as const;

/** The OpenStack metadata service, which containers must not reach (user data carries the CA key). */
export { METADATA_ADDRESS, METADATA_ADDRESS_V6 } from '../config/metadata-block-rules';

/** Pod and service ranges of the kind cluster (set explicitly in its config, listed in NO_PROXY). */
export const KIND_POD_SUBNET = '10.244.0.0/16';
export const KIND_SERVICE_SUBNET = '10.96.0.0/16';

/** Names of the systemd units that keep containers away from the metadata service. */
export const METADATA_BLOCK_UNITS = {
  /** Before docker: raw-table rule, so no container starts before the block is in place. */
  early: 'capi-metadata-block-early.service',
  /** After docker: the DOCKER-USER rule, re-applied whenever docker restarts. */
  dockerUser: 'capi-metadata-block.service',
} as const;

/** ConfigMap (namespace kube-system) the bootstrap writes into the kind cluster when it is done. */
export const BOOTSTRAP_STATUS_CONFIGMAP = 'capi-bootstrap-status';
