package hostile

// What the binary does to the system, watched with strace: `ccdag check`, `ccdag graph` and
// `ccdag serve` (driven over stdin) on a hostile session folder read only the session's own files
// (no path taken from a log's content, no symbolic link out of the folder), write nothing but
// standard output, run no program, and open no socket.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// buildBinary builds cmd/ccdag into a temporary folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ccdag")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/ccdag/ccdag/cmd/ccdag")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// hostileFolder lays out a session whose logs name paths outside it and whose folder holds links
// out of it. It returns the main log, the session's folder, and the outside folder.
func hostileFolder(t *testing.T) (main, dir, outside string) {
	t.Helper()
	root := t.TempDir()
	outside = filepath.Join(root, "outside")
	dir = filepath.Join(root, "projects", "p")
	sub := filepath.Join(dir, SessionID, "subagents")
	os.MkdirAll(outside, 0o755)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(outside, "agent-secret.jsonl"), Lines(User("secret", "", "s")), 0o644)
	os.WriteFile(filepath.Join(outside, SessionID+".jsonl"), Lines(User("secret2", "", "s")), 0o644)
	os.Symlink(filepath.Join(outside, "agent-secret.jsonl"), filepath.Join(sub, "agent-evil.jsonl"))
	os.Symlink(outside, filepath.Join(sub, "linked-folder"))
	os.Symlink(filepath.Join(outside, "agent-secret.jsonl"), filepath.Join(dir, "agent-flat.jsonl"))
	agent, _ := Turns("ag", "", 2, 0)
	os.WriteFile(filepath.Join(sub, "agent-a1.jsonl"), agent, 0o644)
	os.WriteFile(filepath.Join(sub, "agent-a1.meta.json"), []byte(`{"agentType":"Explore"}`), 0o644)
	log, last := Turns("m", "", 3, 0)
	evil := Lines(
		ToolUse("t1", last, "mt", "toolu_t", "Read", `{"file_path":`+Q(filepath.Join(outside, "agent-secret.jsonl"))+`,"path":"/etc/passwd"}`),
		ToolResult("t2", "t1", "toolu_t", "see /etc/shadow and ../../outside", "../../../outside/secret"),
		`{"type":"user","uuid":"t3","parentUuid":"t2","sessionId":"../../outside/`+SessionID+`","agentId":"/etc/passwd","cwd":`+Q(outside)+`,"message":{"content":"file:///etc/passwd"}}`,
	)
	main = filepath.Join(dir, SessionID+".jsonl")
	os.WriteFile(main, append(log, evil...), 0o644)
	// The loader's version look-up reads the ends of the other projects' main logs (docs/spec.md
	// §13): a project folder that is a link out, and a log that is one, must not be read.
	other := filepath.Join(root, "projects", "q")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "33333333-3333-4333-8333-333333333333.jsonl"), Lines(User("q1", "", "q")), 0o644)
	os.Symlink(filepath.Join(outside, SessionID+".jsonl"), filepath.Join(other, "evil-link.jsonl"))
	os.Symlink(outside, filepath.Join(root, "projects", "evil-project"))
	return main, dir, outside
}

// trace runs the binary under strace and returns its file, network and process system calls.
func trace(t *testing.T, stdin string, bin string, args ...string) []string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "strace.out")
	cmd := exec.Command("strace", append([]string{"-f", "-qq", "-e", "trace=%file,%network,%process,%desc", "-e", "signal=none", "-o", out, bin}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	res, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("strace: %v\n%s", err, res)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		calls = append(calls, sc.Text())
	}
	return calls
}

var (
	openRe   = regexp.MustCompile(`\b(open|openat|openat2|creat)\((?:AT_FDCWD|\d+), "([^"]*)", ([A-Z_|]+)`)
	netRe    = regexp.MustCompile(`\b(socket|connect|bind|listen|accept4?|sendto|sendmsg|recvfrom|socketpair)\(`)
	execRe   = regexp.MustCompile(`\b(execve|execveat|fork|vfork)\(`)
	writeRe  = regexp.MustCompile(`\b(unlink|unlinkat|rename|renameat2?|mkdir|mkdirat|rmdir|symlink|symlinkat|link|linkat|chmod|fchmodat|chown|fchownat|truncate|utimensat)\(`)
	allowSys = []string{"/proc/", "/sys/", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null", "/etc/ld.so", "/lib", "/usr/lib"}
)

// judge checks the calls: reads only under dir (or the runtime's own system files), no write
// opens, no changes to the file system, one execve (the binary itself), no sockets.
func judge(t *testing.T, what string, calls []string, bin, dir, outside string) {
	t.Helper()
	execs, reads := 0, 0
	for _, c := range calls {
		if m := execRe.FindStringSubmatch(c); m != nil {
			execs++
			if m[1] != "execve" || !strings.Contains(c, bin) || execs > 1 {
				t.Errorf("%s runs a program: %s", what, c)
			}
		}
		if netRe.MatchString(c) {
			t.Errorf("%s uses the network: %s", what, c)
		}
		if writeRe.MatchString(c) {
			t.Errorf("%s changes the file system: %s", what, c)
		}
		if m := openRe.FindStringSubmatch(c); m != nil {
			if strings.Contains(m[3], "O_WRONLY") || strings.Contains(m[3], "O_RDWR") || strings.Contains(m[3], "O_CREAT") || strings.Contains(m[3], "O_TRUNC") {
				t.Errorf("%s opens a file for writing: %s", what, c)
			}
		}
		// Opening is what reads a file or lists a folder; looking at metadata (stat, readlink) is how
		// a link out of the folder is recognised and refused, and reads no content.
		if m := openRe.FindStringSubmatch(c); m != nil {
			p := m[2]
			if !filepath.IsAbs(p) || p == bin {
				continue
			}
			reads++
			switch {
			case strings.HasPrefix(p, outside) || strings.Contains(p, "passwd") || strings.Contains(p, "shadow"):
				t.Errorf("%s touches a path outside the session (from the log's content, or through a link): %s", what, c)
			case strings.Contains(p, "evil-link") || strings.Contains(p, "evil-project"):
				t.Errorf("%s follows a link out of the projects folder: %s", what, c)
			case strings.HasPrefix(p, dir+"/") || p == dir:
			case p == filepath.Dir(dir) || strings.HasPrefix(p, filepath.Dir(dir)+"/") && strings.HasSuffix(p, ".jsonl"):
				// The config folder's projects: listed, and the ends of its main logs read for the
				// newest Claude Code version (the loader a resume assumes, docs/spec.md §13).
			case strings.HasPrefix(p, filepath.Dir(dir)+"/") && !strings.Contains(p[len(filepath.Dir(dir))+1:], "/"):
				// a project folder of it, listed
			default:
				ok := false
				for _, a := range allowSys {
					ok = ok || strings.HasPrefix(p, a)
				}
				if !ok {
					t.Errorf("%s touches a path that is not the session's: %s", what, c)
				}
			}
		}
	}
	if reads == 0 {
		t.Errorf("%s: no file opened in %d traced calls: is strace working?", what, len(calls))
	}
	t.Logf("%s: %d system calls traced, %d files or folders opened", what, len(calls), reads)
}

func lspFrames(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

func TestSystemCallsOfTheBinary(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is not installed (.ci/install.d/50-strace.sh installs it)")
		}
		t.Skip("SKIP: strace is not installed")
	}
	if out, err := exec.Command("strace", "-qq", "-o", "/dev/null", "true").CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("strace does not work here: %v %s", err, out)
		}
		t.Skipf("SKIP: strace does not work here (no ptrace?): %v %s", err, out)
	}
	bin := buildBinary(t)
	main, dir, outside := hostileFolder(t)
	judge(t, "ccdag check", trace(t, "", bin, "check", "--format", "json", "--fail-on", "never", main), bin, dir, outside)
	judge(t, "ccdag check DIR", trace(t, "", bin, "check", "--fail-on", "never", dir), bin, dir, outside)
	judge(t, "ccdag graph", trace(t, "", bin, "graph", "--format", "html", main), bin, dir, outside)

	text, _ := os.ReadFile(main)
	uri := "file://" + main
	td := `{"textDocument":{"uri":` + Q(uri) + `},"position":{"line":%d,"character":%d}}`
	session := lspFrames(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":`+Q(uri)+`,"languageId":"jsonl","version":1,"text":`+Q(string(text))+`}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":`+fmt.Sprintf(td, 12, 30)+`}`,
		`{"jsonrpc":"2.0","id":3,"method":"textDocument/definition","params":`+fmt.Sprintf(td, 13, 20)+`}`,
		`{"jsonrpc":"2.0","id":4,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":`+Q(uri)+`}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":`+Q(uri)+`}}}`,
		`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"file:///etc/passwd","type":2},{"uri":`+Q("file://"+outside+"/agent-secret.jsonl")+`,"type":1}]}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":`+Q(uri)+`}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	)
	judge(t, "ccdag serve", trace(t, session, bin, "serve"), bin, dir, outside)
}
