#!/usr/bin/env python3
# Issue 14's figures from one run (docs/SECURITY.md, "Issue 14: the figures"): makes the inputs of
# items 2, 3 and 8 in a scratch folder, then for each prints `ccdag check`'s wall time and peak RSS
# (/usr/bin/time) and the server's: didOpen to the first publishDiagnostics, and for item 8 the
# ccdag/workflowGraph request with the default maxNodes (scripts/serve-graph-figure.py).
#   python3 scripts/issue14-figures.py bin/ccdag [SCRATCH]
# The item 8 chain is also what BenchmarkBuildDrawn reads from /tmp/chain147.jsonl.
import os, re, subprocess, sys, tempfile

bin = os.path.abspath(sys.argv[1])
scratch = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="ccdag-issue14-")
here = os.path.dirname(os.path.abspath(__file__))

def make(name, write):
    path = os.path.join(scratch, name)
    if not os.path.exists(path):
        with open(path, "w") as f:
            write(f)
    return path

def one_line_results(f, n=100_000):
    f.write('{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[')
    f.write(",".join('{"type":"tool_result","tool_use_id":"toolu_%07d","content":"\u00e9"}' % i for i in range(n)))
    f.write("]}}\n")

def chain(f, pairs=500_000):
    # 500 000 user/assistant pairs, each record naming the last: a million records, ~185 MB.
    parent = "null"
    for i in range(pairs):
        u, a = "u-%08d-0000-4000-8000-000000000000" % i, "a-%08d-0000-4000-8000-000000000000" % i
        f.write('{"type":"user","uuid":"%s","parentUuid":%s,"sessionId":"chain","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"question %d"}}\n' % (u, parent, i))
        f.write('{"type":"assistant","uuid":"%s","parentUuid":"%s","sessionId":"chain","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"msg_%08d","role":"assistant","model":"claude-x","content":[{"type":"text","text":"answer %d"}]}}\n' % (a, u, i, i))
        parent = '"%s"' % a

inputs = [
    ("2", "one record, 100 000 unmatched tool_results on one line", make("oneline.jsonl", one_line_results), False),
    ("3", '"1\\n" x 1 M', make("ones1m.jsonl", lambda f: f.write("1\n" * 1_000_000)), False),
    ("3", '"1\\n" x 10 M', make("ones10m.jsonl", lambda f: f.write("1\n" * 10_000_000)), False),
    ("3", '"{}" x 10 M', make("objects10m.jsonl", lambda f: f.write("{}\n" * 10_000_000)), False),
    ("3", "blank lines x 10 M", make("blank10m.jsonl", lambda f: f.write("\n" * 10_000_000)), False),
    ("8", "a chain of 1 M records (500 000 user/assistant pairs)", make("chain.jsonl", chain), True),
]

def check(path):
    r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M", bin, "check", "--format", "json", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, kb = re.search(r"TIME (\S+) (\d+)", r.stderr).groups()
    return float(wall), int(kb) // 1024

def serve(path, graph):
    cmd = [sys.executable, os.path.join(here, "serve-graph-figure.py"), bin, path]
    if not graph:
        cmd.append("--diagnostics-only")
    out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True).stdout
    d = re.search(r"diagnostics after (\S+) s wall, (\S+) s server CPU .* server peak (\d+) MB", out)
    res = "%s s to diagnostics, peak %s MB" % (d.group(1), d.group(3))
    g = re.search(r'graph "default" after (\S+) s wall, (\S+) s server CPU: (\S+) MB of JSON; server peak (\d+) MB', out)
    if g:
        res += "; graph %s s (%s s CPU), %s MB of JSON, peak %s MB" % g.groups()
    return res

print("| item | input | size | `check`: wall, peak RSS | server (`serve`) |")
print("|---|---|---|---|---|")
for item, name, path, graph in inputs:
    size = os.path.getsize(path) / 1e6
    wall, mb = check(path)
    print("| %s | %s | %.0f MB | %.2f s, %d MB (bound %d MB) | %s |" % (
        item, name, size, wall, mb, 10 * size + 100, serve(path, graph)), flush=True)
