package secretstest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

// Session is a real session with secrets planted in it (PlantSession).
type Session struct {
	Root   string    // a workspace: the session is in its .claude/projects
	Dir    string    // the folder holding the session's logs (a project folder)
	Main   string    // the main log
	Agent  string    // a sub-agent log that holds secrets
	Plants []Planted // every secret planted
	Words  []string  // words planted beside secrets, to search for
}

const corpusSession = "CH-chuan__CommuGraph/public/samples/claudecode/"

// PlantSession copies a real corpus session with sub-agent logs (flat layout) into a temp folder
// and plants secrets made at run time where each kind of text is shown: the first prompt (the
// session's title), a later prompt, a failed call's result, a Bash command (a tool input), a tool result's text (a key
// block and a generic key) and a sub-agent log's prompt and command. Beside them are the words
// of Words (AWS_REGION, GITHUB_TOKEN, ...), what a search for them finds.
func PlantSession(t testing.TB) Session {
	t.Helper()
	src := filepath.Dir(testcorpus.Path(t, corpusSession+"ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl",
		"that no output or server result shows a secret planted in a real session and its sub-agent logs"))
	root := t.TempDir()
	dir := filepath.Join(root, ".claude", "projects", "-Users-someone-CommuGraph")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = bytes.SplitAfter(b, []byte("\n"))
	}
	a, b := Plants(101), Plants(102)
	byRule := func(ps []Planted, rule string) string {
		for _, p := range ps {
			if p.Rule == rule {
				return p.Secret
			}
		}
		t.Fatalf("no %s planted", rule)
		return ""
	}
	esc := func(s string) string {
		j, _ := json.Marshal(s)
		return string(j[1 : len(j)-1])
	}
	// plant puts text (escaped) after the first marker of the first line of file at or after
	// line from that holds every one of has.
	plant := func(file string, from int, marker, text string, has ...string) int {
		lines := files[file]
	next:
		for i := from; i < len(lines); i++ {
			for _, h := range append(has, marker) {
				if !bytes.Contains(lines[i], []byte(h)) {
					continue next
				}
			}
			k := bytes.Index(lines[i], []byte(marker)) + len(marker)
			lines[i] = append(append(append([]byte{}, lines[i][:k]...), esc(text)...), lines[i][k:]...)
			return i
		}
		t.Fatalf("%s: no line from %d holds %q and %q", file, from+1, marker, has)
		return 0
	}
	const main = "ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl"
	const agent = "agent-9507cef4.jsonl"
	prompt := `"message":{"role":"user","content":"`
	// The first prompt (a slash command's arguments): the session's title; the first one typed.
	plant(main, 0, "<command-args>", "GITHUB_TOKEN="+byRule(a, "github-pat")+" now", "<command-name>/clear")
	plant(main, 5, prompt, "GITHUB_TOKEN="+byRule(a, "github-pat")+" deploy it then ")
	// A failed call's result: what an export carries.
	failed := plant(main, 0, `"type":"tool_result","content":"`, "NPM_TOKEN="+byRule(a, "github-pat")+" refused\n", `"is_error":true`)
	// Another, the secret across byte 1 024, where an exported error's text is cut.
	plant(main, failed+1, `"type":"tool_result","content":"`, strings.Repeat("npm ERR! ", 112)+"token "+byRule(b, "github-pat")+"\n", `"is_error":true`)
	plant(main, 300, prompt, "slack "+byRule(a, "slack-bot-token")+" continue ", `"content":"continue"`)
	plant(main, 0, `"input":{"command":"`, "AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID="+byRule(a, "aws-access-token")+" GITHUB_TOKEN="+byRule(b, "github-pat")+" ", `"name":"Bash"`)
	plant(main, 0, `"type":"tool_result","content":"`, byRule(a, "private-key")+"\nconfig:\napi_key="+byRule(a, "generic-api-key")+"\nnext ")
	plant(agent, 0, prompt, "deploy GITHUB_TOKEN="+byRule(b, "aws-access-token")+" and ")
	plant(agent, 0, `"input":{"command":"`, "AWS_REGION=eu-west-1 AWS_ACCESS_KEY_ID="+byRule(b, "slack-bot-token")+" ", `"name":"Bash"`)
	old := time.Now().Add(-time.Hour) // not a live session
	for name, lines := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Join(lines, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	plants := append(a, b[0], b[1], b[2]) // the rest of b is not planted
	return Session{Root: root, Dir: dir, Main: filepath.Join(dir, main), Agent: filepath.Join(dir, agent), Plants: plants,
		Words: []string{"AWS_REGION", "GITHUB_TOKEN", "slack", "api_key", "deploy", "BEGIN"}}
}
