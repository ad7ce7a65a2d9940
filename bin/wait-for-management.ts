#!/usr/bin/env node
/**
 * Readiness gate of the management stack, run by Terraform (terraform_data + local-exec) on the
 * operator's machine: exits 0 once the management cluster accepts CAPI objects, 1 on timeout
 * (one-screen report on stderr), 2 on invalid input.
 *
 * Environment: KUBE_SERVER, KUBE_CA_PEM, KUBE_CLIENT_CERT_PEM, KUBE_CLIENT_KEY_PEM (PEM text),
 * READY_TIMEOUT_MINUTES (default 20), READY_INTERVAL_SECONDS (default 10).
 */
import { exitWith, stderrLine, stdoutLine } from '../lib/runtime/process';
import { runCli } from '../lib/runtime/readiness/cli';

exitWith(runCli(process.env, stdoutLine, stderrLine), 'wait-for-management: unexpected failure: ');
