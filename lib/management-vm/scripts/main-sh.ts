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

/**
 * Steps that do not need each other, run side by side: each branch runs its steps in order, and
 * the stage ends when every branch has (the steps after it may need any of them).
 */
export interface SideBySide {
  readonly sideBySide: readonly (readonly BootstrapStep[])[];
}

/** A stage of the bootstrap: one step, or branches of steps run side by side. */
export type BootstrapStage = BootstrapStep | SideBySide;

/** Every step of the stages, in the order they start (branches in the order given). */
export function stepsOf(stages: readonly BootstrapStage[]): BootstrapStep[] {
  return stages.flatMap((s) => ('sideBySide' in s ? s.sideBySide.flat() : [s]));
}

/** File name of the entry point run from cloud-init's runcmd. */
export const MAIN_SH = 'capi-bootstrap.sh';

const STEP_NAME = /^[a-z][a-z0-9-]*$/;
const SCRIPT_WORD = /^[A-Za-z0-9._-]+$/;

/**
 * The entry point: logs to the bootstrap log, runs the stages in order with time limits (the
 * branches of a side-by-side stage at once), writes `done` on success and `error` (the first step
 * that failed, exit code, time) on failure. Safe to run again by hand.
 */
export function renderMainSh(stages: readonly BootstrapStage[]): string {
  const p = BOOTSTRAP_PATHS;
  const names = stepsOf(stages).map(checkStep);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new Error(`bootstrap steps: step name "${duplicate}" is used twice`);
  const calls = renderStageCalls(stages);
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

${STEP_RUNNER}
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

/** Bash: the error marker, the exit report, run_step and side_by_side (the entry point's step runner). */
const STEP_RUNNER = `# record_failure STEP EXIT_CODE: the error marker names the first step that failed.
record_failure() {
  (
    set -C
    printf 'step=%s\\nexit_code=%s\\ntime=%s\\n' "$1" "$2" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$STATE_DIR/error"
  ) 2>/dev/null || true
}

CURRENT_STEP=start
on_exit() {
  local rc=$? step
  if ((rc != 0)); then
    record_failure "$CURRENT_STEP" "$rc"
    step=$(sed -n 's/^step=//p' "$STATE_DIR/error")
    log "FAILED in step '$step' (exit code $rc); details above in $LOG_FILE. Fix the cause, then run $0 again."
  fi
}
trap on_exit EXIT

# run_step NAME TIMEOUT_SECONDS SCRIPT [ARGS...]: the step's log lines carry its name.
run_step() {
  local name=$1 limit=$2 started=$SECONDS rc=0
  shift 2
  CURRENT_STEP=$name
  log "==> $name (limit \${limit}s)"
  CAPI_BOOTSTRAP_STEP=$name timeout "$limit" "$SCRIPT_DIR/$1" "\${@:2}" || rc=$?
  if ((rc == 124)); then
    log "step '$name' did not finish within \${limit}s"
  fi
  if ((rc != 0)); then
    record_failure "$name" "$rc"
    return "$rc"
  fi
  log "<== $name done in $((SECONDS - started))s"
}

# side_by_side FUNCTION...: runs them at once, waits for all; fails if one did (its step wrote the marker).
side_by_side() {
  local fn pid rc=0 pids=()
  for fn in "$@"; do
    "$fn" &
    pids+=("$!")
  done
  for pid in "\${pids[@]}"; do
    wait "$pid" || { local failed=$?; ((rc != 0)) || rc=$failed; }
  done
  return "$rc"
}
`;

/** One `run_step` line per step; a side-by-side stage as one function per branch and a `side_by_side` call. */
function renderStageCalls(stages: readonly BootstrapStage[]): string {
  const call = (s: BootstrapStep) => `run_step ${s.name} ${s.timeoutSeconds} ${s.command.map((c) => `'${c}'`).join(' ')}`;
  return stages
    .map((stage, i) => {
      if (!('sideBySide' in stage)) return call(stage);
      if (stage.sideBySide.length < 2 || stage.sideBySide.some((b) => b.length === 0)) {
        throw new Error(`bootstrap steps: a side-by-side stage needs at least two branches of at least one step each (stage ${i + 1})`);
      }
      const branches = stage.sideBySide.map((steps, b) => ({ fn: `stage_${i + 1}_branch_${b + 1}`, steps }));
      return [
        ...branches.map(({ fn, steps }) => `${fn}() {\n${steps.map((s) => `  ${call(s)}`).join('\n')}\n}`),
        `side_by_side ${branches.map((b) => b.fn).join(' ')}`,
      ].join('\n');
    })
    .join('\n');
}

function checkStep(s: BootstrapStep): string {
  if (!STEP_NAME.test(s.name)) throw new Error(`bootstrap steps: invalid step name "${s.name}"`);
  if (s.command.length === 0 || !s.command.every((c) => SCRIPT_WORD.test(c))) {
    throw new Error(`bootstrap steps: step ${s.name}: expected a script name and plain arguments, found ${JSON.stringify(s.command)}`);
  }
  if (!Number.isInteger(s.timeoutSeconds) || s.timeoutSeconds < 1) throw new Error(`bootstrap steps: step ${s.name}: timeoutSeconds must be a positive integer, found ${s.timeoutSeconds}`);
  return s.name;
}
