#!/usr/bin/env bash
# The dead-code pass: `deadcode -test ./...` at the pinned version (the one in $(go env GOPATH)/bin,
# which the CI install step, .ci/install.d/70-lint.sh, puts there; else one installed into bin/).
# Fails when it names any function: code no test and no binary reaches is removed, not kept.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
want=${DEADCODE_VERSION:-v0.52.0}
dc=""
for c in "$($GO env GOPATH)/bin/deadcode" "$PWD/bin/deadcode"; do
  if [ -x "$c" ] && $GO version -m "$c" | grep -Eq "golang.org/x/tools[[:space:]]+$want"; then
    dc=$c
    break
  fi
done
if [ -z "$dc" ]; then
  echo "deadcode $want not found: installing it into bin/" >&2
  GOBIN="$PWD/bin" GOFLAGS=-mod=mod $GO install "golang.org/x/tools/cmd/deadcode@$want"
  dc=$PWD/bin/deadcode
fi
out=$("$dc" -test ./cmd/... ./internal/... ./scripts/...)
if [ -n "$out" ]; then
  echo "unreachable code (deadcode -test, the module's packages):" >&2
  echo "$out" >&2
  exit 1
fi
