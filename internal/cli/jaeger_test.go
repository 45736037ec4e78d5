package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/otelmap"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// jaegerBinary finds Jaeger all-in-one: $CCDAG_JAEGER, else where .ci/install.d/10-bg-jaeger.sh
// builds it for the version tools/jaeger/go.mod pins.
func jaegerBinary(t *testing.T) string {
	if p := os.Getenv("CCDAG_JAEGER"); p != "" {
		return p
	}
	b, err := os.ReadFile("../../tools/jaeger/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	version := ""
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "github.com/jaegertracing/jaeger" {
			version = f[1]
		}
	}
	dir := os.Getenv("CCDAG_CI_DIR")
	if dir == "" {
		dir = "/opt/ccdag-ci"
	}
	p := filepath.Join(dir, "jaeger", version, "jaeger")
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("Jaeger all-in-one %s not found at %s (bash .ci/install.d/10-bg-jaeger.sh builds it): the corpus is not exported into the real engine", version, p)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// loopback returns addr when it is free on 127.0.0.1, else a free port there.
func loopback(t *testing.T, addr string) string {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		l, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
	}
	defer l.Close()
	return l.Addr().String()
}

// startJaeger runs Jaeger with tools/jaeger/config.yaml (env: more of its variables, K=V) and returns
// its OTLP and query addresses.
func startJaeger(t *testing.T, env ...string) (otlp, query string) {
	bin := jaegerBinary(t)
	otlp, query = loopback(t, "127.0.0.1:4318"), loopback(t, "127.0.0.1:16686")
	grpc := loopback(t, "127.0.0.1:16685")
	cfg, _ := filepath.Abs("../../tools/jaeger/config.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config", cfg)
	cmd.Env = append(os.Environ(), "CCDAG_JAEGER_OTLP="+otlp, "CCDAG_JAEGER_QUERY="+query, "CCDAG_JAEGER_QUERY_GRPC="+grpc)
	cmd.Env = append(cmd.Env, env...)
	logPath := filepath.Join(t.TempDir(), "jaeger.log")
	logf, _ := os.Create(logPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		logf.Close()
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get("http://" + query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", otlp); err == nil && resp.StatusCode == 200 {
				c.Close()
				return otlp, query
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("Jaeger did not answer on %s and %s within 90 s; its log:\n%s", query, otlp, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// jaegerSpan is a span as Jaeger's query API returns it (times in µs).
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	StartTime int64 `json:"startTime"`
	Duration  int64 `json:"duration"`
	Tags      []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tag(k string) string {
	for _, t := range s.Tags {
		if t.Key == k {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

func jaegerTrace(t *testing.T, query string, id otelmap.TraceID) []jaegerSpan {
	resp, err := http.Get("http://" + query + "/api/traces/" + id.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	var body struct {
		Data []struct {
			Spans []jaegerSpan `json:"spans"`
		} `json:"data"`
	}
	if err := json.NewDecoder(bufio.NewReader(resp.Body)).Decode(&body); err != nil {
		t.Fatalf("trace %s: %v", id, err)
	}
	var out []jaegerSpan
	for _, d := range body.Data {
		out = append(out, d.Spans...)
	}
	return out
}

// expected is what a session should look like in Jaeger, read from its logs (not from otelmap).
type expected struct {
	id       string
	calls    map[string][]time.Duration // tool_use id -> result time - call time of each call (-1: not known)
	agentOf  map[string]string          // sub-agent log's agent id -> the tool_use id that spawned it
	messages int                        // assistant messages (lines of one message merged) sent: none in flight
}

func expectSession(t *testing.T, s *session.Session) expected {
	e := expected{id: s.ID, calls: map[string][]time.Duration{}, agentOf: map[string]string{}}
	ts := func(r *session.Rec) (time.Time, bool) {
		tm, err := time.Parse(time.RFC3339Nano, r.Timestamp(r.LineBytes()))
		return tm, err == nil
	}
	timed := false
	for _, f := range s.Files {
		f.Recs(func(r *session.Rec) bool {
			if r.LineErr() == nil {
				_, ok := ts(r)
				timed = timed || ok
			}
			return !timed
		})
	}
	if !timed {
		return e // no timestamp: nothing to export
	}
	for _, f := range s.Files {
		tail := f.TurnTail()
		msgs := map[string]bool{} // message -> one of its calls is in flight (held back)
		single := 0
		f.Recs(func(r *session.Rec) bool {
			if r.LineErr() != nil || r.Type != "assistant" || r.Has(jsonl.FlagAPIError) {
				return true
			}
			inFlight := false
			for k := range r.D().Blocks {
				b := &r.D().Blocks[k]
				if b.Kind != jsonl.BlockToolUse {
					continue
				}
				res := s.Results(b.ID)
				switch {
				case len(res) > 0:
					d := time.Duration(-1)
					t0, ok0 := ts(r)
					t1, ok1 := ts(res[0].Rec)
					if ok0 && ok1 && len(res) == 1 && !t1.Before(t0) {
						d = t1.Sub(t0)
					}
					e.calls[b.ID] = append(e.calls[b.ID], d)
				case r.Line > tail: // in flight: held back by --state
					inFlight = true
				default:
					e.calls[b.ID] = append(e.calls[b.ID], -1)
				}
			}
			key := r.D().MessageID
			if key == "" {
				key = r.D().RequestID
			}
			if key == "" {
				if !inFlight {
					single++
				}
				return true
			}
			msgs[key] = msgs[key] || inFlight
			return true
		})
		e.messages += single
		for _, held := range msgs {
			if !held {
				e.messages++
			}
		}
		if f.Lane != "main" {
			if sp := s.AgentSpawn(f); sp.Call.Rec != nil {
				e.agentOf[f.AgentID] = sp.Call.ContentBlock().ID
			}
		}
	}
	return e
}

// TestJaeger exports the corpus into Jaeger and compares each trace Jaeger returns with its session.
func TestJaeger(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Jaeger export runs in the full test run")
	}
	files := testcorpus.Files(t, "the corpus exported into Jaeger and read back")
	// The corpus' sessions are over, but a fresh checkout gives their logs a fresh modification
	// time: a day later, no log is live and a last message without stop_reason is final (liveLog).
	defer func(old func() time.Time) { now = old }(now)
	now = func() time.Time { return time.Now().Add(24 * time.Hour) }
	otlp, query := startJaeger(t)
	state := filepath.Join(t.TempDir(), "state.json")
	root := testcorpus.Root()
	_, errs, code := run(t, "export", "--otlp", "http://"+otlp, "--state", state, root)
	if code != ExitOK {
		t.Fatalf("export: code %d: %s", code, errs)
	}
	time.Sleep(time.Second) // Jaeger's batch processor stores what it received within 200 ms
	var sessions []expected
	seen := map[string]bool{}
	for _, p := range files {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if seen[s.ID] {
			continue
		}
		seen[s.ID] = true
		sessions = append(sessions, expectSession(t, s))
	}
	total := 0
	for _, e := range sessions {
		var spans []jaegerSpan
		// Jaeger stores what it received a batch at a time: wait until every call has arrived.
		for range 100 {
			spans = jaegerTrace(t, query, otelmap.TraceOf(e.id))
			n, want := 0, 0
			for _, sp := range spans {
				if strings.HasPrefix(sp.OperationName, "execute_tool ") {
					n++
				}
			}
			for _, c := range e.calls {
				want += len(c)
			}
			if n >= want && (len(spans) > 0 || want == 0 && e.messages == 0) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		total += len(spans)
		compareTrace(t, e, spans)
	}
	if total == 0 {
		t.Fatal("Jaeger holds no span of the corpus")
	}
	// A second export with the state adds nothing.
	_, errs, code = run(t, "export", "--otlp", "http://"+otlp, "--state", state, root)
	if code != ExitOK || !strings.Contains(errs, " 0 spans sent") {
		t.Fatalf("second export: code %d: %s", code, errs)
	}
	time.Sleep(2 * time.Second) // Jaeger's batch processor flushes within 200 ms
	again := 0
	for _, e := range sessions {
		again += len(jaegerTrace(t, query, otelmap.TraceOf(e.id)))
	}
	if again != total {
		t.Errorf("after the second export Jaeger holds %d spans, before %d", again, total)
	}
	t.Logf("%d sessions, %d spans in Jaeger", len(sessions), total)
}

// TestJaegerUIAssets: the config serves the UI folder $CCDAG_JAEGER_UI names (scripts/jaeger-figure.sh
// points it at a jaeger-ui build; Jaeger built from its Go module has only a placeholder page).
func TestJaegerUIAssets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: Jaeger runs in the full test run")
	}
	ui := t.TempDir()
	const page = `<!doctype html><html><head><base href="/"><title>ccdag's jaeger-ui stand-in</title></head></html>`
	if err := os.WriteFile(filepath.Join(ui, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	_, query := startJaeger(t, "CCDAG_JAEGER_UI="+ui)
	for _, path := range []string{"/", "/trace/0123456789abcdef"} { // the UI's routes all serve index.html
		resp, err := http.Get("http://" + query + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "ccdag's jaeger-ui stand-in") {
			t.Errorf("GET %s: HTTP %d, not the UI folder's index.html:\n%.300s", path, resp.StatusCode, b)
		}
	}
}

func compareTrace(t *testing.T, e expected, spans []jaegerSpan) {
	t.Helper()
	byID := map[string]jaegerSpan{}
	for _, sp := range spans {
		if _, dup := byID[sp.SpanID]; dup {
			t.Errorf("%s: span %s twice", e.id, sp.SpanID)
		}
		byID[sp.SpanID] = sp
	}
	calls := map[string][]time.Duration{}
	chats := 0
	for _, sp := range spans {
		op, _, _ := strings.Cut(sp.OperationName, " ")
		switch op {
		case "execute_tool":
			id := sp.tag(otelmap.KeyToolCallID)
			calls[id] = append(calls[id], time.Duration(sp.Duration)*time.Microsecond)
		case "chat":
			chats++
		case "invoke_agent":
			agent := sp.tag(otelmap.KeyAgentID)
			call, ok := e.agentOf[agent]
			if agent == "" || !ok {
				continue
			}
			par, ok := byID[sp.parent()]
			if !ok || par.tag(otelmap.KeyToolCallID) != call {
				t.Errorf("%s: sub-agent %s is under %q (%s), not its call %s", e.id, agent, par.OperationName, par.tag(otelmap.KeyToolCallID), call)
			}
			if want := strings.TrimPrefix(par.OperationName, "execute_tool "); !session.IsAgentTool(want) {
				t.Errorf("%s: sub-agent %s under %s", e.id, agent, par.OperationName)
			}
		}
	}
	if chats != e.messages {
		t.Errorf("%s: %d chat spans in Jaeger, the logs hold %d assistant messages", e.id, chats, e.messages)
	}
	var missing []string
	n, m := 0, 0
	for id, want := range e.calls {
		got := calls[id]
		n += len(want)
		if len(got) != len(want) {
			missing = append(missing, fmt.Sprintf("%s (%d spans, %d calls)", id, len(got), len(want)))
			continue
		}
		if len(want) == 1 && want[0] >= 0 && got[0] != want[0].Truncate(time.Microsecond) {
			t.Errorf("%s: call %s lasts %v in Jaeger, %v in the log", e.id, id, got[0], want[0])
		}
	}
	for _, got := range calls {
		m += len(got)
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%s: calls whose execute_tool spans differ in Jaeger: %v", e.id, missing)
	}
	if m != n {
		t.Errorf("%s: %d execute_tool spans in Jaeger, the logs hold %d calls", e.id, m, n)
	}
}
