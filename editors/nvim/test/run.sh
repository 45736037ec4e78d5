#!/usr/bin/env bash
# Neovim end-to-end test: the plugin, loaded as a user loads it, against the real `ccdag serve`,
# on a real session with a subagents/ folder. Exit code = verdict.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }

command -v nvim >/dev/null || skip "nvim not installed (apt-get install neovim)"
. scripts/testcorpus.sh
BIN=${CCDAG_BIN:-$ROOT/bin/ccdag} # CCDAG_BIN: test another build
[ -x "$BIN" ] || { echo "FAIL: $BIN missing (make build)" >&2; exit 1; }
# TMP, SESSION, PROJ (+ a second project), BIG (4 MB), THOUSAND (1 000+ nodes): scripts/editortree.sh
MANY=400 . scripts/editortree.sh "the Neovim plugin on a real session with a subagents/ folder (diagnostics, hover, definition into the agent logs, the text graph)"

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" \
  XDG_STATE_HOME="$TMP/state" XDG_CACHE_HOME="$TMP/cache" CCDAG_CACHE_DIR="$TMP/ccdag-cache" \
  TZ=Asia/Taipei # local time is not UTC here: the session browser shows local times
unset DISPLAY WAYLAND_DISPLAY
export PATH="$(dirname "$BIN"):$PATH"
export CCDAG_NVIM_PLUGIN="$ROOT/editors/nvim" CCDAG_TEST_TMP="$TMP" CCDAG_TEST_MAIN="$PROJ/$SESSION.jsonl" \
  CCDAG_TEST_BIG="$BIG" CCDAG_TEST_THOUSAND="$THOUSAND" \
  CCDAG_TEST_LIVE="$ROOT/internal/lsp/testdata/subagents" # a small session whose sub-agent appears during the test

echo "== nvim $(nvim --version | head -1), ccdag: $(command -v ccdag)"
rc=0
timeout 300 nvim --headless -i NONE -n -u "$ROOT/editors/nvim/test/init.lua" \
  -c "luafile $ROOT/editors/nvim/test/test.lua" </dev/null || rc=$?
if [ $rc -ne 0 ]; then
  echo "nvim test failed (exit $rc); server log tail:"
  tail -n 30 "$TMP/server.log" 2>/dev/null || true
  for f in "$TMP"/state/nvim/lsp.log "$TMP"/cache/nvim/lsp.log; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
  done
fi
# No server running: the session browser from `ccdag sessions` (paths relative to its folder).
timeout 120 nvim --headless -i NONE -n -u NONE -c "luafile $ROOT/editors/nvim/test/cli.lua" </dev/null || rc=1
# Without ccdag on PATH: one clear message, no Lua stack trace.
mkdir -p "$TMP/nopath"
ln -s "$(command -v nvim)" "$TMP/nopath/nvim"
PATH="$TMP/nopath:/usr/bin:/bin" CCDAG_TEST_OTHER="$TMP/home/.claude/projects/-Users-x-erk/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl" \
  timeout 60 nvim --headless -i NONE -n -u NONE -c "luafile $ROOT/editors/nvim/test/nopath.lua" </dev/null || rc=1
exit $rc
