#!/usr/bin/env bash
# `make test-html`: the graph viewer's checks and browser tests.
#  1. the committed bundle (internal/graphhtml/assets/) is what `npm run build` makes;
#  2. the TypeScript type-checks;
#  3. node --test test/html.test.mjs in Debian's chromium (screenshots in test-artifacts/).
# Without node, chromium or `npm ci` it prints SKIP and exits 0, unless CI is set.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  if [ -n "${CI:-}" ]; then
    echo "FAIL: $1 (CI is set, so this is not skipped)" >&2
    exit 1
  fi
  echo "SKIP: $1"
  exit 0
}

command -v node >/dev/null || skip "node is not installed"
command -v go >/dev/null || skip "go is not installed"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "chromium is not installed (apt-get install chromium, see .ci/install.d/20-chromium.sh)"
[ -d node_modules/playwright-core ] && [ -d node_modules/esbuild ] || skip "editors/graphview/node_modules is missing (npm ci in editors/graphview)"

echo "== graphview: committed bundle matches a fresh build"
node build.mjs --check
echo "== graphview: type-check"
node node_modules/typescript/bin/tsc --noEmit -p .
echo "== graphview: browser tests"
node --test test/html.test.mjs
