#!/usr/bin/env bash
# What internal/graph's renderer tests need: Graphviz (the DOT output is rendered and read back),
# Debian's chromium and Mermaid from npm (the Mermaid output is rendered by Mermaid itself).
set -euo pipefail
cd "$(dirname "$0")/../.."
if command -v apt-get >/dev/null; then
  need=()
  # node and npm come with the machine (nodesource); Debian's npm package conflicts with them.
  for p in graphviz chromium; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
(cd internal/graph/testdata/mermaid && npm ci --no-audit --no-fund --loglevel=error)
