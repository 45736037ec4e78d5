package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
)

// quotingLog is a log whose ids hold secrets, each quoted by a finding's message: a parentUuid
// naming no record, a call without result, a result of no call, a logicalParentUuid naming no
// record, a uuid defined twice, and a sub-agent id (of a result) whose log is missing. It returns
// the log and the secrets.
func quotingLog(t *testing.T) (string, []secretstest.Planted) {
	t.Helper()
	var ps []secretstest.Planted
	for seed := uint64(40); len(ps) < 6; seed++ {
		for _, p := range secretstest.Plants(seed) {
			if p.Rule == "github-pat" {
				ps = append(ps, p)
			}
		}
	}
	s := func(i int) string { return ps[i].Secret }
	rec := func(uuid, parent, rest string) string {
		p := `"` + parent + `"`
		if parent == "" {
			p = "null"
		}
		return `{"sessionId":"s","type":"user","uuid":"` + uuid + `","parentUuid":` + p + `,` + rest + "}\n"
	}
	log := rec("u1", "", `"message":{"role":"user","content":"hi"}`) +
		rec("u2", s(0), `"message":{"role":"user","content":"orphan"}`) +
		strings.Replace(rec("u3", "u2", `"message":{"role":"assistant","content":[{"type":"tool_use","id":"`+s(1)+`","name":"Bash","input":{"command":"ls"}}]}`), `"user"`, `"assistant"`, 1) +
		rec("u4", "u3", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+s(2)+`","content":"x"}]}`) +
		strings.Replace(rec("u5", "", `"subtype":"compact_boundary","logicalParentUuid":"`+s(3)+`","content":"c"`), `"user"`, `"system"`, 1) +
		rec(s(4), "u5", `"message":{"role":"user","content":"once"}`) +
		rec(s(4), "u5", `"message":{"role":"user","content":"twice"}`) +
		strings.Replace(rec("u8", "u5", `"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"Task","input":{"prompt":"p"}}]}`), `"user"`, `"assistant"`, 1) +
		rec("u9", "u8", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"done"}]},"toolUseResult":{"agentId":"`+s(5)+`"}`) +
		rec("u10", "u9", `"message":{"role":"user","content":"go on"}`)
	return log, ps
}

// TestMessagesMaskTheSecretsTheyQuote: a finding's message (and its related information) that
// quotes an id holding a secret shows the secret's placeholder, never the secret — in what an
// editor gets (File) and what `ccdag check` prints (Each), with the secret scan on or left out.
func TestMessagesMaskTheSecretsTheyQuote(t *testing.T) {
	log, ps := quotingLog(t)
	want := []Code{Orphan, UnmatchedToolUse, UnmatchedToolResult, UnresolvedLogicalParent, DuplicateUUID, MissingAgentFile}
	for _, opt := range []Options{{}, {NoSecrets: true}} {
		t.Run(fmt.Sprintf("NoSecrets=%v", opt.NoSecrets), func(t *testing.T) {
			f := session.NewFile("/p/s.jsonl", []byte(log))
			s := session.New("s", "/p")
			s.AddFile(f)
			c := NewOptions(s, opt)
			seen := map[Code]bool{}
			look := func(via string, fd Finding) {
				seen[fd.Code] = true
				texts := []string{fd.Message}
				for _, r := range fd.Related {
					texts = append(texts, r.Message)
				}
				for _, txt := range texts {
					if leak := secretstest.Leak(txt, ps); leak != "" {
						t.Errorf("%s: line %d %s: %q shows %q of a secret", via, fd.Line+1, fd.Code, txt, leak)
					}
				}
			}
			for _, fd := range c.File(f, nil) {
				look("File", fd)
			}
			for fd := range c.Each(f, nil) {
				look("Each", fd)
			}
			for _, code := range want {
				if !seen[code] {
					t.Errorf("no %s finding: the log no longer tests its message", code)
				}
			}
			if seen[Secret] == opt.NoSecrets {
				t.Errorf("secret findings: %v, want %v", seen[Secret], !opt.NoSecrets)
			}
		})
	}
}
