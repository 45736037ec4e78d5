//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A sub-agent log that is there but is no file to read (a FIFO) is never read, and its call's
// finding says the log is there, not read, and why, rather than that it is not where Claude Code
// writes it: whether `check` is given the session's folder or its main log.
func TestCheckSaysAFIFOAgentLogIsThere(t *testing.T) {
	dir := t.TempDir()
	sid := "c2c20000-0000-0000-0000-000000000002"
	mainPath := filepath.Join(dir, sid+".jsonl")
	writeLogFile(t, mainPath, strings.Join([]string{
		fmt.Sprintf(`{"type":"user","uuid":"m1","sessionId":%q,"message":{"role":"user","content":"go"}}`, sid),
		fmt.Sprintf(`{"type":"assistant","uuid":"m2","parentUuid":"m1","sessionId":%q,"message":{"id":"x","role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Task","input":{"description":"d","prompt":"p","subagent_type":"Explore"}}]}}`, sid),
		fmt.Sprintf(`{"type":"user","uuid":"m3","parentUuid":"m2","sessionId":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"ok"}]},"toolUseResult":{"status":"completed","agentId":"a1"}}`, sid),
	}, "\n")+"\n")
	os.MkdirAll(filepath.Join(dir, sid, "subagents"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, sid, "subagents", "agent-a1.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, named := range []string{dir, mainPath} {
		out, errs, _ := run(t, "check", named)
		if !strings.Contains(out, "its log "+sid+"/subagents/agent-a1.jsonl is there but was not read: not a regular file") || strings.Contains(out, "not where") {
			t.Errorf("check %s:\n%s%s", named, out, errs)
		}
	}
}
