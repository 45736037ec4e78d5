"""Writes the session logs of testdata/graph (one folder per case; each record spelled out below).

    python3 testdata/graph/fixtures.py testdata/graph && go test ./internal/graph -update

Rewriting changes nothing unless a case below changed (timestamps and uuids are deterministic).
"""
import json, os, sys
ROOT = sys.argv[1]
clock = [0]
def ts():
    clock[0] += 1
    s = clock[0]
    return "2025-06-01T10:%02d:%02d.000Z" % (s // 60, s % 60)

import hashlib
def uid(case, n):
    h = hashlib.sha1(("%s-%d" % (case, n)).encode()).hexdigest()
    return "%s-%s-4%s-8%s-%s" % (h[:8], h[8:12], h[13:16], h[17:20], h[20:32])

class Log:
    def __init__(self, case, sid, version="2.1.50", agent=None, sidechain=False):
        self.case, self.sid, self.version, self.agent, self.sidechain = case, sid, version, agent, sidechain
        self.lines = []
    def u(self, n):
        return None if n is None else (n if isinstance(n, str) else uid(self.case, n))
    def base(self, typ, n, parent, **kw):
        r = {"parentUuid": self.u(parent), "isSidechain": kw.pop("isSidechain", self.sidechain), "userType": "external",
             "cwd": "/home/dev/proj", "sessionId": self.sid, "version": self.version}
        if self.agent: r["agentId"] = self.agent
        r["type"] = typ
        r.update(kw)
        if n is not None: r["uuid"] = self.u(n)
        r["timestamp"] = ts()
        return r
    def add(self, r):
        self.lines.append(json.dumps(r, ensure_ascii=False, separators=(",", ":")))
        return r
    def user(self, n, parent, content, **kw):
        return self.add(self.base("user", n, parent, message={"role": "user", "content": content}, **kw))
    def asst(self, n, parent, msg, blocks, req=None, usage=None, model="claude-sonnet-4-5", **kw):
        m = {"model": model, "id": msg, "type": "message", "role": "assistant", "content": blocks,
             "stop_reason": None, "usage": usage or {"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000, "output_tokens": 5}}
        if msg is None: del m["id"]
        r = self.base("assistant", n, parent, message=m, **kw)
        if req: r["requestId"] = req
        # requestId sits before uuid in real logs; order does not matter
        return self.add(r)
    def result(self, n, parent, tid, content, is_error=False, tur=None, **kw):
        b = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error: b["is_error"] = True
        r = self.base("user", n, parent, message={"role": "user", "content": [b]}, **kw)
        if tur is not None: r["toolUseResult"] = tur
        return self.add(r)
    def progress(self, n, parent, tid, **kw):
        r = self.base("progress", n, parent, data={"type": "hook_progress", "hookEvent": "PostToolUse"}, parentToolUseID=tid, toolUseID=tid, **kw)
        return self.add(r)
    def system(self, n, parent, subtype, content=None, **kw):
        r = self.base("system", n, parent, subtype=subtype, **kw)
        if content is not None: r["content"] = content
        r["level"] = "info"
        return self.add(r)
    def raw(self, obj):
        self.lines.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    def write(self, path):
        path = os.path.join(ROOT, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")

def text(t): return {"type": "text", "text": t}
def think(t): return {"type": "thinking", "thinking": t, "signature": "sig"}
def use(tid, name, inp): return {"type": "tool_use", "id": tid, "name": name, "input": inp}

# ---------------------------------------------------------------- basic (2.1.x)
sid = "0b000001-1111-4111-8111-000000000001"
L = Log("b0000001", sid)
L.raw({"type": "file-history-snapshot", "messageId": uid("b0000001", 1), "snapshot": {"trackedFileBackups": {}}, "isSnapshotUpdate": False})
L.user(1, None, "Find the bug in parser.go")
L.asst(2, 1, "msg_b1", [think("The user wants me to look at parser.go first.")], req="req_b1",
       usage={"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 8})
L.asst(3, 2, "msg_b1", [text("Let me read the parser.")], req="req_b1",
       usage={"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 40})
L.asst(4, 3, "msg_b1", [use("toolu_b1", "Read", {"file_path": "/home/dev/proj/parser.go"})], req="req_b1",
       usage={"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 95})
L.progress(5, 4, "toolu_b1")
L.result(6, 4, "toolu_b1", "     1\tpackage parser\n     2\t\n     3\tfunc Parse() {}\n", tur={"type": "text", "file": {"filePath": "/home/dev/proj/parser.go", "numLines": 3}}, sourceToolAssistantUUID=uid("b0000001", 4))
L.asst(7, 6, "msg_b2", [text("The bug is on line 3: `Parse` ignores its input.")], req="req_b2",
       usage={"input_tokens": 4, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 3300, "output_tokens": 20})
L.system(8, 7, "turn_duration", durationMs=5123)
L.write("basic/" + sid + ".jsonl")

# ---------------------------------------------------------------- parallel, 2.0.x shape: calls chained, then results chained
sid = "0b000002-2222-4222-8222-000000000002"
L = Log("b0000002", sid, version="2.0.64")
L.user(1, None, "Read the three config files")
L.asst(2, 1, "msg_p1", [text("I'll read all three at once.")], req="req_p1")
L.asst(3, 2, "msg_p1", [use("toolu_p1", "Read", {"file_path": "/etc/a.conf"})], req="req_p1")
L.asst(4, 3, "msg_p1", [use("toolu_p2", "Glob", {"pattern": "**/*.toml", "path": "/etc"})], req="req_p1")
L.asst(5, 4, "msg_p1", [use("toolu_p3", "Bash", {"command": "cat /etc/c.conf | head -n 5", "description": "Show c.conf"})], req="req_p1")
L.result(6, 5, "toolu_p1", "a = 1", tur={"type": "text", "file": {"filePath": "/etc/a.conf"}})
L.result(7, 6, "toolu_p2", "/etc/b.toml", tur={"filenames": ["/etc/b.toml"], "durationMs": 12, "numFiles": 1, "truncated": False})
L.result(8, 7, "toolu_p3", "Error: permission denied", is_error=True)
L.asst(9, 8, "msg_p2", [think("Two of three worked.")], req="req_p2")
L.asst(10, 9, "msg_p2", [text("a.conf sets a = 1; c.conf is not readable.")], req="req_p2")
L.write("parallel-chained/" + sid + ".jsonl")

# ---------------------------------------------------------------- parallel, 2.1.x shape: call, its result, next call, ...
sid = "0b000003-3333-4333-8333-000000000003"
L = Log("b0000003", sid, version="2.1.53")
L.user(1, None, "Check git status and the last commit")
L.asst(2, 1, "msg_i1", [think("Run both.")], req="req_i1")
L.asst(3, 2, "msg_i1", [use("toolu_i1", "Bash", {"command": "git status --short"})], req="req_i1")
L.progress(4, 3, "toolu_i1")
L.result(5, 3, "toolu_i1", " M main.go", tur={"stdout": " M main.go", "stderr": "", "interrupted": False})
L.asst(6, 5, "msg_i1", [use("toolu_i2", "Bash", {"command": "git log -1 --oneline"})], req="req_i1")
L.progress(7, 6, "toolu_i2")
L.result(8, 6, "toolu_i2", "abc123 Fix parser", tur={"stdout": "abc123 Fix parser", "stderr": "", "interrupted": False})
L.asst(9, 8, "msg_i1", [use("toolu_i3", "Grep", {"pattern": "TODO", "path": "src"})], req="req_i1")
L.result(10, 9, "toolu_i3", "src/a.go:3: // TODO", tur={"mode": "content", "numFiles": 1})
L.asst(11, 10, "msg_i2", [text("One modified file; last commit abc123.")], req="req_i2")
L.write("parallel-interleaved/" + sid + ".jsonl")

# ---------------------------------------------------------------- fork: a rewind (two prompts under one parent) + structural forks
sid = "0b000004-4444-4444-8444-000000000004"
L = Log("b0000004", sid, version="2.1.50")
L.user(1, None, "hello")
L.asst(2, 1, "msg_f1", [text("Hi! What can I do?")], req="req_f1")
# abandoned branch: a prompt, a reply with a tool call whose result has a progress sibling
L.user(3, 2, "What's the weather in Tokyo?")
L.asst(4, 3, "msg_f2", [use("toolu_f1", "WebSearch", {"query": "Tokyo weather today"})], req="req_f2")
L.progress(5, 4, "toolu_f1")
L.result(6, 4, "toolu_f1", "Sunny, 24C")
L.asst(7, 6, "msg_f3", [text("It's sunny in Tokyo.")], req="req_f3")
# the user rewinds to line 2's reply and asks something else (the active branch)
L.user(8, 2, "Actually, list the files here")
L.asst(9, 8, "msg_f4", [use("toolu_f2", "Bash", {"command": "ls"})], req="req_f4")
L.asst(10, 9, "msg_f4", [use("toolu_f3", "Bash", {"command": "ls -a"})], req="req_f4")
L.result(11, 9, "toolu_f2", "a.go\nb.go")
L.result(12, 10, "toolu_f3", ".git\na.go\nb.go")
# an API error and its retry are siblings under the same prompt: structure, not a fork
L.asst(13, 12, None, [text("API Error: 529 Overloaded")], model="<synthetic>", isApiErrorMessage=True)
L.asst(14, 12, "msg_f5", [text("Two Go files: a.go and b.go.")], req="req_f5")
L.write("fork/" + sid + ".jsonl")

# ---------------------------------------------------------------- compaction
sid = "0b000005-5555-4555-8555-000000000005"
L = Log("b0000005", sid, version="2.1.53")
L.user(1, None, "Refactor the server")
L.asst(2, 1, "msg_c1", [text("Starting with the handlers.")], req="req_c1")
L.asst(3, 2, "msg_c1", [use("toolu_c1", "Edit", {"file_path": "/srv/handlers.go", "old_string": "a", "new_string": "b"})], req="req_c1")
L.result(4, 3, "toolu_c1", "The file /srv/handlers.go has been updated.")
L.progress(5, 4, "toolu_c1")  # the logical parent below is this progress record: the edge passes to line 4's node
L.system(6, None, "compact_boundary", "Conversation compacted", logicalParentUuid=uid("b0000005", 5),
         compactMetadata={"trigger": "auto", "preTokens": 160000})
L.user(7, 6, "This session is being continued from a previous conversation that ran out of context. Summary: handlers refactored.",
       isCompactSummary=True, isVisibleInTranscriptOnly=True)
L.asst(8, 7, "msg_c2", [text("Continuing with the router.")], req="req_c2")
# a second compaction whose logical parent is in no file
L.system(9, None, "compact_boundary", "Conversation compacted", logicalParentUuid="ffffffff-0000-4000-8000-00000000dead",
         compactMetadata={"trigger": "manual", "preTokens": 90000})
L.user(10, 9, "This session is being continued... Summary: router done.", isCompactSummary=True, isVisibleInTranscriptOnly=True)
L.user(11, 10, "Now write the tests")
L.write("compaction/" + sid + ".jsonl")

# ---------------------------------------------------------------- sub-agents, 2.0.x flat layout
sid = "0b000006-6666-4666-8666-000000000006"
L = Log("b0000006", sid, version="2.0.64")
L.user(1, None, "Explore the repo and plan the migration")
L.asst(2, 1, "msg_a1", [text("I'll send an explorer.")], req="req_a1")
L.asst(3, 2, "msg_a1", [use("toolu_a1", "Task", {"description": "Explore the repo", "prompt": "Explore the repository layout.", "subagent_type": "Explore"})], req="req_a1")
L.result(4, 3, "toolu_a1", [text("The repo has cmd/ and internal/.")],
         tur={"status": "completed", "prompt": "Explore the repository layout.", "agentId": "1a2b3c4d", "content": [text("The repo has cmd/ and internal/.")],
              "totalDurationMs": 8123, "totalTokens": 4242, "totalToolUseCount": 1})
L.asst(5, 4, "msg_a2", [text("Now a plan.")], req="req_a2")
L.asst(6, 5, "msg_a2", [use("toolu_a2", "Task", {"description": "Plan", "prompt": "Plan the migration.", "subagent_type": "Plan"})], req="req_a2")
L.result(7, 6, "toolu_a2", [text("Plan: 1. move 2. test")],
         tur={"status": "completed", "agentId": "5e6f7a8b", "totalDurationMs": 2000, "totalTokens": 100})
L.asst(8, 7, "msg_a3", [text("Done: explored and planned.")], req="req_a3")
L.write("agents-flat/" + sid + ".jsonl")
A = Log("b0000016", sid, version="2.0.64", agent="1a2b3c4d", sidechain=True)
A.user(1, None, "Explore the repository layout.")
A.asst(2, 1, "msg_x1", [text("Listing.")], req="req_x1", model="claude-haiku-4-5")
A.asst(3, 2, "msg_x1", [use("toolu_x1", "Bash", {"command": "ls"})], req="req_x1", model="claude-haiku-4-5")
A.result(4, 3, "toolu_x1", "cmd\ninternal")
A.asst(5, 4, "msg_x2", [text("The repo has cmd/ and internal/.")], req="req_x2", model="claude-haiku-4-5")
A.write("agents-flat/agent-1a2b3c4d.jsonl")
A = Log("b0000026", sid, version="2.0.64", agent="5e6f7a8b", sidechain=True)
A.user(1, None, "Plan the migration.")
A.asst(2, 1, "msg_y1", [text("Plan: 1. move 2. test")], req="req_y1")
A.write("agents-flat/agent-5e6f7a8b.jsonl")

# ---------------------------------------------------------------- sub-agents, 2.1.x nested layout with meta.json and a nested agent
sid = "0b000007-7777-4777-8777-000000000007"
L = Log("b0000007", sid, version="2.1.30")
L.user(1, None, "Review the auth module")
L.asst(2, 1, "msg_n1", [text("Delegating the review.")], req="req_n1")
L.asst(3, 2, "msg_n1", [use("toolu_n1", "Task", {"description": "Review auth", "prompt": "Review internal/auth.", "subagent_type": "code-reviewer"})], req="req_n1")
L.progress(4, 3, "toolu_n1")
L.result(5, 3, "toolu_n1", [text("Auth looks fine; one nit.")],
         tur={"status": "completed", "agentId": "a0a1b2c3d4e5f6a7b", "totalDurationMs": 30000, "totalTokens": 9000, "totalToolUseCount": 2})
L.asst(6, 5, "msg_n2", [use("toolu_n3", "Agent", {"description": "Background docs", "prompt": "Write docs.", "subagent_type": "general-purpose"})], req="req_n2")
L.write("agents-nested/" + sid + ".jsonl")
sub = "agents-nested/" + sid + "/subagents/"
A = Log("b0000017", sid, version="2.1.30", agent="a0a1b2c3d4e5f6a7b", sidechain=True)
A.user(1, None, "Review internal/auth.")
A.asst(2, 1, "msg_r1", [use("toolu_n2", "Agent", {"description": "Check tests", "prompt": "Check auth tests.", "subagent_type": "test-runner"})], req="req_r1")
A.result(3, 2, "toolu_n2", [text("Tests pass.")], tur={"status": "completed", "agentId": "a9f8e7d6c5b4a3921", "totalDurationMs": 5000})
A.asst(4, 3, "msg_r2", [text("Auth looks fine; one nit.")], req="req_r2")
A.write(sub + "agent-a0a1b2c3d4e5f6a7b.jsonl")
with open(os.path.join(ROOT, sub + "agent-a0a1b2c3d4e5f6a7b.meta.json"), "w") as f:
    json.dump({"agentType": "code-reviewer", "description": "Review auth", "toolUseId": "toolu_n1"}, f)
A = Log("b0000027", sid, version="2.1.30", agent="a9f8e7d6c5b4a3921", sidechain=True)
A.user(1, None, "Check auth tests.")
A.asst(2, 1, "msg_t1", [text("Tests pass.")], req="req_t1")
A.write(sub + "agent-a9f8e7d6c5b4a3921.jsonl")
with open(os.path.join(ROOT, sub + "agent-a9f8e7d6c5b4a3921.meta.json"), "w") as f:
    json.dump({"agentType": "test-runner", "toolUseId": "toolu_n2", "spawnDepth": 2}, f)
# a workflow agent still running: no result yet, found through meta.json's toolUseId
A = Log("b0000037", sid, version="2.1.30", agent="aw0rkf10wagent01", sidechain=True)
A.user(1, None, "Write docs.")
A.asst(2, 1, "msg_w1", [text("Writing.")], req="req_w1")
A.write(sub + "workflows/run-01/agent-aw0rkf10wagent01.jsonl")
with open(os.path.join(ROOT, sub + "workflows/run-01/agent-aw0rkf10wagent01.meta.json"), "w") as f:
    json.dump({"agentType": "general-purpose", "toolUseId": "toolu_n3"}, f)

# ---------------------------------------------------------------- sub-agents, 1.0.x: sidechains inside the main log
sid = "0b000008-8888-4888-8888-000000000008"
L = Log("b0000008", sid, version="1.0.98")
L.user(1, None, "Build the app")
L.asst(2, 1, "msg_s1", [text("Two agents in parallel.")], req="req_s1")
L.asst(3, 2, "msg_s1", [use("toolu_s1", "Task", {"description": "Backend", "prompt": "Create the backend.", "subagent_type": "general-purpose"})], req="req_s1")
L.asst(4, 3, "msg_s1", [use("toolu_s2", "Task", {"description": "Frontend", "prompt": "Create the frontend.", "subagent_type": "ui-builder"})], req="req_s1")
L.asst(5, 4, "msg_s1", [use("toolu_s3", "Task", {"description": "Never ran", "prompt": "This agent never started."})], req="req_s1")
# the frontend sidechain is written first
L.user(6, None, "Create the frontend.", isSidechain=True)
L.asst(7, 6, "msg_s2", [text("Frontend done.")], req="req_s2", isSidechain=True)
L.user(8, None, "Create the backend.", isSidechain=True)
L.asst(9, 8, "msg_s3", [use("toolu_s4", "Write", {"file_path": "/app/server.js", "content": "x"})], req="req_s3", isSidechain=True)
L.result(10, 9, "toolu_s4", "File created successfully at: /app/server.js", isSidechain=True)
L.asst(11, 10, "msg_s4", [text("Backend done.")], req="req_s4", isSidechain=True)
L.result(12, 5, "toolu_s2", [text("Frontend done.")], tur={"content": [text("Frontend done.")], "totalDurationMs": 1000, "totalTokens": 10, "totalToolUseCount": 0})
L.result(13, 12, "toolu_s1", [text("Backend done.")], tur={"content": [text("Backend done.")], "totalDurationMs": 2000, "totalTokens": 20, "totalToolUseCount": 1})
L.result(14, 13, "toolu_s3", "[Request interrupted by user for tool use]", is_error=True)
L.asst(15, 14, "msg_s5", [text("Both parts are built.")], req="req_s5")
L.write("sidechains/" + sid + ".jsonl")

# ---------------------------------------------------------------- records that make no node still link the chain
sid = "0b000009-9999-4999-8999-000000000009"
L = Log("b0000009", sid, version="2.1.60")
L.raw({"type": "summary", "summary": "Earlier work", "leafUuid": uid("b0000009", 99)})
L.raw({"type": "queue-operation", "operation": "enqueue", "timestamp": ts(), "sessionId": sid, "content": "later"})
L.add(L.base("progress", 1, None, data={"type": "hook_progress", "hookEvent": "SessionStart"}))
L.user(2, 1, "Run the tests")
L.add(L.base("attachment", 3, 2, attachment={"type": "todo", "content": []}))
L.asst(4, 3, "msg_g1", [use("toolu_g1", "Bash", {"command": "go test ./..."})], req="req_g1")
L.progress(5, 4, "toolu_g1")
L.progress(6, 5, "toolu_g1")
L.result(7, 6, "toolu_g1", "ok  \texample.com/x\t0.01s", tur={"stdout": "ok", "stderr": "", "interrupted": False})
L.raw({"type": "file-history-snapshot", "messageId": uid("b0000009", 7), "snapshot": {}, "isSnapshotUpdate": True})
L.add(L.base("attachment", 8, 7, attachment={"type": "diagnostics"}))
L.add(L.base("future-record-kind", 9, 8, payload={"x": 1}))
L.asst(10, 9, "msg_g2", [text("All tests pass.")], req="req_g2")
L.raw({"type": "custom-title", "customTitle": "tests", "sessionId": sid})
L.raw({"type": "last-prompt", "lastPrompt": "Run the tests", "leafUuid": uid("b0000009", 10), "sessionId": sid})
L.write("progress/" + sid + ".jsonl")

# ---------------------------------------------------------------- API errors
sid = "0b00000a-aaaa-4aaa-8aaa-00000000000a"
L = Log("b000000a", sid, version="2.1.119")
L.user(1, None, "Summarise README.md")
L.system(2, 1, "api_error", None, level="error", error={"status": 529}, retryInMs=1000, retryAttempt=1)
L.asst(3, 2, None, [text("API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}")], model="<synthetic>", isApiErrorMessage=True)
L.user(4, 3, "try again")
L.asst(5, 4, "msg_e1", [text("README.md describes a CLI.")], req="req_e1")
L.write("api-error/" + sid + ".jsonl")

# ---------------------------------------------------------------- commands, meta, wrappers, hostile text
sid = "0b00000b-bbbb-4bbb-8bbb-00000000000b"
L = Log("b000000b", sid, version="2.1.27")
L.user(1, None, "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.", isMeta=True)
L.user(2, 1, "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>")
L.user(3, 2, "<local-command-stdout>Set model to \u001b[1mopus\u001b[22m</local-command-stdout>")
L.system(4, 3, "local_command", "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>")
L.user(5, 4, [text("<ide_selection>The user selected lines 1-2 of a.go</ide_selection>"),
              text("Fix \"this\" <script>alert(1)</script> ]] | {x} `code` #1 &amp; \\ back\\slash\nsecond line\u202eevil 🎉 日本語")])
L.asst(6, 5, "msg_h1", [text("🎉日本 Label with \"quotes\" and ]|[ and <b>tags</b>\nand a newline"),
                        use("toolu_h1🎉", "Bash", {"command": "echo \"<x>\" | tr -d '\\n' # ]"})], req="req_h1")
L.result(7, 6, "toolu_h1🎉", [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}])
L.user(8, 7, [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}])
L.user(9, 8, "[Request interrupted by user]")
L.user(10, 9, "<bash-input>ls -la</bash-input>")
L.user(11, 10, "<bash-stdout>total 0</bash-stdout><bash-stderr></bash-stderr>")
L.write("commands/" + sid + ".jsonl")

# ---------------------------------------------------------------- cycles must not hang
sid = "0b00000c-cccc-4ccc-8ccc-00000000000c"
L = Log("b000000c", sid, version="2.1.50")
L.user(1, 3, "first (its parent is line 3)")
L.asst(2, 1, "msg_y1", [text("second")], req="req_y1")
L.user(3, 2, "third closes the loop")
L.user(4, 4, "I am my own parent")
L.user(5, None, "a healthy root")
L.asst(6, 5, "msg_y2", [text("answer")], req="req_y2")
L.write("cycle/" + sid + ".jsonl")

# ---------------------------------------------------------------- a sub-agent spawned on a branch the user abandoned
sid = "0b00000d-dddd-4ddd-8ddd-00000000000d"
# the user rewinds to the first reply and asks again: the Task call, and its agent's whole lane,
# are on the abandoned branch
L2 = Log("b000000d", sid, version="2.1.40")
L2.user(10, None, "hello")
L2.asst(11, 10, "msg_d0", [text("Hi.")], req="req_d0")
L2.user(1, 11, "Find slow tests")
L2.asst(2, 1, "msg_d1", [use("toolu_d1", "Task", {"description": "Profile tests", "prompt": "Profile the test suite.", "subagent_type": "Explore"})], req="req_d1")
L2.result(3, 2, "toolu_d1", [text("TestBig takes 9s.")], tur={"status": "completed", "agentId": "ad0d1d2d3d4d5d6d7", "totalDurationMs": 9000})
L2.asst(4, 3, "msg_d2", [text("TestBig is the slow one.")], req="req_d2")
L2.user(5, 11, "Find slow tests in pkg/db only")
L2.asst(6, 5, "msg_d3", [text("pkg/db has no slow tests.")], req="req_d3")
L2.write("fork-subagent/" + sid + ".jsonl")
A = Log("b000001d", sid, version="2.1.40", agent="ad0d1d2d3d4d5d6d7", sidechain=True)
A.user(1, None, "Profile the test suite.")
A.asst(2, 1, "msg_q1", [use("toolu_q1", "Bash", {"command": "go test -v ./... | sort -k4"})], req="req_q1")
A.result(3, 2, "toolu_q1", "--- PASS: TestBig (9.00s)")
A.asst(4, 3, "msg_q2", [text("TestBig takes 9s.")], req="req_q2")
A.write("fork-subagent/" + sid + "/subagents/agent-ad0d1d2d3d4d5d6d7.jsonl")

# ---------------------------------------------------------------- a Task the person rejected whose agent still ran: linked by progress data.agentId
sid = "0b00000e-eeee-4eee-8eee-00000000000e"
L = Log("b000000e", sid, version="2.1.53")
L.user(1, None, "Refactor the parser")
L.asst(2, 1, "msg_p1", [use("toolu_p1", "Task", {"description": "Refactor", "prompt": "Refactor internal/parser.", "subagent_type": "general-purpose"})], req="req_p1")
L.add(L.base("progress", 3, 2, data={"message": {"type": "user", "message": {"role": "user", "content": [text("Refactor internal/parser.")]}},
                                      "type": "agent_progress", "prompt": "Refactor internal/parser.", "agentId": "a7c0ffee000000e1"},
             toolUseID="agent_msg_p1", parentToolUseID="toolu_p1"))
L.result(4, 2, "toolu_p1", "The user doesn't want to proceed with this tool use. The tool use was rejected.", is_error=True,
         tur="Error: The user doesn't want to proceed with this tool use.")
L.user(5, 4, "Never mind, stop")
L.asst(6, 5, "msg_p2", [text("Stopped.")], req="req_p2")
L.write("rejected-task-progress/" + sid + ".jsonl")
A = Log("b000001e", sid, version="2.1.53", agent="a7c0ffee000000e1", sidechain=True)
A.user(1, None, "Refactor internal/parser.")
A.asst(2, 1, "msg_pa", [text("Refactoring.")], req="req_pa")
A.write("rejected-task-progress/" + sid + "/subagents/agent-a7c0ffee000000e1.jsonl")

# ---------------------------------------------------------------- an Agent call tied to its log only by the prompt it gave
sid = "0b00000f-ffff-4fff-8fff-00000000000f"
L = Log("b000000f", sid, version="2.1.60")
L.user(1, None, "Summarise the changes")
L.asst(2, 1, "msg_m1", [use("toolu_m1", "Agent", {"description": "Summarise", "prompt": "Summarise the git diff.", "subagent_type": "Explore"})], req="req_m1")
L.result(3, 2, "toolu_m1", [text("Two files changed.")], tur="Two files changed.")
L.asst(4, 3, "msg_m2", [text("Two files changed.")], req="req_m2")
L.write("prompt-matched-agent/" + sid + ".jsonl")
A = Log("b000001f", sid, version="2.1.60", agent="a5ummar15e000001", sidechain=True)
A.user(1, None, "Summarise the git diff.")
A.asst(2, 1, "msg_ma", [text("Two files changed.")], req="req_ma")
A.write("prompt-matched-agent/" + sid + "/subagents/agent-a5ummar15e000001.jsonl")

# ---------------------------------------------------------------- a sidechain in the main log whose root names the call's record as its parent
sid = "0b000010-1010-4010-8010-000000000010"
L = Log("b0000010", sid, version="1.0.61")
L.user(1, None, "Check the build")
L.asst(2, 1, "msg_c1", [use("toolu_c1", "Task", {"description": "Build", "prompt": "Run the build.", "subagent_type": "general-purpose"})], req="req_c1")
L.user(3, 2, "Run the build.", isSidechain=True)
L.asst(4, 3, "msg_c2", [text("Build passes.")], req="req_c2", isSidechain=True)
L.result(5, 2, "toolu_c1", [text("Build passes.")], tur={"content": [text("Build passes.")], "totalDurationMs": 1500})
L.asst(6, 5, "msg_c3", [text("The build passes.")], req="req_c3")
L.write("sidechain-parent-lane/" + sid + ".jsonl")
