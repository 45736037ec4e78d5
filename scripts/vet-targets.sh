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
# -trimpath and CGO_ENABLED=0 as `make vsix` and goreleaser build the same six targets: the packages
# compiled here for a target (vet needs them built) are then taken from Go's build cache there, not
# compiled again. Two targets at a time (VET_JOBS): one go vet leaves a core idle in its serial
# stretches (a package waiting for the one it imports, the vet of a big package).
vet() {
  local t=$1 start out
  start=$(date +%s)
  if out=$(GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 "$GO" vet -trimpath ./cmd/... ./internal/... ./scripts/... 2>&1); then
    echo "vet $t: ok ($(( $(date +%s) - start ))s)"
  else
    printf '%s\nvet %s: FAILED\n' "$out" "$t"
    touch "$failed/${t//\//-}"
  fi
}
failed=$(mktemp -d)
trap 'rm -rf "$failed"' EXIT
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${VET_JOBS:-2}" ]; do
    wait -n || true
  done
  vet "$t" &
done
wait
[ -z "$(ls -A "$failed")" ]
