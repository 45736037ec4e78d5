#!/usr/bin/env bash
# Runs make targets one after another, each timed, and prints how long each took: after each stage
# and as a table at the end (also when a stage fails). Exits with the first failing stage's code
# and runs no stage after it, as make would.
#   scripts/stages.sh TARGET...        (MAKE: the make to run, default make)
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
table=() rc=0 all=$(date +%s)
for t in "$@"; do
  start=$(date +%s)
  echo "== stage $t ($(date -u +%T) UTC, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?))"
  $MAKE --no-print-directory "$t"
  rc=$?
  took=$(( $(date +%s) - start ))
  if [ $rc -ne 0 ]; then
    echo "== stage $t FAILED after ${took}s"
    table+=("$(printf '%-18s %5ss  FAILED' "$t" "$took")")
    break
  fi
  echo "== stage $t took ${took}s"
  table+=("$(printf '%-18s %5ss' "$t" "$took")")
done
echo "== stages (of make test), $(( $(date +%s) - all ))s in all:"
printf '   %s\n' "${table[@]}"
exit $rc
