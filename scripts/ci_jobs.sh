# The job runner .ci/run sources: one job a line, `job NAME COMMAND…`; `job --beside NAME COMMAND…` starts a job
# that runs beside the jobs after it (its output is kept and shown by `finish_beside`). Every job runs even when
# an earlier one failed; `ci_summary` lists each job's time and result and returns non-zero when any failed.
# tests/unit/test_ci_jobs.py runs it.

CI_RESULTS=()
CI_FAILED=0
CI_BESIDE=()
CI_LOGS="$(mktemp -d)"

_record() { # NAME SECONDS STATUS
  if [ "$3" -eq 0 ]; then
    CI_RESULTS+=("$(printf '%-28s %5d s  ok' "$1" "$2")")
  else
    CI_RESULTS+=("$(printf '%-28s %5d s  FAILED (exit %d)' "$1" "$2" "$3")")
    CI_FAILED=1
  fi
}

job() {
  if [ "$1" = --beside ]; then
    local name=$2 log="$CI_LOGS/${#CI_BESIDE[@]}"
    shift 2
    echo "== $name: started; runs beside the next jobs, its output follows when they end"
    # The job's own status and time, written when it ends (not when finish_beside gets round to it).
    (
      start=$SECONDS status=0
      "$@" || status=$?
      echo "$status $((SECONDS - start))" >"$log.result"
    ) >"$log" 2>&1 &
    CI_BESIDE+=("$!:$name:$log")
    return 0
  fi
  local name=$1 start=$SECONDS status=0
  shift
  echo "== $name"
  "$@" || status=$?
  _record "$name" $((SECONDS - start)) "$status"
  return "$status"
}

finish_beside() {
  local entry pid name log status took
  for entry in "${CI_BESIDE[@]}"; do
    IFS=: read -r pid name log <<<"$entry"
    wait "$pid"
    echo "== $name (ran beside the jobs above)"
    cat "$log"
    read -r status took <"$log.result" 2>/dev/null || { status=1 took=0; }
    _record "$name" "$took" "$status"
  done
  CI_BESIDE=()
}

ci_summary() {
  finish_beside
  echo "== CI jobs"
  printf '%s\n' "${CI_RESULTS[@]}"
  echo "== CI total: $((SECONDS / 60)) min $((SECONDS % 60)) s"
  rm -rf "$CI_LOGS"
  return "$CI_FAILED"
}
