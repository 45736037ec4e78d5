#!/usr/bin/env bash
# Runs staticcheck at the pinned version: the one on PATH or in $(go env GOPATH)/bin when it is that
# version (the CI install step, .ci/install.d/70-lint.sh, puts it there), else one installed from the
# Go module proxy into bin/.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
want=${STATICCHECK_VERSION:-v0.8.2}
for sc in "$(command -v staticcheck || true)" "$($GO env GOPATH)/bin/staticcheck" "$PWD/bin/staticcheck"; do
  if [ -n "$sc" ] && [ -x "$sc" ] && "$sc" -version | grep -q "(${want#v})"; then
    exec "$sc" "$@"
  fi
done
echo "staticcheck $want not found: installing it into bin/" >&2
GOBIN="$PWD/bin" GOFLAGS=-mod=mod $GO install "honnef.co/go/tools/cmd/staticcheck@$want"
exec "$PWD/bin/staticcheck" "$@"
