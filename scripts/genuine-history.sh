#!/usr/bin/env bash
# Builds the genuine history of the benchmarks (docs/PERFORMANCE.md, "A genuine history (issue 30)")
# in DEST, outside this repository: DEST/projects/<project>/<session>.jsonl and the sub-agent files as
# Claude Code lays them out, every file a pinned version of a log that public repositories committed
# (scripts/genuine-history.tsv: repository, commit, path, blob, size, mtime, destination).
#
#   scripts/genuine-history.sh /tmp/genuine       # then CLAUDE_CONFIG_DIR=/tmp/genuine, or DIR/projects
#
# The repositories are read from their fetched git directories, $MIRRORS/<owner>+<name>/repo
# (default /work/.mirror): each file is `git show COMMIT:PATH`, checked to be the pinned blob (its
# hash) before it is written, and given the log's newest timestamp as its modification time, so two
# builds are the same history to the byte and to the second. A file already in place with the right
# hash is left alone; a repository whose mirror is absent is named and its files skipped (exit 1).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIST=${LIST:-$ROOT/scripts/genuine-history.tsv}
MIRRORS=${MIRRORS:-/work/.mirror}
[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
DEST=$(realpath -m "$1")
case "$DEST/" in "$ROOT"/*)
  echo "genuine-history: DEST is inside the repository ($ROOT): the logs stay out of it" >&2
  exit 2
  ;;
esac
mkdir -p "$DEST"

missing=() files=0 bytes=0 kept=0
while IFS=$'\t' read -r repo commit path blob size mtime dest; do
  case "$repo" in '#'* | '') continue ;; esac
  git=$MIRRORS/${repo/\//+}/repo
  if [ ! -d "$git" ]; then
    [[ " ${missing[*]-} " == *" $repo "* ]] || missing+=("$repo")
    continue
  fi
  out=$DEST/$dest
  files=$((files + 1)) bytes=$((bytes + size))
  if [ -f "$out" ] && [ "$(git hash-object "$out")" = "$blob" ]; then
    kept=$((kept + 1))
    touch -d "@$mtime" "$out"
    continue
  fi
  got=$(git -C "$git" rev-parse "$commit:$path")
  [ "$got" = "$blob" ] || { echo "genuine-history: $repo $commit:$path is $got, not $blob" >&2; exit 1; }
  mkdir -p "$(dirname "$out")"
  git -C "$git" show "$commit:$path" >"$out.part"
  [ "$(git hash-object "$out.part")" = "$blob" ] || { echo "genuine-history: $out: hash differs from $blob" >&2; exit 1; }
  mv "$out.part" "$out"
  touch -d "@$mtime" "$out"
done <"$LIST"

echo "$files files, $bytes bytes in $DEST/projects ($kept already in place)"
if [ ${#missing[@]} -gt 0 ]; then
  echo "genuine-history: no mirror of ${missing[*]} in $MIRRORS (fetch them first); their files were skipped" >&2
  exit 1
fi
