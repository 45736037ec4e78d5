#!/usr/bin/env python3
"""Chooses the genuine Claude Code logs of scripts/genuine-history.tsv from fetched mirrors.

How the pinned list was made (scripts/genuine-history.sh builds the history from it; this is only
needed to remake the list from newer snapshots):

    python3 scripts/genuine-history-select.py owner/name ... > scripts/genuine-history.tsv

It reads every version of every *.jsonl in each repository's whole history
($MIRRORS/owner+name/repo, default /work/.mirror), keeps the files Claude Code wrote (see
genuine()), takes the largest version of each (a log only grows; backups committed it as it grew),
lays each out as Claude Code does under projects/ and pins the commit that holds that version.
"""
import collections
import datetime
import json
import os
import re
import subprocess
import sys

MIRRORS = os.environ.get("MIRRORS", "/work/.mirror")
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
MAIN = re.compile(rf"^({UUID})\.jsonl$")
AGENT = re.compile(r"^agent-[A-Za-z0-9_-]+\.jsonl$")
# .../projects[.bak-…]/<dir>/<rest>: the layout of a copied ~/.claude (or a backup tool's).
PROJ = re.compile(r"(?:^|/)projects(?:\.bak-[^/]*)?/([^/]+)/(.+)$")
# Not session logs, or not written by Claude Code: test fixtures, other tools' journals.
SKIP = re.compile(r"(^|/)(tests?|fixtures|testdata|homunculus)/|(^|/)(history|audit|journal)\.jsonl$")


def git(repo, *args, data=None):
    return subprocess.run(["git", "-C", repo, *args], input=data, capture_output=True, check=True).stdout


def blobs(repo, shas):
    """sha -> bytes, one `git cat-file --batch` for all."""
    out = git(repo, "cat-file", "--batch", data=("\n".join(shas) + "\n").encode())
    got, i = {}, 0
    while i < len(out):
        nl = out.index(b"\n", i)
        head = out[i:nl].split()
        if head[1] == b"missing":
            i = nl + 1
            continue
        n = int(head[2])
        got[head[0].decode()] = out[nl + 1 : nl + 1 + n]
        i = nl + 1 + n + 1
    return got


def records(data):
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for k, line in enumerate(lines):
        try:
            r = json.loads(line)
        except ValueError:
            if k == len(lines) - 1:  # a live session's last line can be partial
                return
            raise
        if not isinstance(r, dict):
            raise ValueError("not an object")
        yield r


def genuine(data, session):
    """A log Claude Code wrote: every line a JSON record with a type; records with a uuid carry
    sessionId and version (a main log's sessionId its file name); timestamps ISO. Returns
    (cwd, newest timestamp, records) or None."""
    cwd, newest, n, linked = None, None, 0, 0
    try:
        for r in records(data):
            n += 1
            if "type" not in r:
                return None
            if "uuid" in r and r.get("type") in ("user", "assistant"):
                if "sessionId" not in r or "version" not in r or "parentUuid" not in r:
                    return None
                if session and r["sessionId"] != session:
                    return None
                linked += 1
            cwd = cwd or r.get("cwd")
            t = r.get("timestamp")
            if isinstance(t, str) and (newest is None or t > newest):
                newest = t
    except ValueError:
        return None
    if n == 0:
        return None
    return cwd, newest, linked


def encode(cwd):
    """Claude Code's project folder name: every character but letters and digits becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def place(path, cwd):
    """Where Claude Code keeps this file, relative to the config folder, or None."""
    base = os.path.basename(path)
    m = PROJ.search(path)
    if m:
        d, rest = m.group(1), m.group(2)
        parts = rest.split("/")
        if parts[0] == "sessions" and len(parts) == 2:  # a backup tool's projects/<d>/sessions/<id>.jsonl
            parts = parts[1:]
        if parts[0] == "subagents" and len(parts) >= 3 and re.fullmatch(UUID, parts[1]):
            parts = [parts[1], "subagents", *parts[2:]]  # …/subagents/<id>/… → <id>/subagents/…
        if len(parts) == 1 and (MAIN.match(base) or AGENT.match(base)):
            return f"projects/{d}/{base}"
        if len(parts) >= 3 and re.fullmatch(UUID, parts[0]) and parts[1] == "subagents" and AGENT.match(base):
            return "projects/" + d + "/" + "/".join(parts)
        return None
    if MAIN.match(base) and cwd:  # a bare <id>.jsonl (dagster-io/erk's .erk/session/): its cwd says where
        return f"projects/{encode(cwd)}/{base}"
    return None


def epoch(ts):
    if not ts:
        return 1767225600  # 2026-01-01, for a log without timestamps
    return int(datetime.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp())


def main():
    chosen = {}  # dest -> row
    for name in sys.argv[1:]:
        repo = f"{MIRRORS}/{name.replace('/', '+')}/repo"
        objs = git(repo, "rev-list", "--all", "--objects", "--missing=allow-any").decode().splitlines()
        cand = [(s, p) for s, p in (o.split(" ", 1) for o in objs if " " in o) if p.endswith(".jsonl") and not SKIP.search(p)]
        data = blobs(repo, sorted({s for s, _ in cand}))
        keep = {}  # dest -> (sha, path, size, mtime)
        for sha, path in cand:
            if sha not in data:
                continue
            m = MAIN.match(os.path.basename(path))
            g = genuine(data[sha], m.group(1) if m else None)
            if not g:
                continue
            dest = place(path, g[0])
            if not dest:
                continue
            size = len(data[sha])
            if dest not in keep or size > keep[dest][2]:
                keep[dest] = (sha, path, size, epoch(g[1]))
        # the commit holding each chosen version
        want = {(v[1], v[0]) for v in keep.values()}
        commit = {}
        log = git(repo, "log", "--all", "--raw", "--no-abbrev", "--no-renames", "--format=C %H", "--", "*.jsonl").decode()
        cur = None
        for line in log.splitlines():
            if line.startswith("C "):
                cur = line[2:]
            elif line.startswith(":"):
                meta, p = line.split("\t", 1)
                b = meta.split()[3]
                if (p, b) in want and (p, b) not in commit:
                    commit[(p, b)] = cur
        for dest, (sha, path, size, mt) in keep.items():
            c = commit.get((path, sha))
            if not c:
                print(f"# {name}: no commit found for {path} {sha}", file=sys.stderr)
                continue
            if dest in chosen and chosen[dest][4] >= size:
                continue
            chosen[dest] = (name, c, path, sha, size, mt)
    # one copy of a session: the same <id>.jsonl under two project folders (a copied backup) is one log
    bysession = {}
    for dest, row in chosen.items():
        base = os.path.basename(dest)
        if MAIN.match(base):
            if base not in bysession or chosen[bysession[base]][4] < row[4]:
                bysession[base] = dest
    mains = set(bysession.values())
    rows = [
        (d, r)
        for d, r in chosen.items()
        if d in mains or not MAIN.match(os.path.basename(d))
    ]
    print("# repo\tcommit\tpath\tblob\tsize\tmtime\tdest")
    total = collections.Counter()
    for dest, (name, c, path, sha, size, mt) in sorted(rows, key=lambda x: (x[1][0], x[0])):
        print(f"{name}\t{c}\t{path}\t{sha}\t{size}\t{mt}\t{dest}")
        total[name] += size
    for k, v in total.items():
        print(f"# {k}: {v} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
