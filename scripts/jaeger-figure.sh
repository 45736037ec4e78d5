#!/usr/bin/env bash
# The README's picture of a session as a trace in Jaeger (docs/img/jaeger-trace.png): Jaeger all-in-one
# (.ci/install.d/80-jaeger.sh) on loopback ports, the demo session exported into it, Jaeger's trace
# page taken by Debian's chromium, headless. NOTE: Jaeger built from its Go module carries no UI
# assets (its query page is a placeholder: the UI is a separate npm build embedded by Jaeger's own
# release); the picture needs a Jaeger binary with the UI (CCDAG_JAEGER=…), not yet available here.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(awk '$1 == "github.com/jaegertracing/jaeger" {print $2}' tools/jaeger/go.mod)
jaeger=${CCDAG_JAEGER:-${CCDAG_CI_DIR:-/opt/ccdag-ci}/jaeger/$version/jaeger}
otlp=${OTLP:-127.0.0.1:4318} query=${QUERY:-127.0.0.1:16686}
out=${1:-docs/img/jaeger-trace.png}
tmp=$(mktemp -d)
CCDAG_JAEGER_OTLP=$otlp CCDAG_JAEGER_QUERY=$query CCDAG_JAEGER_QUERY_GRPC=${QUERY_GRPC:-127.0.0.1:16685} \
  "$jaeger" --config tools/jaeger/config.yaml >"$tmp/jaeger.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 300); do curl -fsS "http://$query/api/services" >/dev/null 2>&1 && break; sleep 0.2; done
go build -o "$tmp/ccdag" ./cmd/ccdag
"$tmp/ccdag" export --otlp "http://$otlp" testdata/sessions/demo
sleep 2
trace=$("$tmp/ccdag" export --format otlp-json testdata/sessions/demo 2>/dev/null | grep -o '"traceId":"[0-9a-f]*"' | head -1 | cut -d'"' -f4)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$tmp/chromium" \
  --window-size=1400,860 --virtual-time-budget=20000 --screenshot="$out" "http://$query/trace/$trace" 2>/dev/null
echo "trace $trace: $out"
