#!/usr/bin/env bash
# Runs goreleaser at the version tools/goreleaser/go.mod pins (a Go tool in its own module: the
# product's go.mod stays lean). The binary is built once per version and kept under
# $CCDAG_TOOLS/goreleaser/<version>/ (default /opt/ccdag-ci, else ~/.cache/ccdag-tools when /opt is
# not writable): it is a big build (several minutes on 2 cores), done by .ci/install.d/10-bg-goreleaser.sh.
#   scripts/goreleaser.sh --install        build it if absent, print its path
#   scripts/goreleaser.sh ARGS...          goreleaser ARGS... (building it first if absent)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
ver=$(awk '$1 == "github.com/goreleaser/goreleaser/v2" { print $2 }' tools/goreleaser/go.mod)
[ -n "$ver" ] || { echo "goreleaser.sh: no goreleaser version in tools/goreleaser/go.mod" >&2; exit 1; }
tools=${CCDAG_TOOLS:-/opt/ccdag-ci}
if ! mkdir -p "$tools/goreleaser" 2>/dev/null || [ ! -w "$tools/goreleaser" ]; then
  tools=${XDG_CACHE_HOME:-$HOME/.cache}/ccdag-tools
fi
bin=$tools/goreleaser/$ver/goreleaser
if [ ! -x "$bin" ]; then
  echo "goreleaser.sh: building goreleaser $ver into $bin (once per version)" >&2
  start=$(date +%s)
  mkdir -p "$(dirname "$bin")"
  (cd tools/goreleaser && CGO_ENABLED=0 "$GO" build -trimpath -o "$bin.tmp" github.com/goreleaser/goreleaser/v2)
  mv "$bin.tmp" "$bin"
  echo "goreleaser.sh: built in $(( $(date +%s) - start ))s" >&2
fi
if [ "${1:-}" = --install ]; then
  echo "$bin"
  exit 0
fi
exec "$bin" "$@"
