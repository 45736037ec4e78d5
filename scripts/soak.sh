#!/usr/bin/env bash
# The soak test (internal/lsp/soak_test.go): 20 sessions open, a writer appending to three of them
# 50 times a second, a client looping hover / definition / graph; reports latency and memory over
# time, fails on errors, disagreement with a fresh parse, growing memory, memory not returned after
# close, and p99 over 10 ms for any request kind (CCDAG_SOAK_LATENCY=report: report it only; make
# soak-short sets it).
# Usage: scripts/soak.sh [DURATION] [TOTAL_MB]   (default 60s 200; env CCDAG_SOAK / CCDAG_SOAK_MB)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export CCDAG_SOAK=${1:-${CCDAG_SOAK:-60s}}
export CCDAG_SOAK_MB=${2:-${CCDAG_SOAK_MB:-200}}
mkdir -p test-artifacts
log=test-artifacts/soak-$CCDAG_SOAK.log
echo "soak: $CCDAG_SOAK, $CCDAG_SOAK_MB MB (log: $log)"
set +e
$GO test -count=1 -timeout 30m -run '^TestSoak$' -v ./internal/lsp 2>&1 | tee "$log" | grep -v '^=== RUN'
rc=${PIPESTATUS[0]}
exit $rc
