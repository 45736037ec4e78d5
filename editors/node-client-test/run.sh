#!/usr/bin/env bash
# VS Code's JSON-RPC stack (vscode-languageserver-protocol) against the real `ccdag serve --stdio`.
set -euo pipefail
cd "$(dirname "$0")"
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }
command -v node >/dev/null || skip "node not installed"
if [ ! -d node_modules/vscode-languageserver-protocol ] || [ ! -d node_modules/vscode-languageserver-textdocument ]; then
  command -v npm >/dev/null || skip "npm not installed"
  npm ci --no-audit --no-fund
fi
. ../../scripts/testcorpus.sh
need_corpus dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl \
  "VS Code's JSON-RPC client against ccdag serve on a real log (diagnostics, hover, definition, the graph command, lifecycle)"
[ -x "${CCDAG_BIN:-../../bin/ccdag}" ] || { echo "FAIL: bin/ccdag missing (make build)" >&2; exit 1; }
exec node --test --test-reporter=spec test/
