#!/usr/bin/env bash
# What `make test-html` needs: Debian's chromium (driven by playwright-core; no browser is
# downloaded), fonts for the screenshots, and the graph viewer's npm dependencies.
set -euo pipefail
cd "$(dirname "$0")/../.."
if command -v apt-get >/dev/null; then
  need=()
  for p in chromium fonts-dejavu-core fonts-liberation; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
(cd editors/graphview && npm ci --no-audit --no-fund --loglevel=error)
