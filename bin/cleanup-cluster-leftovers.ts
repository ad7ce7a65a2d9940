#!/usr/bin/env node
/**
 * Destroy-time cleanup of a workload stack, run by Terraform (terraform_data + local-exec,
 * `when = destroy`) on the operator's machine: deletes the Octavia load balancers, floating IPs and
 * security groups OCCM created and the volumes and snapshots Cinder CSI created for the cluster.
 * Exit 0 done, 1 failed (one line on stderr says what is left), 2 invalid input.
 *
 * Environment: see lib/runtime/cleanup/cli.ts (CAPI_CLEANUP_*). Also usable by hand, e.g. to see what a
 * destroy would delete, or to clean up after a cluster whose stack is gone:
 *   CAPI_CLEANUP_CLOUD=mycloud CAPI_CLEANUP_CLUSTER_NAME=capi-prod-web CAPI_CLEANUP_DRY_RUN=1 \
 *     node dist/bin/cleanup-cluster-leftovers.js
 */
import { runCli } from '../lib/runtime/cleanup/cli';
import { exitWith, stderrLine, stdoutLine } from '../lib/runtime/process';

// A hard stop a minute after the configured bound, whatever the network does.
const minutes = Number(process.env.CAPI_CLEANUP_TIMEOUT_MINUTES);
const hardStopMs = ((Number.isFinite(minutes) && minutes > 0 ? minutes : 20) + 1) * 60_000;
const hardStop = setTimeout(() => {
  console.error(`cleanup-cluster-leftovers: FAILED: still running ${Math.round(hardStopMs / 60_000)} min after the start; stopped`);
  process.exit(1);
}, hardStopMs);
hardStop.unref();

exitWith(runCli(process.env, stdoutLine, stderrLine), 'cleanup-cluster-leftovers: FAILED: unexpected failure: ');
