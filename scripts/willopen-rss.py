#!/usr/bin/env python3
# ccdag/willOpen of a sparse file (BIN SIZE_MB): `ccdag serve` with a workspace folder holding a
# sparse SIZE_MB log (no disk), announced by ccdag/willOpen; waits until the server has either
# published its diagnostics (it read the file) or logged the refusal (stderr), then prints the
# outcome, the wall time and the server's peak RSS (VmHWM). docs/PERFORMANCE.md, "Bounded reads".
import json, os, subprocess, sys, tempfile, threading, time
bin, size_mb = sys.argv[1], int(sys.argv[2])
ws = tempfile.mkdtemp(prefix="willopen-rss-")
path = os.path.join(ws, "33333333-3333-4333-8333-333333333333.jsonl")
with open(path, "wb") as f:
    f.truncate(size_mb << 20)
env = dict(os.environ, CLAUDE_CONFIG_DIR=tempfile.mkdtemp(prefix="willopen-rss-cfg-"))
p = subprocess.Popen([bin, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
refused = threading.Event()
def errs():
    for l in p.stderr:
        if b"not read" in l and b"willOpen" in l:
            refused.set()
threading.Thread(target=errs, daemon=True).start()
def send(m):
    b = json.dumps(m).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); p.stdin.flush()
published = threading.Event()
def reads():
    while True:
        n = 0
        while True:
            l = p.stdout.readline()
            if not l: return
            if l in (b"\r\n", b"\n"): break
            if l.lower().startswith(b"content-length:"): n = int(l.split(b":")[1])
        if b"publishDiagnostics" in p.stdout.read(n)[:200]:
            published.set()
threading.Thread(target=reads, daemon=True).start()
def hwm():
    for l in open("/proc/%d/status" % p.pid):
        if l.startswith("VmHWM"): return int(l.split()[1]) // 1024
uri = "file://" + path
send({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":None,"rootUri":"file://"+ws,"capabilities":{}}})
send({"jsonrpc":"2.0","method":"initialized","params":{}})
time.sleep(0.5)
base = hwm()
t0 = time.time()
send({"jsonrpc":"2.0","method":"ccdag/willOpen","params":{"uri":uri}})
while not (published.is_set() or refused.is_set()) and time.time() - t0 < 300:
    time.sleep(0.01)
t1 = time.time()
time.sleep(0.5)
print("%s: sparse %d MB log: %s after %.2f s; server peak RSS %d MB (%d MB before the willOpen)" % (
    os.path.basename(bin), size_mb, "read and published" if published.is_set() else "refused" if refused.is_set() else "no answer",
    t1 - t0, hwm(), base))
send({"jsonrpc":"2.0","id":2,"method":"shutdown"}); send({"jsonrpc":"2.0","method":"exit"})
p.wait(timeout=30)
os.remove(path)
