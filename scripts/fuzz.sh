#!/usr/bin/env bash
# Runs every Go fuzz target of the module for FUZZTIME each (default 30s), one after the other.
# Targets are found with `go test -list`, so a new FuzzX anywhere under internal/ is picked up.
# A failing input is written by Go to <package>/testdata/fuzz/FuzzX/<hash>: commit it, and it runs
# as a regression case in every `go test` from then on.
# Usage: scripts/fuzz.sh [FUZZTIME] [target-regexp]
# FUZZ_FINDS=report (make fuzz-ci, on every change): a new failing input is printed and copied to
# test-artifacts/fuzz-found/, and the run does not fail on it. What a few seconds of exploration
# finds depends on luck, and a gate that fails by luck fails some other day; the inputs already
# found (testdata/fuzz) run in every `go test`, and those gate. `make fuzz` fails on a find.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
time=${1:-${FUZZTIME:-30s}}
only=${2:-.}
log=test-artifacts/fuzz.log
mkdir -p test-artifacts
failed=0 ran=0 flaked=0 found=0
printf '# %s  FUZZTIME=%s  %s\n' "$(date -u +%FT%TZ)" "$time" "$(git rev-parse --short HEAD 2>/dev/null)" >>"$log"
for pkg in $($GO list ./internal/... ./cmd/...); do
  targets=$($GO test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for t in $targets; do
    [[ "$t" =~ $only ]] || continue
    ran=$((ran + 1))
    echo "== $pkg $t ($time)"
    corpus="$($GO list -f '{{.Dir}}' "$pkg")/testdata/fuzz/$t"
    before=$(ls "$corpus" 2>/dev/null | sort)
    # Minimizing each new input that widens coverage takes up to 60 s by default, during which
    # nothing else runs: on FuzzRepair's corpus seeds that was most of the 30 s (27 execs).
    out=$($GO test -run '^$' -fuzz "^${t}\$" -fuzztime "$time" -fuzzminimizetime "${FUZZMINIMIZETIME:-3s}" "$pkg" 2>&1)
    rc=$?
    execs=$(grep -o 'execs: [0-9]*' <<<"$out" | tail -1 | cut -d' ' -f2)
    after=$(ls "$corpus" 2>/dev/null | sort)
    if [ $rc -eq 0 ]; then
      echo "   ok: ${execs:-?} execs, no failure"
      printf '%s %s ok %s execs %s\n' "$pkg" "$t" "$time" "${execs:-?}" >>"$log"
    elif [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' <<<"$out" && ! grep -q -e 'panic:' -e 'Failing input written' -e 'fuzzing process hung' <<<"$out"; then
      # Go 1.26's fuzz coordinator can report the end of -fuzztime itself as a failure when a worker
      # is still mid-input under load (go.dev/issue/75804, fixed in Go 1.27): no input failed and none
      # was written. Said, counted, not failed.
      flaked=$((flaked + 1))
      echo "   ok: ${execs:-?} execs; the run ended with Go's fuzztime race (go.dev/issue/75804), no failing input"
      printf '%s %s deadline-race %s execs %s\n' "$pkg" "$t" "$time" "${execs:-?}" >>"$log"
    elif [ "${FUZZ_FINDS:-}" = report ]; then
      found=$((found + 1))
      echo "$out" | grep -v '^fuzz: elapsed' | tail -40
      dest=test-artifacts/fuzz-found/${pkg#github.com/ccdag/ccdag/}/$t
      mkdir -p "$dest"
      for f in $(comm -13 <(echo "$before") <(echo "$after")); do cp "$corpus/$f" "$dest/"; done
      echo "   FOUND (reported, not failed): a failing input, copied to $dest/: fix it and commit it under $corpus/"
      printf '%s %s FOUND after %s\n' "$pkg" "$t" "$time" >>"$log"
    else
      failed=$((failed + 1))
      echo "$out" | grep -v '^fuzz: elapsed' | tail -40
      echo "   FAIL: the failing input is under $(go list -f '{{.Dir}}' "$pkg")/testdata/fuzz/$t/ (commit it as a regression case)"
      printf '%s %s FAIL after %s\n' "$pkg" "$t" "$time" >>"$log"
    fi
  done
done
if [ $ran -eq 0 ]; then
  echo "no fuzz target matched '$only'" >&2
  exit 1
fi
echo "fuzz: $ran targets, $failed failed, $found found a failing input (reported), $flaked ended by Go's fuzztime race (log: $log)"
[ $failed -eq 0 ]
