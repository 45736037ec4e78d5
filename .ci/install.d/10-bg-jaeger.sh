#!/usr/bin/env bash
# Jaeger all-in-one for the OpenTelemetry export test (internal/cli/jaeger_test.go, docs/spec.md §12):
# built from tools/jaeger (a module of its own: the product's go.mod stays lean) once per version,
# cached under /opt/ccdag-ci/jaeger/<version>/jaeger. A large build (~2 300 packages, the Elasticsearch
# client's typed API most of them): on the shared 2-core machine under load 30-50 it had not finished
# after 87 min (2026-11-26, stopped); a second try, resuming from Go's build cache, took 655 s more.
# It has no UI assets (the query page is a placeholder); the API the test reads is all there.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(awk '$1 == "github.com/jaegertracing/jaeger" {print $2}' tools/jaeger/go.mod)
dest=${CCDAG_CI_DIR:-/opt/ccdag-ci}/jaeger/$version
if [ -x "$dest/jaeger" ]; then
  exit 0
fi
mkdir -p "$dest"
start=$(date +%s)
(cd tools/jaeger && go build -trimpath -o "$dest/jaeger.tmp" github.com/jaegertracing/jaeger/cmd/jaeger)
mv "$dest/jaeger.tmp" "$dest/jaeger"
echo "jaeger $version built in $(( $(date +%s) - start ))s: $dest/jaeger"
