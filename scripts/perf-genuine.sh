#!/usr/bin/env bash
# Issue 30's figures (SPEC §14; docs/PERFORMANCE.md, "A genuine history (issue 30)"), in one run, on
# the genuine history (scripts/genuine-history.sh) and on a generated one (scripts/genhistory):
#   1. `ccdag sessions --format json` against ccusage's native binary (`claude session --json`),
#      the two run in turn, A B A B ..., each pair's ratio taken: cold (an empty $CCDAG_CACHE_DIR
#      before each ccdag run), warm (nothing changed), grown (one log a record longer before each
#      ccdag run); `rg -c uuid` over the same folder as the floor of reading it;
#      checks: warm output byte-identical to cold; after the growth only that log's row differs;
#   2. the cache's size on disk per GB of logs; `ccdag check` of the history with and without the
#      secret scan (--severity secret=off), in turn;
#   3. `ccdag check` of one 100 MB generated log, scan on and off (--severity secret=off), against
#      `jq -c .uuid`, in turn; then of a 100 MB log of small records (~400 B each, genhistory
#      -record 330: the per-record work, where the first log's long results weigh the per-byte).
# Ratios are ccusage's (or jq's) time over ccdag's: above 1, ccdag is faster. Medians of the pairs.
#
#   scripts/perf-genuine.sh                          # builds both histories in $TMPDIR, deletes them
#   GENUINE=/tmp/genuine GENERATED=/tmp/gen scripts/perf-genuine.sh   # use (and keep) those
#   PAIRS=5 CCUSAGE=/path/to/ccusage CCDAG=/path/to/ccdag scripts/perf-genuine.sh
#   ONLY=grown GENUINE=... GENERATED=... scripts/perf-genuine.sh   # warm and grown only, both histories
#
# ccusage: $CCUSAGE, else ccusage@20.0.24 installed with npm into the temporary folder (its native
# binary, npm package @ccusage/ccusage-linux-x64). It runs with CLAUDE_CONFIG_DIR=the history and
# HOME=an empty folder (it reads other agents' logs from HOME), --offline (no price download).
# The histories are never changed: the runs read a hard-linked copy, the grown log a real copy.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
SESSIONS=${SESSIONS:-500}     # generated history: sessions of SIZE bytes (500 MB by default)
SIZE=${SIZE:-1000000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ -z "${CCDAG:-}" ]; then
  # as released (goreleaser, make vsix): static, no cgo; a cgo build links glibc dynamically and
  # starts ~1 ms slower, a twentieth of a warm listing
  CGO_ENABLED=0 go build -trimpath -o "$TMP/ccdag" ./cmd/ccdag
  CCDAG=$TMP/ccdag
fi
go build -o "$TMP/genhistory" ./scripts/genhistory
if [ -z "${CCUSAGE:-}" ]; then
  npm install --silent --no-audit --no-fund --prefix "$TMP/ccusage" ccusage@20.0.24 >/dev/null
  CCUSAGE=$TMP/ccusage/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage
  chmod +x "$CCUSAGE"
fi
mkdir -p "$TMP/home"
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$CCDAG" version 2>/dev/null | head -1), ccusage $("$CCUSAGE" --version)"

# pairs NAME SETUP_A OUT_A -- A... -- B...: A and B in turn PAIRS times after one warm-up pair;
# SETUP_A (a shell command, or "") runs before each A, untimed; A's stdout of the last run goes to
# OUT_A (or nowhere). Prints NAME, the medians of A and B (wall, cpu) and of the ratios B/A.
pairs() {
  python3 - "$PAIRS" "$@" <<'EOF'
import os, statistics, subprocess, sys, time
n = int(sys.argv[1]); name, setup, out = sys.argv[2:5]
rest = sys.argv[6:]; k = rest.index("--"); a, b = rest[:k], rest[k + 1:]
def run(cmd, path):
    fd = os.open(path or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    t = time.monotonic(); pid = os.fork()
    if pid == 0:
        os.dup2(fd, 1); null = os.open(os.devnull, os.O_WRONLY); os.dup2(null, 2); os.execvp(cmd[0], cmd)
    _, st, ru = os.wait4(pid, 0); w = time.monotonic() - t; os.close(fd)
    if st != 0:
        sys.exit(f"{name}: {cmd[0]} exited with status {st >> 8}")
    return w, ru.ru_utime + ru.ru_stime
A, B = [], []
for i in range(n + 1):
    if setup:
        subprocess.run(setup, shell=True, check=True)
    ra = run(a, out or None); rb = run(b, None)
    if i:  # the first pair warms the page cache
        A.append(ra); B.append(rb)
med = lambda xs: statistics.median(xs)
ratio = [y[0] / x[0] for x, y in zip(A, B)]; cratio = [y[1] / x[1] for x, y in zip(A, B)]
print(f"{name:<34} {med([x[0] for x in A]):7.3f} s wall {med([x[1] for x in A]):6.3f} s cpu | "
      f"{med([y[0] for y in B]):6.3f} s wall {med([y[1] for y in B]):6.3f} s cpu | "
      f"wall {med(ratio):6.2f}x ({min(ratio):.2f}-{max(ratio):.2f})  cpu {med(cratio):6.2f}x ({min(cratio):.2f}-{max(cratio):.2f})")
EOF
}

bytes() { find "$1" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }

# rows DIFF COLD GROWN LOG: the two sessions JSON outputs differ in LOG's row only (and in the totals)
rows() {
  python3 - "$@" <<'EOF'
import json, sys
a, b, log = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
ra = {r["path"]: r for r in a["sessions"]}; rb = {r["path"]: r for r in b["sessions"]}
changed = sorted(p for p in ra.keys() | rb.keys() if ra.get(p) != rb.get(p))
if changed == [log]:
    print(f"ok: only the grown log's row changed ({ra[log]['records']} -> {rb[log]['records']} records)")
else:
    print(f"FAIL: {len(changed)} rows changed: {changed[:5]}"); sys.exit(1)
EOF
}

history() { # NAME DIR
  local name=$1 src=$2 h=$TMP/run-$1 cache=$TMP/cache-$1
  rm -rf "$h" "$cache"
  cp -al "$src" "$h" 2>/dev/null || cp -a "$src" "$h"
  local hb nf
  hb=$(bytes "$h") nf=$(find "$h" -name '*.jsonl' | wc -l)
  echo
  echo "== $name history: $nf files, $((hb / 1000000)) MB, $(find "$h/projects" -mindepth 1 -maxdepth 1 -type d | wc -l) project folders; load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "                                   A: ccdag                  | B: ccusage (rg)          | B / A: above 1, ccdag faster"
  find "$h" -name '*.jsonl' -exec cat {} + >/dev/null # into the page cache: every run reads it warm
  export CLAUDE_CONFIG_DIR=$h CCDAG_CACHE_DIR=$cache
  local ccu=("$CCUSAGE" claude session --json --offline)
  if [ "${ONLY:-}" != grown ]; then
    HOME=$TMP/home pairs "sessions cold (empty cache)" "rm -rf '$cache'" "$TMP/$name.cold.json" -- "$CCDAG" sessions --format json -- "${ccu[@]}"
  fi
  HOME=$TMP/home pairs "sessions warm (nothing changed)" "" "$TMP/$name.warm.json" -- "$CCDAG" sessions --format json -- "${ccu[@]}"
  # from inside the config folder (as from ~ with ~/.claude/projects): the paths show relative
  HOME=$TMP/home pairs "sessions warm, run in the history" "" "" -- env -C "$h" "$CCDAG" sessions --format json -- env -C "$h" "${ccu[@]}"
  if [ "${ONLY:-}" != grown ]; then
    if cmp -s "$TMP/$name.cold.json" "$TMP/$name.warm.json"; then
      echo "ok: warm output byte-identical to cold ($(stat -c %s "$TMP/$name.warm.json") bytes)"
    else
      echo "FAIL: warm output differs from cold"
    fi
  fi
  local cb
  cb=$(du -sb "$cache" 2>/dev/null | cut -f1 || echo 0)
  echo "cache on disk: $((cb / 1000)) kB for $((hb / 1000000)) MB of logs: $(python3 -c "import sys; print(f'{int(sys.argv[1])/int(sys.argv[2])*1e3:.1f}')" "$cb" "$hb") MB per GB"
  # the grown log: the largest main log, made a real copy (not a link to the source history)
  local log
  log=$(find "$h/projects" -maxdepth 2 -name '????????-????-????-????-????????????.jsonl' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
  cp --remove-destination "$log" "$log.copy" && mv "$log.copy" "$log"
  local rec="$TMP/$name.record"
  grep '"uuid"' "$log" | tail -1 >"$rec"
  HOME=$TMP/home pairs "sessions, one log grown each time" "cat '$rec' >>'$log'" "$TMP/$name.grown.json" -- "$CCDAG" sessions --format json -- "${ccu[@]}"
  rows "$TMP/$name.warm.json" "$TMP/$name.grown.json" "$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['sessions']; print(next(x['path'] for x in r if x['path'].endswith(sys.argv[2])))" "$TMP/$name.warm.json" "${log#"$h"/}")" || true
  HOME=$TMP/home "$CCDAG" sessions --no-cache --format json >"$TMP/$name.nocache.json"
  if cmp -s "$TMP/$name.grown.json" "$TMP/$name.nocache.json"; then
    echo "ok: the output after the growth is --no-cache's"
  else
    echo "FAIL: the output after the growth differs from --no-cache's"
  fi
  if [ "${ONLY:-}" = grown ]; then
    unset CLAUDE_CONFIG_DIR CCDAG_CACHE_DIR
    rm -rf "$h" "$cache"
    return
  fi
  pairs "floor: rg -c uuid (vs ccdag warm)" "" "" -- "$CCDAG" sessions --format json -- rg -c uuid "$h/projects"
  # SPEC §14: the scan costs at most 1.5x check without it; here B/A is the inverse, the scan's cost 1/(B/A)
  pairs "check, scan on vs off (secret=off)" "" "" -- "$CCDAG" check --fail-on never "$h/projects" -- "$CCDAG" check --fail-on never --severity secret=off "$h/projects"
  unset CLAUDE_CONFIG_DIR CCDAG_CACHE_DIR
  rm -rf "$h" "$cache"
}

G=${GENUINE:-}
if [ -z "$G" ]; then
  G=$TMP/genuine
  scripts/genuine-history.sh "$G"
fi
history genuine "$G"

N=${GENERATED:-}
if [ -z "$N" ]; then
  N=$TMP/generated
  "$TMP/genhistory" -dir "$N" -sessions "$SESSIONS" -size "$SIZE" >/dev/null
fi
history generated "$N"
[ "${ONLY:-}" = grown ] && exit 0

echo
echo "== check of one 100 MB generated log; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "                                   A: ccdag check            | B: jq -c .uuid           | B / A"
mkdir -p "$TMP/one"
"$TMP/genhistory" -dir "$TMP/one" -sessions 1 -projects 1 -size 104857600 >/dev/null
LOG=$(find "$TMP/one" -name '*.jsonl')
pairs "check, scan on" "" "" -- "$CCDAG" check --fail-on never "$LOG" -- jq -c .uuid "$LOG"
pairs "check, scan off (secret=off)" "" "" -- "$CCDAG" check --fail-on never --severity secret=off "$LOG" -- jq -c .uuid "$LOG"

echo "== check of one 100 MB log of small records; load $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$TMP/small"
"$TMP/genhistory" -dir "$TMP/small" -sessions 1 -projects 1 -size 104857600 -record 330 >/dev/null
LOG=$(find "$TMP/small" -name '*.jsonl')
pairs "check, scan on" "" "" -- "$CCDAG" check --fail-on never "$LOG" -- jq -c .uuid "$LOG"
pairs "check, scan off (secret=off)" "" "" -- "$CCDAG" check --fail-on never --severity secret=off "$LOG" -- jq -c .uuid "$LOG"
