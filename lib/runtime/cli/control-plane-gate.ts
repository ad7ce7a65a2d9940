/**
 * The command-line side of the control-plane upgrade gate (bin/wait-for-control-plane.ts, run by a
 * workload stack's local-exec): reads the management access (admin certificate, or the kubeconfig of
 * an existing management cluster) and the control plane to watch, waits, maps the outcome to an
 * exit code. Never prints key material.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CliConfigError, Env, EXIT_BAD_CONFIG, EXIT_FAILED, EXIT_OK, optional, positive, required, settingsOrReport } from '../env-config';
import { ControlPlaneTarget, ControlPlaneTimeoutError, waitForControlPlane } from '../readiness/control-plane';
import { readCliConfig } from '../readiness/cli';
import { KubeClient, KubeClientOptions } from '../readiness/kube-client';
import { credentialsFromKubeconfig, readKubeconfigFile } from './kubeconfig/kubeconfig-file';
import { CliError } from './errors';

const PROGRAM = 'wait-for-control-plane';
const EXACT_VERSION = /^v1\.\d{1,6}\.\d{1,6}$/;

export interface ControlPlaneGateConfig {
  readonly access: KubeClientOptions;
  readonly target: ControlPlaneTarget;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

export function readControlPlaneGateConfig(env: Env): ControlPlaneGateConfig {
  const version = required(env, 'CONTROL_PLANE_VERSION', 'the Kubernetes version, e.g. v1.37.2');
  if (!EXACT_VERSION.test(version)) throw new CliConfigError(`CONTROL_PLANE_VERSION must be an exact version like v1.37.2 (got '${version.slice(0, 40)}')`);
  const target = {
    namespace: required(env, 'CONTROL_PLANE_NAMESPACE', 'the namespace of the KubeadmControlPlane'),
    name: required(env, 'CONTROL_PLANE_NAME', 'the name of the KubeadmControlPlane'),
    version,
  };
  return {
    access: accessOf(env),
    target,
    timeoutMs: positive(env, 'READY_TIMEOUT_MINUTES', 60) * 60_000,
    intervalMs: positive(env, 'READY_INTERVAL_SECONDS', 15) * 1000,
  };
}

/**
 * The KUBE_* admin certificate; else, for an existing management cluster, KUBE_CONFIG_FILE (or the
 * first file of KUBECONFIG, else ~/.kube/config) and KUBE_CONTEXT.
 */
function accessOf(env: Env): KubeClientOptions {
  if (optional(env, 'KUBE_SERVER')) {
    const c = readCliConfig(env);
    return { server: c.server, caPem: c.caPem, certPem: c.certPem, keyPem: c.keyPem };
  }
  const file = optional(env, 'KUBE_CONFIG_FILE') ?? optional(env, 'KUBECONFIG')?.split(path.delimiter)[0] ?? path.join(os.homedir(), '.kube', 'config');
  if (!fs.existsSync(file)) throw new CliConfigError(`KUBE_CONFIG_FILE ${file} does not exist`);
  try {
    const creds = credentialsFromKubeconfig(readKubeconfigFile(file), `KUBE_CONFIG_FILE ${file}`, { context: optional(env, 'KUBE_CONTEXT'), baseDir: path.dirname(file) });
    return { server: creds.server, caPem: creds.caPem, certPem: creds.certPem, keyPem: creds.keyPem, token: creds.token };
  } catch (e) {
    if (e instanceof CliError) throw new CliConfigError(e.message);
    throw e;
  }
}

/** Runs the gate; returns the process exit code. `out` gets progress lines, `err` the failure report. */
export async function runControlPlaneGate(env: Env, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const config = settingsOrReport(PROGRAM, () => readControlPlaneGateConfig(env), err);
  if (!config) return EXIT_BAD_CONFIG;
  try {
    await waitForControlPlane({ client: new KubeClient(config.access), target: config.target, timeoutMs: config.timeoutMs, intervalMs: config.intervalMs, log: out });
    return EXIT_OK;
  } catch (e) {
    err(e instanceof ControlPlaneTimeoutError ? e.message : `${PROGRAM}: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_FAILED;
  }
}
