package classify

import (
	"os"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

func rec(t *testing.T, line string) *session.Rec {
	t.Helper()
	f := session.NewFile("x.jsonl", []byte(line+"\n"))
	r := f.Rec(0)
	if r == nil || r.LineErr() != nil {
		t.Fatalf("not a record: %s", line)
	}
	return r
}

func TestUser(t *testing.T) {
	for _, c := range []struct {
		name, line string
		who        Who
		prompt     string
	}{
		{"prompt", `{"type":"user","message":{"role":"user","content":"Fix the bug"}}`, Person, "Fix the bug"},
		{"image", `{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}}]}}`, Person, "[image]"},
		{"selection beside typed text", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_selection>x</ide_selection>"},{"type":"text","text":"explain this"}]}}`, Person, "explain this"},
		{"slash command with args", `{"type":"user","message":{"role":"user","content":"<command-message>erk:plan-implement</command-message>\n<command-name>/erk:plan-implement</command-name>\n<command-args>7933</command-args>"}}`, Command, "/erk:plan-implement 7933"},
		{"slash command, name first", `{"type":"user","message":{"role":"user","content":"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>"}}`, Command, "/model"},
		{"old command name without slash", `{"type":"user","message":{"role":"user","content":"<command-message>user:grammar is running…</command-message>\n<command-name>user:grammar</command-name>\n<command-args></command-args>\n<command-contents>{}</command-contents>"}}`, Command, "/user:grammar"},
		{"command contents alone", `{"type":"user","message":{"role":"user","content":"<command-contents># Review\nCheck the docs</command-contents>"}}`, Injected, ""},
		{"bash input", `{"type":"user","message":{"role":"user","content":"<bash-input>ls -la</bash-input>"}}`, Shell, "! ls -la"},
		{"bash output", `{"type":"user","message":{"role":"user","content":"<bash-stdout>total 0</bash-stdout><bash-stderr></bash-stderr>"}}`, Injected, ""},
		{"local command output", `{"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model</local-command-stdout>"}}`, Injected, ""},
		{"interruption", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`, Injected, ""},
		{"task notification", `{"type":"user","message":{"role":"user","content":"<task-notification>done</task-notification>"}}`, Injected, ""},
		{"meta", `{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: The messages below were generated"}}`, Injected, ""},
		{"compact summary", `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`, CompactSummary, ""},
		{"tool results", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`, ToolResults, ""},
		{"empty", `{"type":"user","message":{"role":"user","content":""}}`, Injected, ""},
		{"unknown tag is typed text", `{"type":"user","message":{"role":"user","content":"<div> is not closed"}}`, Person, "<div> is not closed"},
		{"assistant", `{"type":"assistant","message":{"role":"assistant","content":"hi"}}`, Other, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rec(t, c.line)
			if got := User(r); got != c.who {
				t.Errorf("User = %v, want %v", got, c.who)
			}
			if got := Prompt(r, 600); got != c.prompt {
				t.Errorf("Prompt = %q, want %q", got, c.prompt)
			}
		})
	}
}

func TestPromptCut(t *testing.T) {
	r := rec(t, `{"type":"user","message":{"role":"user","content":"héllo wörld"}}`)
	if got := Prompt(r, 2); got != "h" { // never half a character
		t.Errorf("Prompt(2) = %q", got)
	}
}

// The corpus's sessions started with a typed slash command: the person's input.
func TestCorpusSlashCommand(t *testing.T) {
	path := testcorpus.Path(t, "dagster-io__erk/session/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl", "that a session started with a typed slash command counts it as the person's input")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := session.NewFile(path, text).Rec(2) // line 3
	if who, p := User(r), Prompt(r, 600); who != Command || p != "/erk:plan-implement" {
		t.Errorf("line 3: %v %q, want a command /erk:plan-implement", who, p)
	}
}

// Text's shortcut (plainPerson) answers as decoding the text does.
func FuzzText(f *testing.F) {
	for _, s := range []string{`"go on"`, `"  go on"`, `"\n<command-name>/x</command-name>"`, `" [Request interrupted by user]"`,
		`"\u0020<bash-input>ls</bash-input>"`, `"\t\r\n"`, `""`, `"x`, `x"`, `"\u00a0hi"`, "\"\u00a0<hi>\"", "\"\x00a\"", `"\q"`,
		`"<system-reminder>x</system-reminder>"`, `"` + strings.Repeat(" ", peek) + `x"`, `"` + strings.Repeat(" ", peek-1) + `x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := Text(raw), textOf(decode(raw, peek)); got != want {
			t.Errorf("Text(%q) = %v, decoded %v", raw, got, want)
		}
	})
}
