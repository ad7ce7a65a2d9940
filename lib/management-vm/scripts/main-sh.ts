import { BOOTSTRAP_PATHS } from '../paths';
import { LIB_SH } from './lib-sh';

/** One step of the bootstrap: a script in the script directory, run with a time limit. */
export interface BootstrapStep {
  /** Short name, recorded in the error marker when the step fails. */
  readonly name: string;
  /** Script file name (in the script directory) and its arguments. */
  readonly command: readonly string[];
  readonly timeoutSeconds: number;
}

/** File name of the entry point run from cloud-init's runcmd. */
export const MAIN_SH = 'capi-bootstrap.sh';

/**
 * The entry point: logs to the bootstrap log, runs the steps in order with time limits, writes
 * `done` on success and `error` (step, exit code, time) on failure. Safe to run again by hand.
 */
export function renderMainSh(steps: readonly BootstrapStep[]): string {
  const p = BOOTSTRAP_PATHS;
  const calls = steps
    .map((s) => `run_step ${s.name} ${s.timeoutSeconds} ${s.command.map((c) => `'${c}'`).join(' ')}`)
    .join('\n');
  return `#!/usr/bin/env bash
# Bootstraps the Cluster API management cluster on this VM (docker, kind, clusterctl init).
# Run by cloud-init once; idempotent, so it can be run again by hand after fixing a failure.
set -euo pipefail

# The CAPI_BOOTSTRAP_* variables exist for tests; on the VM the defaults apply.
readonly SCRIPT_DIR=\${CAPI_BOOTSTRAP_SCRIPT_DIR:-${p.scriptDir}}
readonly STATE_DIR=\${CAPI_BOOTSTRAP_STATE_DIR:-${p.stateDir}}
readonly LOG_FILE=\${CAPI_BOOTSTRAP_LOG_FILE:-${p.logFile}}
readonly PROXY_ENV=\${CAPI_BOOTSTRAP_PROXY_ENV:-${p.proxyEnv}}

# shellcheck source=lib.sh
. "$SCRIPT_DIR/${LIB_SH}"

install -d -m 0700 "$STATE_DIR"
touch "$LOG_FILE"
chmod 0640 "$LOG_FILE"
exec > >(tee -a "$LOG_FILE") 2>&1

CURRENT_STEP=start
on_exit() {
  local rc=$?
  if ((rc != 0)); then
    printf 'step=%s\\nexit_code=%s\\ntime=%s\\n' "$CURRENT_STEP" "$rc" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$STATE_DIR/error"
    log "FAILED in step '$CURRENT_STEP' (exit code $rc); details above in $LOG_FILE. Fix the cause, then run $0 again."
  fi
}
trap on_exit EXIT

# run_step NAME TIMEOUT_SECONDS SCRIPT [ARGS...]
run_step() {
  local name=$1 limit=$2 started=$SECONDS rc=0
  shift 2
  CURRENT_STEP=$name
  log "==> $name (limit \${limit}s)"
  timeout "$limit" "$SCRIPT_DIR/$1" "\${@:2}" || rc=$?
  if ((rc == 124)); then
    log "step '$name' did not finish within \${limit}s"
  fi
  if ((rc != 0)); then
    return "$rc"
  fi
  log "<== $name done in $((SECONDS - started))s"
}

rm -f "$STATE_DIR/done" "$STATE_DIR/error"
export HOME=\${HOME:-/root}
export KUBECONFIG=${p.kubeconfig}
if [[ -f $PROXY_ENV ]]; then
  set -a
  # shellcheck disable=SC1090
  . "$PROXY_ENV"
  set +a
  log "using the HTTP proxy configured in $PROXY_ENV"
fi
log "bootstrap started"

${calls}

CURRENT_STEP=finish
date -u +%Y-%m-%dT%H:%M:%SZ >"$STATE_DIR/done"
log "bootstrap finished: the management cluster is ready"
`;
}
