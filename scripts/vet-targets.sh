#!/usr/bin/env bash
# go vet (which builds every package and test binary) for each release target (SPEC §9): the
# tests run on linux, so this is what holds darwin and windows building.
#   scripts/vet-targets.sh [GOOS/GOARCH ...]   default: the six targets
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fail=0
for t in "${targets[@]}"; do
  start=$(date +%s)
  if GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 "$GO" vet ./...; then
    echo "vet $t: ok ($(( $(date +%s) - start ))s)"
  else
    echo "vet $t: FAILED"
    fail=1
  fi
done
exit $fail
