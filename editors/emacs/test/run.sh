#!/usr/bin/env bash
# Emacs 28 + eglot batch test of editors/emacs/ccdag.el against the real `ccdag serve`. Exit code = verdict.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }
command -v emacs >/dev/null || skip "emacs not installed (apt-get install emacs-nox elpa-eglot)"
emacs --batch -Q --eval "(progn (setq package-directory-list '(\"/usr/share/emacs/site-lisp/elpa\")) (package-initialize) (kill-emacs (if (require 'eglot nil t) 0 1)))" 2>/dev/null \
  || skip "eglot not installed (apt-get install elpa-eglot)"
SESSION=87bcc603-30fb-432c-beb2-9c774a335172
. scripts/testcorpus.sh
REL=Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo
need_corpus "$REL/$SESSION.jsonl" "ccdag.el with eglot on a real session with a subagents/ folder (diagnostics, hover, definition into the agent logs, the graph)"
SRC=$CCDAG_CORPUS/$REL
BIN=${CCDAG_BIN:-$ROOT/bin/ccdag} # CCDAG_BIN: test another build
[ -x "$BIN" ] || { echo "FAIL: $BIN missing (make build)" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
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
# A 4 MB log (the session, then another one's records, whole lines): the time from opening it to
# its diagnostics is measured (the test copies it into the projects folder).
BIG_SRC="$CCDAG_CORPUS/CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl"
need_corpus "CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl" "the time from opening a 4 MB log to its diagnostics"
mkdir -p "$TMP/big"
LC_ALL=C awk '{ n += length($0) + 1; print; if (n >= 4194304) exit }' "$SRC/$SESSION.jsonl" "$BIG_SRC" > "$TMP/big/4f4f4f4f-4f4f-4f4f-8f4f-4f4f4f4f4f4f.jsonl"
# A generated session of over 1 000 graph nodes (scripts/genhistory; no corpus session is that big):
# the text graph draws each node, and how long it takes is measured.
mkdir -p "$TMP/gen"
(cd "$ROOT" && go run ./scripts/genhistory -dir "$TMP/gen" -sessions 1 -projects 1 -size 5200000 >/dev/null)
THOUSAND=$(find "$TMP/gen" -name '*.jsonl' | head -1)
export HOME="$TMP/home" PATH="$(dirname "$BIN"):$PATH" CCDAG_ROOT="$ROOT" CCDAG_TEST_MAIN="$PROJ/$SESSION.jsonl" \
  CCDAG_TEST_BIG="$TMP/big/4f4f4f4f-4f4f-4f4f-8f4f-4f4f4f4f4f4f.jsonl" CCDAG_TEST_THOUSAND="$THOUSAND"
echo "== $(emacs --version | head -1), ccdag: $(command -v ccdag)"
timeout 300 emacs --batch -Q -l "$ROOT/editors/emacs/test/test.el" </dev/null
