#!/usr/bin/env bash
# Issue 12's measurements, side by side in one run (docs/PERFORMANCE.md, "All sessions"):
#   1. `ccdag check` of one 100 MB generated log vs `jq -c .uuid` and `ccusage session --json`;
#   2. `ccdag sessions` / `check` over a generated history of 1 000 sessions: GB/s wall, peak memory;
#   3. `ccdag search` over it: GB/s wall and the time to the first hit;
#   4. workspace/symbol with it indexed (BenchmarkWorkspaceSymbols).
# Generated data goes to a temporary folder ($TMPDIR) and is deleted at the end.
#
#   scripts/perf-history.sh                 # RUNS=5 SESSIONS=1000 SIZE=2300000 (2.7 GB)
#   CCUSAGE=/path/to/ccusage scripts/perf-history.sh
#   HIST=/tmp/h scripts/perf-history.sh     # use (and keep) a history made by scripts/genhistory
#
# ccusage: $CCUSAGE, else `ccusage` on PATH; its native binary is what the issue names (npm
# package @ccusage/ccusage-linux-x64; the JS entry point works too but starts node). jq and ccusage
# are skipped with a note when absent. Times are the best of RUNS (HRUNS over the history), wall
# and CPU each; memory is the peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
HRUNS=${HRUNS:-$RUNS} # runs of each measurement over the history
SESSIONS=${SESSIONS:-1000}
SIZE=${SIZE:-2300000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/ccdag" ./cmd/ccdag
go build -o "$TMP/genhistory" ./scripts/genhistory
go build -o "$TMP/mapfloor" ./scripts/mapfloor
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"

# best WALL_S CPU_S PEAK_MB of RUNS runs of a command (stdout discarded)
best() {
  python3 - "$RUNS" "$@" <<'EOF'
import os, sys, time
n = int(sys.argv[1]); cmd = sys.argv[2:]
bw = bc = 1e9; rss = 0
for _ in range(n):
    t = time.monotonic(); pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2); os.execvp(cmd[0], cmd)
    _, st, ru = os.wait4(pid, 0)
    bw = min(bw, time.monotonic() - t); bc = min(bc, ru.ru_utime + ru.ru_stime); rss = max(rss, ru.ru_maxrss)
print(f"{bw:.3f} {bc:.3f} {rss/1024:.0f}")
EOF
}

# first WALL_S: the best time from start to the first byte on stdout
first() {
  python3 - "$RUNS" "$@" <<'EOF'
import os, subprocess, sys, time
n = int(sys.argv[1]); cmd = sys.argv[2:]; b = 1e9
for _ in range(n):
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdout.read(1); b = min(b, time.monotonic() - t); p.kill(); p.wait()
print(f"{b:.3f}")
EOF
}

ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a/b:.1f}x' if b > 0 else '-')" "$1" "$2"; }
gbs() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2])/1e9:.2f}')" "$1" "$2"; }

echo
echo "== 1. one 100 MB generated log"
mkdir -p "$TMP/one"
"$TMP/genhistory" -dir "$TMP/one" -sessions 1 -projects 1 -size 104857600 >/dev/null
LOG=$(find "$TMP/one" -name '*.jsonl')
BYTES=$(stat -c %s "$LOG")
read -r cw cc cm < <(best "$TMP/ccdag" check --fail-on never "$LOG")
printf '%-44s %7ss wall %7ss cpu %6s MB  %s GB/s\n' "ccdag check" "$cw" "$cc" "$cm" "$(gbs "$BYTES" "$cw")"
# The floors: a pass over the page-cached bytes, and mapping them as ccdag does plus two counts.
read -r ww wc wm < <(best wc -l "$LOG")
printf '%-44s %7ss wall %7ss cpu %6s MB\n' "floor: wc -l" "$ww" "$wc" "$wm"
read -r fw fc fm < <(best "$TMP/mapfloor" "$LOG")
printf '%-44s %7ss wall %7ss cpu %6s MB\n' "floor: map + count newlines and quotes" "$fw" "$fc" "$fm"
if command -v jq >/dev/null; then
  read -r jw jc jm < <(best jq -c .uuid "$LOG")
  printf '%-44s %7ss wall %7ss cpu %6s MB  ccdag is %s faster\n' "jq -c .uuid" "$jw" "$jc" "$jm" "$(ratio "$jw" "$cw")"
else
  echo "jq: not installed (apt-get install -y jq)"
fi
CCU=${CCUSAGE:-$(command -v ccusage || true)}
if [ -n "$CCU" ]; then
  # ccusage reads $CLAUDE_CONFIG_DIR/projects: the same file in a fake config folder
  export CLAUDE_CONFIG_DIR="$TMP/one"
  read -r uw uc um < <(best "$CCU" session --json)
  unset CLAUDE_CONFIG_DIR
  printf '%-44s %7ss wall %7ss cpu %6s MB  ccdag is %s faster\n' "ccusage session --json ($(basename "$CCU"))" "$uw" "$uc" "$um" "$(ratio "$uw" "$cw")"
else
  echo "ccusage: not found (set CCUSAGE to its native binary)"
fi
rm -rf "$TMP/one"

echo
echo "== 2-3. a generated history: $SESSIONS sessions"
H=${HIST:-$TMP/h}
[ -n "${HIST:-}" ] || "$TMP/genhistory" -dir "$H" -sessions "$SESSIONS" -size "$SIZE"
HB=$(find "$H" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "$(find "$H" -name '*.jsonl' | wc -l) logs, $HB bytes"
find "$H" -name '*.jsonl' -exec cat {} + >/dev/null # into the page cache: every run reads it warm
for cmd in sessions check; do
  args=("$cmd" "$H/projects")
  [ "$cmd" = check ] && args=(check --fail-on never "$H/projects")
  read -r w c m < <(RUNS=$HRUNS best "$TMP/ccdag" "${args[@]}")
  printf '%-44s %7ss wall %7ss cpu %6s MB peak  %s GB/s  memory %s of the history\n' "ccdag $cmd" "$w" "$c" "$m" "$(gbs "$HB" "$w")" \
    "$(python3 -c "import sys; print(f'1/{float(sys.argv[1])/(float(sys.argv[2])*2**20):.0f}')" "$HB" "$m")"
done
for q in "zzqqxx" "retries timeout" "file123.go"; do
  read -r w c m < <(RUNS=$HRUNS best "$TMP/ccdag" search "$q" "$H/projects")
  hits=$("$TMP/ccdag" search "$q" "$H/projects" | wc -l || true)
  f=-
  [ "$hits" -gt 0 ] && f=$(first "$TMP/ccdag" search "$q" "$H/projects")
  printf '%-44s %7ss wall %7ss cpu %6s MB peak  %s GB/s  first hit %ss  (%s hits)\n' "ccdag search \"$q\"" "$w" "$c" "$m" "$(gbs "$HB" "$w")" "$f" "$hits"
done

echo
echo "== 4. workspace/symbol over the same history"
CCDAG_HISTORY="$H" go test -run '^$' -bench WorkspaceSymbols -benchtime 1x ./internal/lsp | grep Benchmark | tr '\t' '\n' | sed -n '3,$p' | sed 's/^ */  /'
