/**
 * The kube-apiserver flags of a test's workload API server on loopback (the bare one of the
 * addon-charts e2e and the simulated clusters of the control-loop tier): etcd under its own prefix,
 * TLS from the given CA, service-account keys `sa.key`/`sa.pub` in `dir`, RBAC, no anonymous access.
 */
import * as path from 'path';

export interface WorkloadApiServerFlagsOptions {
  readonly etcdUrl: string;
  readonly etcdPrefix: string;
  readonly port: number;
  readonly servingCert: string;
  readonly servingKey: string;
  readonly clientCaCert: string;
  /** Holds sa.key and sa.pub. */
  readonly dir: string;
  /** As kubeadm sets it (CNI and CSI node plugins run privileged). @default false */
  readonly allowPrivileged?: boolean;
}

export function workloadApiServerFlags(o: WorkloadApiServerFlagsOptions): string[] {
  return [
    `--etcd-servers=${o.etcdUrl}`,
    `--etcd-prefix=${o.etcdPrefix}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    // v1.37 refuses a loopback address as the `kubernetes` Service's endpoints; nothing uses that Service here
    '--endpoint-reconciler-type=none',
    `--secure-port=${o.port}`,
    `--tls-cert-file=${o.servingCert}`,
    `--tls-private-key-file=${o.servingKey}`,
    `--client-ca-file=${o.clientCaCert}`,
    `--service-account-key-file=${path.join(o.dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${path.join(o.dir, 'sa.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.96.0.0/12',
    ...(o.allowPrivileged ? ['--allow-privileged=true'] : []),
    '--authorization-mode=RBAC',
    '--anonymous-auth=false',
    '--profiling=false',
    '--v=1',
  ];
}
