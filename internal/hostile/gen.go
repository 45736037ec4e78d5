// Package hostile builds session logs for hardening tests: realistic records one line at a time, and
// the hostile shapes of issue 5 (deep chains, cycles, fan-out, junk). Everything is generated at
// test time so that no large file is committed.
package hostile

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SessionID is the sessionId every generated record carries.
const SessionID = "5e551011-0000-4000-8000-000000000000"

// Q returns s as a JSON string.
func Q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func parentField(parent string) string {
	if parent == "" {
		return `"parentUuid":null`
	}
	return `"parentUuid":` + Q(parent)
}

// User is a user prompt record.
func User(uuid, parent, text string) string {
	return `{` + parentField(parent) + `,"isSidechain":false,"type":"user","message":{"role":"user","content":` + Q(text) +
		`},"uuid":` + Q(uuid) + `,"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"` + SessionID + `"}`
}

// Assistant is an assistant text record.
func Assistant(uuid, parent, msgID, text string) string {
	return `{` + parentField(parent) + `,"isSidechain":false,"type":"assistant","message":{"id":` + Q(msgID) +
		`,"role":"assistant","model":"claude-test","content":[{"type":"text","text":` + Q(text) +
		`}],"usage":{"input_tokens":3,"output_tokens":5}},"requestId":"req_1","uuid":` + Q(uuid) +
		`,"timestamp":"2026-01-01T00:00:01.000Z","sessionId":"` + SessionID + `"}`
}

// ToolUse is an assistant record holding one tool_use block.
func ToolUse(uuid, parent, msgID, toolID, name, input string) string {
	if input == "" {
		input = `{}`
	}
	return `{` + parentField(parent) + `,"isSidechain":false,"type":"assistant","message":{"id":` + Q(msgID) +
		`,"role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":` + Q(toolID) + `,"name":` + Q(name) +
		`,"input":` + input + `}]},"uuid":` + Q(uuid) + `,"timestamp":"2026-01-01T00:00:02.000Z","sessionId":"` + SessionID + `"}`
}

// ToolResult is a user record holding one tool_result block. agentID, when set, goes into an object
// toolUseResult as a sub-agent call's result does.
func ToolResult(uuid, parent, toolID, output, agentID string) string {
	res := Q(output)
	if agentID != "" {
		res = `{"status":"completed","agentId":` + Q(agentID) + `,"totalDurationMs":1200,"totalTokens":99}`
	}
	return `{` + parentField(parent) + `,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":` + Q(toolID) +
		`,"type":"tool_result","content":` + Q(output) + `}]},"uuid":` + Q(uuid) + `,"toolUseResult":` + res +
		`,"timestamp":"2026-01-01T00:00:03.000Z","sessionId":"` + SessionID + `"}`
}

// Progress is a progress record (no node, but part of the chain).
func Progress(uuid, parent, toolID string) string {
	return `{` + parentField(parent) + `,"type":"progress","data":{"type":"hook_progress"},"toolUseID":` + Q(toolID) +
		`,"uuid":` + Q(uuid) + `,"sessionId":"` + SessionID + `"}`
}

// Lines joins records into a log, one per line, each ending in "\n".
func Lines(recs ...string) []byte {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// Turns writes a healthy conversation of n turns: a prompt, a tool call, its result and an answer
// per turn, each chained to the previous. It returns the log and the uuid of its last record. Every
// turn is about size bytes (padding goes into the tool output), prefix keeps uuids unique across
// logs, and parent is the first record's parent ("" for a root).
func Turns(prefix, parent string, n, size int) (log []byte, last string) {
	var b strings.Builder
	pad := max(0, size-1400)
	for i := 0; i < n; i++ {
		u := func(k int) string { return fmt.Sprintf("%s-%d-%d", prefix, i, k) }
		tool := fmt.Sprintf("toolu_%s_%d", prefix, i)
		msg := fmt.Sprintf("msg_%s_%d", prefix, i)
		b.WriteString(User(u(0), parent, fmt.Sprintf("turn %d: find the bug in főo.go 😀", i)))
		b.WriteByte('\n')
		b.WriteString(ToolUse(u(1), u(0), msg, tool, "Read", `{"file_path":"/src/foo.go"}`))
		b.WriteByte('\n')
		b.WriteString(ToolResult(u(2), u(1), tool, "package foo // 中文 "+strings.Repeat("x", pad), ""))
		b.WriteByte('\n')
		b.WriteString(Assistant(u(3), u(2), msg+"b", "It is on line 3."))
		b.WriteByte('\n')
		parent = u(3)
	}
	return []byte(b.String()), parent
}
