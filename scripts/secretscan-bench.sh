#!/usr/bin/env bash
# The secret scan's cost (issue 24, docs/PERFORMANCE.md "The secret scan"): `ccdag check` of the
# generated 100 MB log with the scan and with `--severity secret=off`, run in turn (A B A B ...),
# CPU time (user+sys of the finished process, steadier than wall time on a loaded machine) side by
# side with the ratio pair by pair, then the medians.
#
# Then the long-string cases of issue 30: one record whose text is 64 KB or 4 MB of
# `token=<20 random characters> ` assignments (each a generic-api-key finding) or of the same with
# a low-entropy value (no finding), against one record of plain prose of the same size, the scan on.
#
#   scripts/secretscan-bench.sh              # RUNS=7 SIZE=104857600
#   LOG=/path/to/dir scripts/secretscan-bench.sh   # another folder of logs (genuine ones, say)
#   STRINGS=0 scripts/secretscan-bench.sh    # without the long-string cases
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
SIZE=${SIZE:-104857600}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/ccdag" ./cmd/ccdag
if [ -z "${LOG:-}" ]; then
  go run ./scripts/genhistory -dir "$TMP/h" -sessions 1 -size "$SIZE" >/dev/null
  LOG=$TMP/h/projects
fi
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3), $(du -sb "$LOG" | cut -f1) bytes in $LOG"
python3 - "$RUNS" "$TMP/ccdag" "$LOG" <<'PY'
import os, sys, statistics
runs, ccdag, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
A = [ccdag, "check", "--fail-on", "never", log]
B = [ccdag, "check", "--fail-on", "never", "--severity", "secret=off", log]
def cpu(cmd):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2); os.execv(cmd[0], cmd)
    _, st, ru = os.wait4(pid, 0)
    if st != 0: sys.exit("failed: %s" % cmd)
    return ru.ru_utime + ru.ru_stime
cpu(A); cpu(B)  # warm-up: the file in the page cache
a, b = [], []
print("run  scan CPU s  secret=off CPU s  ratio")
for i in range(runs):
    a.append(cpu(A)); b.append(cpu(B))
    print("%3d  %10.3f  %16.3f  %5.2f" % (i + 1, a[-1], b[-1], a[-1] / b[-1]))
r = [x / y for x, y in zip(a, b)]
print("median %7.3f  %16.3f  %5.2f  (ratio min %.2f max %.2f)" % (statistics.median(a), statistics.median(b), statistics.median(r), min(r), max(r)))
PY
[ "${STRINGS:-1}" = 0 ] && exit 0
python3 - "$RUNS" "$TMP/ccdag" "$TMP" <<'PY'
import json, os, random, statistics, sys
runs, ccdag, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
def text(n, kind):
    r, out, size = random.Random(n), [], 0
    while size < n:
        if kind == "plain":
            w = "lorem ipsum dolor sit amet, "
        else:
            v = "".join(r.choice(al) for _ in range(20)) if kind == "random" else "ABCD" * 5
            w = "token=" + v + " "
        out.append(w); size += len(w)
    return "".join(out)[:n]
def log(n, kind):
    d = os.path.join(tmp, "s-%s-%d" % (kind, n)); os.makedirs(d)
    rec = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-11-27T00:00:00Z",
           "message": {"role": "user", "content": text(n, kind)}}
    with open(os.path.join(d, "s.jsonl"), "w") as f: f.write(json.dumps(rec) + "\n")
    return d
def cpu(cmd):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2); os.execv(cmd[0], cmd)
    _, st, ru = os.wait4(pid, 0)
    if os.WEXITSTATUS(st) not in (0, 1): sys.exit("failed: %s" % cmd)
    return ru.ru_utime + ru.ru_stime
print("string             kind    CPU s (median of %d)  plain CPU s  ratio" % runs)
for n in (64 << 10, 4 << 20):
    plain = log(n, "plain")
    for kind in ("random", "low"):
        d = log(n, kind)
        a = [cpu([ccdag, "check", "--fail-on", "never", d]) for _ in range(runs)]
        b = [cpu([ccdag, "check", "--fail-on", "never", plain]) for _ in range(runs)]
        print("%8d bytes  %-7s %10.3f  %21.3f  %6.2f" % (n, kind, statistics.median(a), statistics.median(b), statistics.median(a) / statistics.median(b)))
PY
