# shellcheck shell=bash
# Pid files that cannot name somebody else's process. A pid file can outlive its process: a cache
# carried to a new machine or container, or a run killed before its stop. By then its number can
# belong to an unrelated process, which a start would take for the service ("already running") and
# a stop would signal (a process group, for the local cloud's services). So a pid file records the
# process's start time beside its pid (/proc/PID/stat, field 22: clock ticks after boot), and a
# process counts as the recorded one only when both match. A file without a start time (written by
# an older version of these scripts) names no process.
# Sourced by scripts/local-cloud, scripts/local-vm and scripts/local-charts.

# pid_start_time PID: the start time of PID, or nothing (status 1) when it does not run.
pid_start_time() {
  local stat rest
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  # the command name (field 2) may hold spaces and parentheses: the fields after its last ')'
  rest="${stat##*) }"
  # shellcheck disable=SC2086  # split into fields 3, 4, ...
  set -- $rest
  [ -n "${20:-}" ] || return 1
  printf '%s\n' "${20}"
}

# pid_record FILE PID: writes PID and its start time into FILE.
pid_record() {
  local started
  started="$(pid_start_time "$2")" || started=gone
  printf '%s %s\n' "$2" "$started" > "$1"
}

# pid_recorded FILE: the pid FILE records (nothing when FILE is missing or empty).
pid_recorded() { local pid _; [ -s "$1" ] && read -r pid _ < "$1" && printf '%s\n' "$pid"; }

# pid_running FILE: the process FILE records still runs (same pid, same start time).
pid_running() {
  local pid started now
  [ -s "$1" ] || return 1
  read -r pid started < "$1" || true
  [[ "$pid" =~ ^[0-9]+$ ]] && [[ "${started:-}" =~ ^[0-9]+$ ]] || return 1
  now="$(pid_start_time "$pid")" || return 1
  [ "$now" = "$started" ]
}
