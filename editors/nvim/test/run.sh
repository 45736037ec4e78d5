#!/usr/bin/env bash
# Neovim end-to-end test: the plugin, loaded as a user loads it, against the real `ccdag serve`,
# on a real session with a subagents/ folder. Exit code = verdict.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }

command -v nvim >/dev/null || skip "nvim not installed (apt-get install neovim)"
SESSION=87bcc603-30fb-432c-beb2-9c774a335172
. scripts/testcorpus.sh
REL=Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo
need_corpus "$REL/$SESSION.jsonl" "the Neovim plugin on a real session with a subagents/ folder (diagnostics, hover, definition into the agent logs, the text graph)"
SRC=$CCDAG_CORPUS/$REL
BIN=${CCDAG_BIN:-$ROOT/bin/ccdag} # CCDAG_BIN: test another build
[ -x "$BIN" ] || { echo "FAIL: $BIN missing (make build)" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The session as Claude Code lays it out: main log + <session>/subagents/ under .claude/projects/x/
PROJ="$TMP/home/.claude/projects/x"
mkdir -p "$PROJ"
cp "$SRC/$SESSION.jsonl" "$PROJ/"
cp -r "$SRC/$SESSION" "$PROJ/"
chmod -R u+w "$PROJ"
# A second project, as Claude Code names it from the folder it ran in: the session browser and
# Ctrl+T are driven on more than one project.
ERK="dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl"
need_corpus "$ERK" "the session browser and workspace symbols on a second project"
mkdir -p "$TMP/home/.claude/projects/-Users-x-erk"
cp "$CCDAG_CORPUS/$ERK" "$TMP/home/.claude/projects/-Users-x-erk/"
chmod -R u+w "$TMP/home/.claude/projects/-Users-x-erk"
# A 4 MB log (the session, then another one's records, whole lines) outside the projects folder:
# the time from opening it to its diagnostics is measured.
BIG_SRC="$CCDAG_CORPUS/CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl"
need_corpus "CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl" "the time from opening a 4 MB log to its diagnostics"
mkdir -p "$TMP/big"
LC_ALL=C awk '{ n += length($0) + 1; print; if (n >= 4194304) exit }' "$SRC/$SESSION.jsonl" "$BIG_SRC" > "$TMP/big/4f4f4f4f-4f4f-4f4f-8f4f-4f4f4f4f4f4f.jsonl"

# A generated session of over 1 000 graph nodes (scripts/genhistory; no corpus session is that big):
# the text graph draws each node, and how long it takes is measured.
mkdir -p "$TMP/gen"
(cd "$ROOT" && go run ./scripts/genhistory -dir "$TMP/gen" -sessions 1 -projects 1 -size 5200000 >/dev/null)
THOUSAND=$(find "$TMP/gen" -name '*.jsonl' | head -1)

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" \
  XDG_STATE_HOME="$TMP/state" XDG_CACHE_HOME="$TMP/cache"
unset DISPLAY WAYLAND_DISPLAY
export PATH="$(dirname "$BIN"):$PATH"
export CCDAG_NVIM_PLUGIN="$ROOT/editors/nvim" CCDAG_TEST_TMP="$TMP" CCDAG_TEST_MAIN="$PROJ/$SESSION.jsonl" \
  CCDAG_TEST_BIG="$TMP/big/4f4f4f4f-4f4f-4f4f-8f4f-4f4f4f4f4f4f.jsonl" CCDAG_TEST_THOUSAND="$THOUSAND" \
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
exit $rc
