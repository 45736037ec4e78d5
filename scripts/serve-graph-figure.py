#!/usr/bin/env python3
# Opens a log in `ccdag serve` (BIN LOG [PARAMS-JSON]), waits for its diagnostics, then times
# ccdag/workflowGraph: wall time, the server's CPU time and peak RSS (VmHWM), the JSON's size.
# With --diagnostics-only it stops at the diagnostics. docs/SECURITY.md, "Issue 14: the figures";
# scripts/issue14-figures.py runs it on each of the inputs.
import json, subprocess, sys, time, os
args = [a for a in sys.argv[1:] if a != "--diagnostics-only"]
diagnostics_only = len(args) < len(sys.argv) - 1
bin, path = args[0], args[1]
params = json.loads(args[2]) if len(args) > 2 else {}
p = subprocess.Popen([bin, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(m):
    b = json.dumps(m).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); p.stdin.flush()
def read():
    n = 0
    while True:
        l = p.stdout.readline()
        if l in (b"\r\n", b"\n"): break
        if l.lower().startswith(b"content-length:"): n = int(l.split(b":")[1])
    return p.stdout.read(n)
def cpu():
    f = open("/proc/%d/stat" % p.pid).read().rsplit(")",1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
def hwm():
    for l in open("/proc/%d/status" % p.pid):
        if l.startswith("VmHWM"): return int(l.split()[1]) // 1024
uri = "file://" + os.path.abspath(path)
send({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":None,"rootUri":None,"capabilities":{}}})
read()
send({"jsonrpc":"2.0","method":"initialized","params":{}})
text = open(path).read()
t0 = time.time(); c0 = cpu()
send({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":uri,"languageId":"jsonl","version":1,"text":text}}})
while True:
    m = read()
    if b'publishDiagnostics' in m[:200]:
        break
t1 = time.time()
print("diagnostics after %.2f s wall, %.2f s server CPU (%d bytes), server peak %d MB" % (t1-t0, cpu()-c0, len(m), hwm()))
if diagnostics_only:
    p.kill(); sys.exit(0)
time.sleep(3)
params["textDocument"] = {"uri": uri}
# Asked twice: the second time (a budget one less, so nothing is cached) shows the cost without
# the first request's fresh memory.
for id, extra in ((2, 0), (3, -1)):
    q = dict(params)
    if extra:
        q["maxNodes"] = q.get("maxNodes", 5000) + extra
    t1 = time.time(); c1 = cpu()
    send({"jsonrpc":"2.0","id":id,"method":"ccdag/workflowGraph","params":q})
    while True:
        m = read()
        if m.startswith(b'{"jsonrpc":"2.0","id":%d' % id) or b'"id":%d,' % id in m[:40]:
            break
    t2 = time.time()
    print("graph %s after %.2f s wall, %.2f s server CPU: %.1f MB of JSON; server peak %d MB; collapsed: %s" % (json.dumps(q.get("maxNodes","default")), t2-t1, cpu()-c1, len(m)/1e6, hwm(), m[m.rfind(b'"collapsed"'):][:200] if b'"collapsed"' in m else "no"))
p.kill()
