#!/usr/bin/env bash
# The plugin as a package manager places it: editors/nvim copied to pack/ccdag/start/ccdag on
# 'packpath' (lazy.nvim, packer and vim.pack all clone the repository and put it on the runtime
# path; Neovim's own package loading is the common floor, and what 0.7 has). Nothing else is set:
# the plugin loads itself at startup, setup() starts the server on a session log, and
# :checkhealth ccdag lists what the server answered to initialize. Exit code = verdict.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }
command -v nvim >/dev/null || skip "nvim not installed (apt-get install neovim)"
BIN=${CCDAG_BIN:-$ROOT/bin/ccdag}
[ -x "$BIN" ] || { echo "FAIL: $BIN missing (make build)" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/site/pack/ccdag/start" "$TMP/home/.claude/projects/x" "$TMP/config/nvim"
cp -r "$ROOT/editors/nvim" "$TMP/site/pack/ccdag/start/ccdag"
cp "$ROOT/testdata/sessions/demo/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl" "$TMP/home/.claude/projects/x/"
# The user's init.lua: packpath and setup() only, as the README says.
cat > "$TMP/config/nvim/init.lua" <<LUA
vim.opt.packpath:prepend('$TMP/site')
LUA
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" \
  XDG_STATE_HOME="$TMP/state" XDG_CACHE_HOME="$TMP/cache" CCDAG_TEST_PACK="$TMP/site/pack/ccdag/start/ccdag"
export PATH="$(dirname "$BIN"):$PATH"
echo "== nvim $(nvim --version | head -1), the plugin from pack/ccdag/start on packpath"
timeout 120 nvim --headless -i NONE -n -c "luafile $ROOT/editors/nvim/test/pack.lua" \
  "$TMP/home/.claude/projects/x/3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl" </dev/null
