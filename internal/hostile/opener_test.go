package hostile

// Issue 14 items 1 and 4, issue 9 item 13: every path the server or the CLI opens goes through
// layout.Open (Lstat first, regular files only, O_NONBLOCK, no link out of the session's folder),
// and no path is ever handed to a glob.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/layout"
)

// within runs f and fails the test when it has not returned after d (a blocked open).
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}

// lspProc is `ccdag serve` over OS pipes, as an editor runs it.
type lspProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	msgs chan []byte
}

func startServe(t *testing.T, bin string) *lspProc {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspProc{t: t, cmd: cmd, in: in, msgs: make(chan []byte, 1024)}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	go func() {
		br := bufio.NewReader(out)
		for {
			n := 0
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					close(p.msgs)
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				fmt.Sscanf(line, "Content-Length: %d", &n)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(br, body); err != nil {
				close(p.msgs)
				return
			}
			p.msgs <- body
		}
	}()
	return p
}

func (p *lspProc) send(msgs ...string) {
	p.in.Write([]byte(lspFrames(msgs...)))
}

// reply waits for the response to id, failing after d.
func (p *lspProc) reply(id int, d time.Duration) []byte {
	p.t.Helper()
	deadline := time.After(d)
	want := fmt.Sprintf(`"id":%d,`, id)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("the server ended before answering request %d", id)
			}
			if bytes.Contains(m, []byte(want)) && (bytes.Contains(m, []byte(`"result"`)) || bytes.Contains(m, []byte(`"error"`))) {
				return m
			}
		case <-deadline:
			p.t.Fatalf("request %d unanswered after %v: the server is blocked", id, d)
		}
	}
}

// A FIFO named agent-zz.jsonl, and links named agent-*.jsonl to a file outside the folder and to
// /dev/stdin, announced by workspace/didChangeWatchedFiles: the server neither blocks nor reads its
// own input, and keeps answering. (Before: watch.go → Discover → HeadSessionID → os.Open of the FIFO
// blocked the read loop for good.)
func TestWatchedFIFOAndLinksDoNotBlockTheServer(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	dir := filepath.Join(root, "projects", "p")
	outside := filepath.Join(root, "outside")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(outside, 0o755)
	main := filepath.Join(dir, SessionID+".jsonl")
	text := Lines(User("root", "", "hi"), Assistant("a", "root", "m1", "hello"))
	os.WriteFile(main, text, 0o644)
	fifo := filepath.Join(dir, "agent-zz.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	// The target outside is a FIFO too: opening it would block, so a server that follows the link hangs.
	secret := filepath.Join(outside, "secret.jsonl")
	mkfifo(secret)
	os.Symlink(secret, filepath.Join(dir, "agent-x.jsonl"))
	os.Symlink("/dev/stdin", filepath.Join(dir, "agent-in.jsonl"))

	p := startServe(t, bin)
	uri := "file://" + main
	p.send(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":`+Q(uri)+`,"languageId":"jsonl","version":1,"text":`+Q(string(text))+`}}}`,
	)
	p.reply(1, 10*time.Second)
	var changes []string
	for _, n := range []string{"agent-zz.jsonl", "agent-x.jsonl", "agent-in.jsonl"} {
		changes = append(changes, `{"uri":`+Q("file://"+filepath.Join(dir, n))+`,"type":1}`)
	}
	p.send(`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[` + strings.Join(changes, ",") + `]}}`)
	time.Sleep(300 * time.Millisecond) // what a server reading its own stdin would swallow comes next
	for id := 2; id <= 3; id++ {
		p.send(`{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"textDocument/hover","params":{"textDocument":{"uri":` + Q(uri) + `},"position":{"line":1,"character":5}}}`)
		p.reply(id, 10*time.Second)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":` + Q(uri) + `}}}`)
	if g := p.reply(4, 10*time.Second); bytes.Contains(g, []byte("agent-zz")) || bytes.Contains(g, []byte("agent-x")) || bytes.Contains(g, []byte("agent-in")) {
		t.Errorf("a FIFO or a link joined the session: %s", g)
	}
}

// A meta file that is a link out of the session's folder is not read when a watch event names it
// (issue 9 item 13: the server's newFile read it through a link).
func TestWatchedMetaLinkIsNotRead(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	dir := filepath.Join(root, "projects", "p")
	sub := filepath.Join(dir, SessionID, "subagents")
	outside := filepath.Join(root, "outside")
	os.MkdirAll(sub, 0o755)
	os.MkdirAll(outside, 0o755)
	main := filepath.Join(dir, SessionID+".jsonl")
	text := Lines(User("root", "", "hi"),
		ToolUse("t", "root", "m1", "toolu_1", "Task", `{"prompt":"go"}`),
		ToolResult("r", "t", "toolu_1", "done", "a1"))
	os.WriteFile(main, text, 0o644)
	agent, _ := Turns("ag", "", 1, 0)
	agentPath := filepath.Join(sub, "agent-a1.jsonl")
	os.WriteFile(agentPath, agent, 0o644)
	os.WriteFile(filepath.Join(outside, "secret.meta.json"), []byte(`{"agentType":"SECRETTYPE","description":"SECRETDESC"}`), 0o644)
	meta := filepath.Join(sub, "agent-a1.meta.json")
	os.Symlink(filepath.Join(outside, "secret.meta.json"), meta)

	p := startServe(t, bin)
	uri := "file://" + main
	p.send(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":`+Q(uri)+`,"languageId":"jsonl","version":1,"text":`+Q(string(text))+`}}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":`+Q("file://"+meta)+`,"type":2}]}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":`+Q("file://"+agentPath)+`,"languageId":"jsonl","version":1,"text":`+Q(string(agent))+`}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":`+Q(uri)+`}}}`,
	)
	g := p.reply(2, 10*time.Second)
	if bytes.Contains(g, []byte("SECRET")) {
		t.Errorf("the meta file linked from outside the session's folder was read: %s", g)
	}
	if !bytes.Contains(g, []byte(`"agentId":"a1"`)) {
		t.Errorf("the agent's lane is missing: %s", g)
	}
	if m := layout.ReadMeta(agentPath, dir); m != nil {
		t.Errorf("ReadMeta followed the link out: %+v", m)
	}
}

// The CLI refuses a FIFO named as a log, or found as a flat agent log, with a message and exit 2.
func TestCLIRefusesFIFOs(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	x := filepath.Join(dir, "x.jsonl")
	if err := mkfifo(x); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	flat := filepath.Join(t.TempDir(), "agent-q.jsonl")
	mkfifo(flat)
	for _, args := range [][]string{{"check", x}, {"check", flat}, {"graph", x}, {"graph", flat}} {
		var code int
		var out []byte
		within(t, 10*time.Second, strings.Join(args, " "), func() {
			cmd := exec.Command(bin, args...)
			out, _ = cmd.CombinedOutput()
			code = cmd.ProcessState.ExitCode()
		})
		if code != 2 || !strings.Contains(string(out), "not a regular file") {
			t.Errorf("ccdag %s: exit %d, %q; want exit 2 saying it is not a regular file", strings.Join(args, " "), code, out)
		}
	}
}

// layout.Open: Lstat first, regular files only, links only while they stay in the folder.
func TestOpenRefusesWhatIsNotARegularFileOfTheFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(root, "secret.jsonl"), Lines(User("secret", "", "s")), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.jsonl"), Lines(User("a", "", "s")), 0o644)
	mkfifo(filepath.Join(dir, "fifo.jsonl"))
	os.Symlink(filepath.Join(root, "secret.jsonl"), filepath.Join(dir, "out.jsonl"))
	os.Symlink("ok.jsonl", filepath.Join(dir, "alias.jsonl"))
	os.Symlink("/dev/stdin", filepath.Join(dir, "stdin.jsonl"))
	for name, ok := range map[string]bool{"ok.jsonl": true, "alias.jsonl": true, "fifo.jsonl": false, "out.jsonl": false, "stdin.jsonl": false} {
		within(t, 5*time.Second, name, func() {
			b, err := layout.ReadFile(filepath.Join(dir, name), dir)
			if (err == nil) != ok {
				t.Errorf("ReadFile(%s): %d bytes, %v", name, len(b), err)
			}
		})
	}
	// A path the person named (root "") may be a link, but still only to a regular file.
	if _, err := layout.ReadFile(filepath.Join(dir, "out.jsonl"), ""); err != nil {
		t.Errorf("a named link to a regular file: %v", err)
	}
	if _, err := layout.ReadFile(filepath.Join(dir, "fifo.jsonl"), ""); err == nil {
		t.Error("a named FIFO was read")
	}
	within(t, 5*time.Second, "HeadSessionID of a FIFO", func() { layout.HeadSessionID(filepath.Join(dir, "fifo.jsonl")) })
	if id := layout.HeadSessionID(filepath.Join(dir, "out.jsonl")); id != "" {
		t.Errorf("HeadSessionID read through a link out of the folder: %q", id)
	}
}

// Folder names holding glob characters are names, not patterns (issue 14 item 4).
func TestGlobCharactersInFolderNames(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, recs ...string) string {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, Lines(recs...), 0o644)
		return p
	}
	flat := func(id, uuid string) string {
		return `{"type":"user","uuid":` + Q(uuid) + `,"parentUuid":null,"isSidechain":true,"sessionId":` + Q(id) + `,"message":{"content":"x"}}`
	}
	cases := []struct {
		main string
		want string
	}{
		{write("p3/star/*/G.jsonl", flat("G", "g0")), ""},
		{write("brk/a[b]/K.jsonl", flat("K", "k0")), "kin"},
		{write("q/a?c/Q.jsonl", flat("Q", "q0")), "qin"},
	}
	write("p3/star/other/agent-gx.jsonl", flat("G", "gx"))
	write("brk/ab/agent-kout.jsonl", flat("K", "kout"))
	write("brk/a[b]/agent-kin.jsonl", flat("K", "kin"))
	write("q/abc/agent-qout.jsonl", flat("Q", "qout"))
	write("q/a?c/agent-qin.jsonl", flat("Q", "qin"))
	for _, c := range cases {
		found, err := layout.Discover(c.main)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range found.Agents {
			ids = append(ids, a.AgentID)
		}
		if strings.Join(ids, ",") != c.want {
			t.Errorf("%s: agents %v, want %q", c.main, ids, c.want)
		}
	}
}

// File names are log-controlled (a session can arrive as an archive): `check --format text` escapes
// them as it escapes messages, so a name cannot drive the terminal, forge a finding line for a
// quickfix list or a CI annotator, or read differently from what it is (issue 14 item 5).
func TestCheckTextEscapesFileNames(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	names := []string{
		"agent-x\nfake.jsonl:1:1: error: INJECTED LINE [orphan]\n.jsonl",
		"agent-\x1b]0;title\x07\x1b[2J\x1b[31mred.jsonl",
		"agent-\u202egnp.exe\u2066.jsonl",
	}
	for i, n := range names {
		rec := `{"type":"user","uuid":"u` + fmt.Sprint(i) + `","parentUuid":"nowhere","isSidechain":true,"sessionId":"s","message":{"content":"x"}}`
		if err := os.WriteFile(filepath.Join(dir, n), Lines(rec), 0o644); err != nil {
			t.Skipf("this file system refuses the name: %v", err)
		}
	}
	cmd := exec.Command(bin, "check", "--format", "text", "--fail-on", "never", dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		t.Errorf("%d lines for %d findings (a file name forged lines):\n%s", len(lines), len(names), out)
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\x1b\x07\r\u202e\u2066") {
			t.Errorf("a control or bidi character reached the output: %q", l)
		}
		if strings.HasPrefix(l, "fake.jsonl") || strings.HasPrefix(l, ".jsonl") {
			t.Errorf("forged line: %q", l)
		}
	}
	if !strings.Contains(string(out), `agent-x\x0afake.jsonl`) || !strings.Contains(string(out), `\u202egnp`) {
		t.Errorf("names not shown escaped:\n%s", out)
	}
}

// A log the person names may be a link (SECURITY.md), and a sub-agent log linked from inside the
// session's folder is part of the session: `check` read its files as links out of each file's own
// folder, refused the named link ("a link out of the session's folder") and dropped the sub-agent
// that `graph` and the server showed. A link out of the session's folder stays unread by both.
func TestCLIFollowsTheNamedLinkAndLinksInsideTheSession(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	sub := filepath.Join(root, "p", SessionID, "subagents")
	for _, d := range []string{filepath.Join(root, "real"), sub, filepath.Join(root, "outside")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(root, "real", SessionID+".jsonl"), Lines(User("u1", "", "hi")), 0o644)
	named := filepath.Join(root, "p", SessionID+".jsonl")
	os.Symlink(filepath.Join("..", "real", SessionID+".jsonl"), named)
	agent := func(id string) []byte {
		return Lines(`{"type":"user","uuid":"` + id + `1","parentUuid":null,"sessionId":"` + SessionID +
			`","isSidechain":true,"agentId":"` + id + `","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"sub"}}`)
	}
	os.WriteFile(filepath.Join(root, "p", SessionID, "notes.jsonl"), agent("n"), 0o644)
	os.Symlink(filepath.Join("..", "notes.jsonl"), filepath.Join(sub, "agent-n.jsonl"))
	os.WriteFile(filepath.Join(root, "outside", "agent.jsonl"), agent("o"), 0o644)
	os.Symlink(filepath.Join(root, "outside", "agent.jsonl"), filepath.Join(sub, "agent-o.jsonl"))

	out, err := exec.Command(bin, "check", "--format", "json", named).Output()
	if err != nil {
		t.Fatalf("ccdag check on a named link: %v\n%s", err, out)
	}
	var rep struct{ Summary struct{ Files int } }
	if err := json.Unmarshal(out, &rep); err != nil || rep.Summary.Files != 2 {
		t.Errorf("ccdag check: %d files (%v), want 2: the named log and agent-n linked inside the session\n%s", rep.Summary.Files, err, out)
	}
	out, err = exec.Command(bin, "graph", named).Output()
	if err != nil {
		t.Fatalf("ccdag graph on a named link: %v", err)
	}
	if !bytes.Contains(out, []byte(`"agent-n"`)) || bytes.Contains(out, []byte(`"agent-o"`)) {
		t.Errorf("ccdag graph: want lane agent-n and not agent-o (a link out of the folder)\n%.600s", out)
	}
}
