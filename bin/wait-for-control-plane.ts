#!/usr/bin/env node
/**
 * Control-plane upgrade gate of a workload stack, run by Terraform (terraform_data + local-exec) on
 * the operator's machine: exits 0 once the KubeadmControlPlane runs the target version on all its
 * machines (at once for a control plane without machines: a new cluster), 1 on timeout (the last
 * observation on stderr), 2 on invalid input. The stack updates the MachineDeployments only after.
 *
 * Environment: CONTROL_PLANE_NAMESPACE, CONTROL_PLANE_NAME, CONTROL_PLANE_VERSION; the management API
 * as KUBE_SERVER, KUBE_CA_PEM, KUBE_CLIENT_CERT_PEM, KUBE_CLIENT_KEY_PEM (PEM text) or as
 * KUBE_CONFIG_FILE (+ KUBE_CONTEXT); READY_TIMEOUT_MINUTES (default 60), READY_INTERVAL_SECONDS
 * (default 15).
 */
import { exitWith, stderrLine, stdoutLine } from '../lib/runtime/process';
import { runControlPlaneGate } from '../lib/runtime/cli/control-plane-gate';

exitWith(runControlPlaneGate(process.env, stdoutLine, stderrLine), 'wait-for-control-plane: unexpected failure: ');
