# Sourced by the Neovim and Emacs e2e (editors/*/test/run.sh), after scripts/testcorpus.sh, with
# ROOT set: makes the tree both drive, in a new temporary folder TMP (removed on exit).
#   SESSION, PROJ  a real session with a subagents/ folder, laid out as Claude Code does
#                  (main log + <session>/subagents/ under $TMP/home/.claude/projects/x/)
#   (a second project, -Users-x-erk: the session browser and Ctrl+T are driven on more than one)
#   BIG            a 4 MB log (the session, then another one's records, whole lines) outside the
#                  projects folder: the time from opening it to its diagnostics is measured
#   THOUSAND       a generated session of over 1 000 graph nodes (scripts/genhistory; no corpus
#                  session is that big): the text graph draws each node, timed
#   MANY=N         (set before sourcing) N generated sessions of about 4 KB over 8 more projects
#                  (-home-dev-projectNN) beside them: the session browsers fill without blocking
#                  the editor (400: a few seconds to make)
# $1 says what the real session is used for, in the skip or failure message.
SESSION=87bcc603-30fb-432c-beb2-9c774a335172
REL=Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo
need_corpus "$REL/$SESSION.jsonl" "$1"
ERK="dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl"
need_corpus "$ERK" "the session browser and workspace symbols on a second project"
BIG_REL="CH-chuan__CommuGraph/public/samples/claudecode/ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl"
need_corpus "$BIG_REL" "the time from opening a 4 MB log to its diagnostics"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SRC=$CCDAG_CORPUS/$REL
PROJ="$TMP/home/.claude/projects/x"
mkdir -p "$PROJ" "$TMP/home/.claude/projects/-Users-x-erk" "$TMP/big" "$TMP/gen"
cp "$SRC/$SESSION.jsonl" "$PROJ/"
cp -r "$SRC/$SESSION" "$PROJ/"
cp "$CCDAG_CORPUS/$ERK" "$TMP/home/.claude/projects/-Users-x-erk/"
chmod -R u+w "$TMP/home/.claude/projects"
BIG="$TMP/big/4f4f4f4f-4f4f-4f4f-8f4f-4f4f4f4f4f4f.jsonl"
LC_ALL=C awk '{ n += length($0) + 1; print; if (n >= 4194304) exit }' "$SRC/$SESSION.jsonl" "$CCDAG_CORPUS/$BIG_REL" > "$BIG"
(cd "$ROOT" && go run ./scripts/genhistory -dir "$TMP/gen" -sessions 1 -projects 1 -size 5200000 >/dev/null)
THOUSAND=$(find "$TMP/gen" -name '*.jsonl' | head -1)
if [ -n "${MANY:-}" ]; then
  (cd "$ROOT" && go run ./scripts/genhistory -dir "$TMP/home/.claude" -sessions "$MANY" -projects 8 -size 4000 >/dev/null)
fi
