#!/usr/bin/env bash
# VS Code's JSON-RPC stack (vscode-languageserver-protocol) against the real `ccdag serve --stdio`.
set -euo pipefail
cd "$(dirname "$0")"
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }
command -v node >/dev/null || skip "node not installed"
if [ ! -d node_modules/vscode-languageserver-protocol ]; then
  command -v npm >/dev/null || skip "npm not installed"
  npm ci --no-audit --no-fund
fi
[ -x "${CCDAG_BIN:-../../bin/ccdag}" ] || { echo "FAIL: bin/ccdag missing (make build)" >&2; exit 1; }
exec node --test --test-reporter=spec test/
