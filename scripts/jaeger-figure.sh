#!/usr/bin/env bash
# The pictures of a session as a trace in Jaeger's UI (docs/img/jaeger-trace.png, the timeline with
# sub-agents under their calls; docs/img/jaeger-span.png, a chat span's gen_ai attributes), shown in
# README.md and docs/spec.md §12.
#
# usage: scripts/jaeger-figure.sh UI_DIR [SESSION_DIR|FILE...]
#
# UI_DIR is a built jaeger-ui (its packages/jaeger-ui/build folder). Jaeger built from its Go module
# (.ci/install.d/10-bg-jaeger.sh) embeds no UI; the UI is a separate npm project, built outside this
# repository (how: docs/PERFORMANCE.md, "The picture of a trace in Jaeger"); tools/jaeger/config.yaml
# serves it from $CCDAG_JAEGER_UI. The session defaults to the corpus' CommuGraph one (4 sub-agents,
# 147 tool calls). Jaeger runs on loopback ports of its own (OTLP=, QUERY=, QUERY_GRPC= to change);
# the session is exported into it, and scripts/jaeger-figure.cjs drives Debian's Chromium headless
# with playwright-core (from $PLAYWRIGHT_NODE_PATH, else installed from npm into a temporary folder).
set -euo pipefail
ui=${1:?usage: scripts/jaeger-figure.sh UI_DIR [SESSION_DIR|FILE...] (UI_DIR: a jaeger-ui build)}
shift
[ -f "$ui/index.html" ] || { echo "jaeger-figure: $ui has no index.html: not a jaeger-ui build" >&2; exit 2; }
ui=$(cd "$ui" && pwd)
cd "$(dirname "$0")/.."
sessions=("$@")
. scripts/testcorpus.sh
[ ${#sessions[@]} -gt 0 ] || sessions=("$CCDAG_CORPUS/CH-chuan__CommuGraph/public/samples/claudecode")
version=$(awk '$1 == "github.com/jaegertracing/jaeger" {print $2}' tools/jaeger/go.mod)
jaeger=${CCDAG_JAEGER:-${CCDAG_CI_DIR:-/opt/ccdag-ci}/jaeger/$version/jaeger}
otlp=${OTLP:-127.0.0.1:24318} query=${QUERY:-127.0.0.1:26686}
timeline=docs/img/jaeger-trace.png span=docs/img/jaeger-span.png
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; }; rm -rf "$tmp"' EXIT

CCDAG_JAEGER_UI=$ui CCDAG_JAEGER_OTLP=$otlp CCDAG_JAEGER_QUERY=$query \
  CCDAG_JAEGER_QUERY_GRPC=${QUERY_GRPC:-127.0.0.1:26685} OTEL_TRACES_EXPORTER=none \
  "$jaeger" --config tools/jaeger/config.yaml >"$tmp/jaeger.log" 2>&1 &
pid=$!
for _ in $(seq 300); do curl -fsS "http://$query/api/services" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "http://$query/api/services" >/dev/null || { cat "$tmp/jaeger.log" >&2; exit 1; }

go build -o "$tmp/ccdag" ./cmd/ccdag
"$tmp/ccdag" export --otlp "http://$otlp" "${sessions[@]}"
"$tmp/ccdag" export --format otlp-json -o "$tmp/spans.json" "${sessions[@]}" 2>/dev/null
trace=$(grep -m1 -o '"traceId":"[0-9a-f]*"' "$tmp/spans.json" | sed -n 1p | cut -d'"' -f4)
for _ in $(seq 50); do curl -fsS "http://$query/api/traces/$trace" >/dev/null 2>&1 && break; sleep 0.2; done

nodepath=${PLAYWRIGHT_NODE_PATH:-}
if [ -z "$nodepath" ]; then
  version=$(sed -n 's/.*"playwright-core": "\([^"]*\)".*/\1/p' editors/graphview/package.json)
  npm install --prefix "$tmp/pw" --no-save --no-audit --no-fund "playwright-core@$version" >/dev/null
  nodepath=$tmp/pw/node_modules
fi
NODE_PATH=$nodepath node scripts/jaeger-figure.cjs "http://$query" "$trace" "$timeline" "$span"
if command -v pngquant >/dev/null; then
  pngquant --force --skip-if-larger --strip --quality 70-95 --ext .png "$timeline" "$span" || true
fi
ls -l "$timeline" "$span"
echo "trace $trace: $timeline $span"
