#!/usr/bin/env bash
# go vet (which builds every package and test binary) for each release target (SPEC §9): the
# tests run on linux, so this is what holds darwin and windows building.
#   scripts/vet-targets.sh [GOOS/GOARCH ...]   default: the six targets, but the host's own
#                                              (`make lint` has just run go vet ./... for it)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  host=$("$GO" env GOHOSTOS)/$("$GO" env GOHOSTARCH)
  for t in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
    if [ "$t" = "$host" ]; then echo "vet $t: the host (go vet ./...)"; else targets+=("$t"); fi
  done
fi
fail=0
# -trimpath and CGO_ENABLED=0 as `make vsix` and goreleaser build the same six targets: the packages
# compiled here for a target (vet needs them built) are then taken from Go's build cache there, not
# compiled again.
for t in "${targets[@]}"; do
  start=$(date +%s)
  if GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 "$GO" vet -trimpath ./cmd/... ./internal/... ./scripts/...; then
    echo "vet $t: ok ($(( $(date +%s) - start ))s)"
  else
    echo "vet $t: FAILED"
    fail=1
  fi
done
exit $fail
