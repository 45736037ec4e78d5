package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimestampsOutsideAPlausibleRangeAreAbsent holds docs/spec.md §15: a record dated before 2000
// or after 2100 (past time.Time's UnixNano range, 1678 to 2262, an exported root span once ended
// before it started and a transcript lasted 2562047 h) is an invalid-field finding and is read as
// a record without a timestamp: export, transcript, graph and sessions give the times they give of
// the log with that timestamp removed.
func TestTimestampsOutsideAPlausibleRangeAreAbsent(t *testing.T) {
	const id = "5e550000-0000-4000-8000-000000000001"
	records := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + id + `"%s,"message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + id + `"%s,"message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"` + id + `"%s,"message":{"role":"user","content":"bye"}}`,
	}
	plausible := []string{"2025-08-12T13:11:40Z", "2025-08-12T13:11:41Z", "2025-08-12T13:11:45Z"}
	// write writes the log with record at's timestamp ts ("": none) in a folder of its own.
	write := func(at int, ts string) (dir, path string) {
		var b strings.Builder
		for i, r := range records {
			field := `,"timestamp":"` + plausible[i] + `"`
			if i == at {
				field = ""
				if ts != "" {
					field = `,"timestamp":"` + ts + `"`
				}
			}
			fmt.Fprintf(&b, r+"\n", field)
		}
		dir = t.TempDir()
		path = filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, path
	}
	// out runs a command and returns what it wrote with the log's folder named DIR.
	out := func(dir string, args ...string) string {
		t.Helper()
		stdout, errs, code := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return strings.ReplaceAll(stdout, dir, "DIR")
	}
	views := func(dir, path string) map[string]string {
		spans := filepath.Join(t.TempDir(), "spans.json")
		out(dir, "export", "--format", "otlp-json", "-o", spans, path)
		b, err := os.ReadFile(spans)
		if err != nil {
			t.Fatal(err)
		}
		// sessions and graph count the finding: only their times are compared.
		var sessions struct{ Sessions []struct{ Start, End string } }
		if err := json.Unmarshal([]byte(out(dir, "sessions", "--format", "json", dir)), &sessions); err != nil {
			t.Fatal(err)
		}
		var graph struct {
			Nodes []struct{ ID, Timestamp string }
		}
		if err := json.Unmarshal([]byte(out(dir, "graph", "--format", "json", path)), &graph); err != nil {
			t.Fatal(err)
		}
		return map[string]string{
			"export":     strings.ReplaceAll(string(b), dir, "DIR"),
			"transcript": out(dir, "transcript", path),
			"graph":      fmt.Sprint(graph.Nodes),
			"sessions":   fmt.Sprint(sessions.Sessions),
		}
	}
	for at, where := range map[int]string{1: "a middle record", 2: "the last record"} {
		want := views(write(at, ""))
		for _, ts := range []string{"1000-01-01T00:00:00Z", "1999-12-31T23:59:59Z", "2101-01-01T00:00:00Z", "2262-04-12T00:00:00Z", "9999-12-31T00:00:00Z"} {
			t.Run(where+" "+ts, func(t *testing.T) {
				dir, path := write(at, ts)
				for view, got := range views(dir, path) {
					if got != want[view] {
						t.Errorf("%s differs from the log without that timestamp:\n%s\nwant:\n%s", view, got, want[view])
					}
				}
				stdout, errs, _ := run(t, "check", "--format", "json", path)
				var res struct {
					Diagnostics []struct {
						Code string
						Line int
					}
				}
				if err := json.Unmarshal([]byte(stdout), &res); err != nil {
					t.Fatalf("%v: %s", err, errs)
				}
				if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "invalid-field" || res.Diagnostics[0].Line != at+1 {
					t.Errorf("check: %s, want one invalid-field on line %d", stdout, at+1)
				}
			})
		}
	}
}
