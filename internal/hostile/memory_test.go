package hostile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 14 item 3: memory is bounded by the file. Peak RSS of `ccdag check` and of `ccdag serve`
// (the file opened in it) stays within 10 × the file's size + 100 MB on tiny-record logs, which
// used to cost 2 GB ("1\n" × 1 M), 20 GB and growing ("1\n" × 10 M), 6.3 GB ("{}" × 10 M) and 1 GB
// (10 M blank lines).
func TestMemoryBoundedByTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: four logs of up to 30 MB, each checked and served")
	}
	// The peak RSS of a process Go starts is not its own: Linux keeps the high-water mark across
	// exec, so the test's own memory at fork time would count. /usr/bin/time forks the command
	// from itself (small) and reports its peak; the server's is read from /proc before it exits.
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("/usr/bin/time is not installed")
		}
		t.Skip("SKIP: /usr/bin/time is not installed")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	repeat := func(line string, n int) func() []byte {
		return func() []byte { return bytes.Repeat([]byte(line), n) }
	}
	inputs := []struct {
		name string
		text func() []byte
	}{
		{"ones-1M", repeat("1\n", 1_000_000)},
		{"ones-10M", repeat("1\n", 10_000_000)},
		{"objects-10M", repeat("{}\n", 10_000_000)},
		{"blank-10M", repeat("\n", 10_000_000)},
		// One record, then ten million lines that are not: each would be a finding.
		{"record-then-ones-10M", func() []byte {
			return append([]byte(`{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"hi"}}`+"\n"), bytes.Repeat([]byte("1\n"), 10_000_000)...)
		}},
		// Tiny records that link: each is a node of the DAG and must be indexed.
		{"progress-chain-1M", func() []byte { return chain(1_000_000, false) }},
		// Tiny records that are each a finding (missing-uuid): the editor gets a thousand, `ccdag
		// check` lists them all without holding them.
		{"missing-uuid-1M", repeat(`{"type":"user"}`+"\n", 1_000_000)},
		// Tiny lines that each set a field of a record's Detail (~400 B where the line is 16):
		// the session drops such a Detail and parses the line again when it is read.
		{"one-detail-field-1M", func() []byte {
			var b bytes.Buffer
			for i := range 1_000_000 {
				fmt.Fprintf(&b, `{"subtype":"%x"}`+"\n", i) // unique: no two lines share a string
			}
			return b.Bytes()
		}},
		{"bare-chain-1M", func() []byte {
			var b bytes.Buffer
			b.WriteString(`{"uuid":"0","parentUuid":null}` + "\n")
			for i := 1; i < 1_000_000; i++ {
				fmt.Fprintf(&b, `{"uuid":"%x","parentUuid":"%x"}`+"\n", i, i-1)
			}
			return b.Bytes()
		}},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) { // one input alone: -run TestMemoryBoundedByTheFile/missing-uuid-1M
			path := filepath.Join(dir, in.name+".jsonl")
			text := in.text()
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			limit := int64(10*len(text)) + 100<<20
			// Each output format: SARIF once held every finding until it was written (1.5 GB for
			// missing-uuid-1M).
			for _, format := range []string{"text", "sarif"} {
				cmd := exec.Command(gnuTime, "-f", "%M", bin, "check", "--fail-on", "never", "--format", format, path)
				var stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = nil, &stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					t.Fatalf("check --format %s %s: %v %s", format, in.name, err, stderr.Bytes())
				}
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
				if err != nil {
					t.Fatalf("/usr/bin/time said %q", stderr.String())
				}
				rss := kb << 10
				t.Logf("check --format %s %s (%d MB): %v, peak RSS %d MB (limit %d MB)", format, in.name, len(text)>>20, time.Since(start).Round(time.Millisecond), rss>>20, limit>>20)
				if rss > limit {
					t.Errorf("check --format %s %s: peak RSS %d MB, over 10 × %d MB + 100 MB", format, in.name, rss>>20, len(text)>>20)
				}
			}
			rss, took := servePeak(t, bin, path, text)
			t.Logf("serve %s: diagnostics after %v, peak RSS %d MB", in.name, took.Round(time.Millisecond), rss>>20)
			// The server also holds the didOpen message (the text as a JSON string) while it reads it.
			if limit += int64(len(text)) + 16<<20; rss > limit {
				t.Errorf("serve %s: peak RSS %d MB, over %d MB", in.name, rss>>20, limit>>20)
			}
		})
	}
}

// servePeak opens text in `ccdag serve`, waits for its diagnostics, ends the server and returns its
// peak RSS and how long the diagnostics took.
func servePeak(t *testing.T, bin, path string, text []byte) (int64, time.Duration) {
	t.Helper()
	p := startServe(t, bin)
	uri := "file://" + path
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.reply(1, 10*time.Second)
	start := time.Now()
	p.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":` + Q(uri) + `,"languageId":"jsonl","version":1,"text":` + Q(string(text)) + `}}}`)
	// A guard against a hang, not a measure: at load 50 on 2 cores (seven test sessions on one
	// machine) the 59 MB chain's diagnostics took over 60 s (issue 20).
	deadline := time.After(5 * time.Minute)
	for done := false; !done; {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				t.Fatal("the server ended")
			}
			done = strings.Contains(string(m), "publishDiagnostics")
		case <-deadline:
			t.Fatal("no diagnostics after 5 min")
		}
	}
	took := time.Since(start)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var kb int64
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ = strconv.ParseInt(strings.Fields(l)[1], 10, 64)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`)
	p.in.Close()
	p.cmd.Wait()
	return kb << 10, took
}
