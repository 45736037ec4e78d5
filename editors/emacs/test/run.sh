#!/usr/bin/env bash
# Emacs 28 + eglot batch test of editors/emacs/ccdag.el against the real `ccdag serve`. Exit code = verdict.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }
command -v emacs >/dev/null || skip "emacs not installed (apt-get install emacs-nox elpa-eglot)"
emacs --batch -Q --eval "(progn (setq package-directory-list '(\"/usr/share/emacs/site-lisp/elpa\")) (package-initialize) (kill-emacs (if (require 'eglot nil t) 0 1)))" 2>/dev/null \
  || skip "eglot not installed (apt-get install elpa-eglot)"
. scripts/testcorpus.sh
BIN=${CCDAG_BIN:-$ROOT/bin/ccdag} # CCDAG_BIN: test another build
[ -x "$BIN" ] || { echo "FAIL: $BIN missing (make build)" >&2; exit 1; }
# TMP, SESSION, PROJ (+ a second project), BIG (4 MB), THOUSAND (1 000+ nodes): scripts/editortree.sh
MANY=400 . scripts/editortree.sh "ccdag.el with eglot on a real session with a subagents/ folder (diagnostics, hover, definition into the agent logs, the graph)"
export TZ=Asia/Taipei CCDAG_CACHE_DIR="$TMP/ccdag-cache" # local time is not UTC: the session browser shows local times
export HOME="$TMP/home" PATH="$(dirname "$BIN"):$PATH" CCDAG_ROOT="$ROOT" CCDAG_TEST_MAIN="$PROJ/$SESSION.jsonl" \
  CCDAG_TEST_BIG="$BIG" CCDAG_TEST_THOUSAND="$THOUSAND"
echo "== $(emacs --version | head -1), ccdag: $(command -v ccdag)"
rc=0
timeout 300 emacs --batch -Q -l "$ROOT/editors/emacs/test/test.el" </dev/null || rc=$?
# The 4 MB log opened cold 10 times (a new Emacs and server each, eglot-events-buffer-size 0):
# diagnostics and an answer every time (Emacs 28's jsonrpc lost the stream in 1 of 3: ccdag-jsonrpc.el).
mkdir -p "$TMP/home/.claude/projects/cold"
cp "$BIG" "$TMP/home/.claude/projects/cold/"
cold=0
for i in 1 2 3 4 5 6 7 8 9 10; do
  if CCDAG_TEST_BIG="$TMP/home/.claude/projects/cold/$(basename "$BIG")" timeout 120 \
      emacs --batch -Q -l "$ROOT/editors/emacs/test/cold.el" </dev/null 2>/dev/null | sed "s/^/cold open $i: /"; then
    cold=$((cold + 1))
  fi
done
if [ $cold -eq 10 ]; then echo "ok   - the 4 MB log opened cold 10 times: diagnostics each time"
else echo "FAIL - the 4 MB log opened cold 10 times: diagnostics $cold times"; rc=1; fi
exit $rc
