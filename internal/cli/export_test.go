package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/otelexport"
	"github.com/ccdag/ccdag/internal/otelmap"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

const exportDemo = "testdata/sessions/demo" // run() works from the repository root

// collector is a fake OTLP/HTTP endpoint: it decodes each request and answers status.
type collector struct {
	mu       sync.Mutex
	status   int
	delay    time.Duration
	accept   int // >0: requests after this many answer 500
	requests int
	spans    map[string]int // span id (hex) -> times received
	names    map[string]string
	outputs  map[string]int64 // span id -> gen_ai.usage.output_tokens
}

func newCollector(t *testing.T, tlsServer bool) (*collector, *httptest.Server) {
	c := &collector{status: http.StatusOK, spans: map[string]int{}, names: map[string]string{}, outputs: map[string]int64{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		if c.delay > 0 {
			d := c.delay
			c.mu.Unlock()
			time.Sleep(d)
			c.mu.Lock()
		}
		defer c.mu.Unlock()
		c.requests++
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad path or type", http.StatusNotFound)
			return
		}
		if c.status != http.StatusOK {
			http.Error(w, "refused", c.status)
			return
		}
		if c.accept > 0 && c.requests > c.accept {
			http.Error(w, "refused", http.StatusInternalServerError)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					id := otelmap.SpanID(sp.SpanId).String()
					c.spans[id]++
					c.names[id] = sp.Name
					for _, a := range sp.Attributes {
						if a.Key == otelmap.KeyOutputTokens {
							c.outputs[id] = a.Value.GetIntValue()
						}
					}
				}
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(b)
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused certificate's handshake errors
	if tlsServer {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return c, srv
}

func (c *collector) received() (distinct, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.spans {
		total += n
	}
	return len(c.spans), total
}

func demoSpans(t *testing.T, dir string) []otelmap.Span {
	t.Helper()
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("../..", dir)
	}
	s, err := layout.Load(filepath.Join(dir, "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return otelmap.Session(s, otelmap.Options{})
}

// The attribute keys otelmap writes are those of the semconv version it names.
func TestExportSemconvPinned(t *testing.T) {
	if semconv.SchemaURL != otelmap.SchemaURL {
		t.Errorf("schema %s, semconv package %s", otelmap.SchemaURL, semconv.SchemaURL)
	}
	for k, want := range map[string]string{
		otelmap.KeyOperation: string(semconv.GenAIOperationNameKey), otelmap.KeyProvider: string(semconv.GenAIProviderNameKey),
		otelmap.KeyConversation: string(semconv.GenAIConversationIDKey), otelmap.KeyAgentName: string(semconv.GenAIAgentNameKey),
		otelmap.KeyAgentID: string(semconv.GenAIAgentIDKey), otelmap.KeyAgentDesc: string(semconv.GenAIAgentDescriptionKey),
		otelmap.KeyRequestModel: string(semconv.GenAIRequestModelKey), otelmap.KeyResponseModel: string(semconv.GenAIResponseModelKey),
		otelmap.KeyResponseID: string(semconv.GenAIResponseIDKey), otelmap.KeyInputTokens: string(semconv.GenAIUsageInputTokensKey),
		otelmap.KeyOutputTokens: string(semconv.GenAIUsageOutputTokensKey), otelmap.KeyCacheRead: string(semconv.GenAIUsageCacheReadInputTokensKey),
		otelmap.KeyCacheCreation: string(semconv.GenAIUsageCacheCreationInputTokensKey), otelmap.KeyToolName: string(semconv.GenAIToolNameKey),
		otelmap.KeyToolCallID: string(semconv.GenAIToolCallIDKey), otelmap.KeyToolType: string(semconv.GenAIToolTypeKey),
		otelmap.KeyErrorType: string(semconv.ErrorTypeKey),
	} {
		if k != want {
			t.Errorf("key %s, semconv %s", k, want)
		}
	}
}

func TestExportNeedsADestination(t *testing.T) {
	_, errs, code := run(t, "export", exportDemo)
	if code != ExitUsage || !strings.Contains(errs, "nothing to do") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
	_, errs, code = run(t, "export", "--otlp", "ftp://x", exportDemo)
	if code != ExitUsage || !strings.Contains(errs, "want an http") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}

// TestExportJSON: OTLP JSON lines holding every span of the mapping, ids in hex, the schema URL.
func TestExportJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	_, errs, code := run(t, "export", "--format", "otlp-json", "-o", out, "--batch", "5", exportDemo)
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, errs)
	}
	if !strings.HasPrefix(errs, "ccdag: 1 session: ") { // one log, one session (not "1 sessions")
		t.Errorf("summary %q", errs)
	}
	want := map[string]string{}
	for _, sp := range demoSpans(t, exportDemo) {
		want[sp.ID.String()] = sp.Parent.String()
	}
	f, _ := os.Open(out)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	lines, got := 0, map[string]string{}
	for sc.Scan() {
		lines++
		var req struct {
			ResourceSpans []struct {
				SchemaURL  string `json:"schemaUrl"`
				ScopeSpans []struct {
					Spans []struct {
						TraceID, SpanID, ParentSpanID string
						Name                          string
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			if rs.SchemaURL != otelmap.SchemaURL {
				t.Errorf("schemaUrl %q", rs.SchemaURL)
			}
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					par := sp.ParentSpanID
					if par == "" {
						par = otelmap.SpanID{}.String()
					}
					got[sp.SpanID] = par
				}
			}
		}
	}
	if lines != (len(want)+4)/5 {
		t.Errorf("%d lines for %d spans in batches of 5", lines, len(want))
	}
	if len(got) != len(want) {
		t.Errorf("%d spans written, the mapping has %d", len(got), len(want))
	}
	for id, p := range want {
		if got[id] != p {
			t.Errorf("span %s: parent %q, want %q", id, got[id], p)
		}
	}
}

// TestExportState: the first export sends every final span; a second sends nothing; a log that
// grew sends only its new spans, and spans held back while in flight once they are final; nothing
// is sent twice.
func TestExportState(t *testing.T) {
	dir := copyDemo(t)
	c, srv := newCollector(t, false)
	state := filepath.Join(t.TempDir(), "state.json")
	want := map[string]bool{}
	export := func(step string, pending int) {
		t.Helper()
		_, errs, code := run(t, "export", "--otlp", srv.URL, "--state", state, dir)
		if code != ExitOK {
			t.Fatalf("%s: code %d: %s", step, code, errs)
		}
		held := 0
		for _, sp := range demoSpans(t, dir) {
			if sp.Pending {
				held++
			} else {
				want[sp.ID.String()] = true
			}
		}
		if held != pending {
			t.Fatalf("%s: %d spans pending, want %d", step, held, pending)
		}
		d, n := c.received()
		if d != len(want) || n != d {
			t.Fatalf("%s: received %d spans (%d distinct), want %d once each: %s", step, n, d, len(want), errs)
		}
		for id := range want {
			if c.spans[id] != 1 {
				t.Errorf("%s: span %s received %d times", step, id, c.spans[id])
			}
		}
	}
	export("first", 3) // the demo ends with a call in flight: it, its message and the root wait
	export("again", 3)
	// The log grows: a prompt (the call in flight is now one the conversation went past), an
	// answer with a call.
	main := filepath.Join(dir, "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl")
	last := lastUUID(t, main)
	appendLines(t, main,
		`{"parentUuid":"`+last+`","sessionId":"3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a","type":"user","message":{"role":"user","content":"and the tests?"},"uuid":"b0000000-0000-4000-8000-000000000001","timestamp":"2026-03-04T10:00:00.000Z"}`,
		`{"parentUuid":"b0000000-0000-4000-8000-000000000001","sessionId":"3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a","type":"assistant","message":{"model":"claude-opus-4-5-20251101","id":"msg_new","role":"assistant","content":[{"type":"tool_use","id":"toolu_new","name":"Bash","input":{"command":"npm test"}}],"usage":{"input_tokens":1,"output_tokens":2}},"uuid":"b0000000-0000-4000-8000-000000000002","timestamp":"2026-03-04T10:00:05.000Z"}`)
	export("grown", 3)
	appendLines(t, main,
		`{"parentUuid":"b0000000-0000-4000-8000-000000000002","sessionId":"3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_new","content":"ok"}]},"uuid":"b0000000-0000-4000-8000-000000000003","timestamp":"2026-03-04T10:00:09.000Z"}`)
	export("answered", 0)
	if d, _ := c.received(); d != len(demoSpans(t, dir)) {
		t.Errorf("%d spans received, the grown session maps to %d", d, len(demoSpans(t, dir)))
	}
}

// TestExportRefused: 4xx, 5xx, a refused certificate and nobody listening: an error per batch,
// exit 1, and the state records nothing.
func TestExportRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		tls    bool
		down   bool
		want   string
		slow   bool
	}{
		{"slow", http.StatusOK, false, false, "timed out: no answer within --timeout 200ms", true},
		{"400", http.StatusBadRequest, false, false, "400", false},
		{"503", http.StatusServiceUnavailable, false, false, "503", false},
		{"tls", http.StatusOK, true, false, "certificate", false},
		{"down", http.StatusOK, false, true, "refused", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := newCollector(t, tc.tls)
			c.status = tc.status
			args := []string{"--retry", "300ms"}
			if tc.slow {
				c.delay = 2 * time.Second
				args = []string{"--retry", "1s", "--timeout", "200ms"}
			}
			url := srv.URL
			if tc.down {
				srv.Close()
			}
			state := filepath.Join(t.TempDir(), "state.json")
			_, errs, code := run(t, append([]string{"export", "--otlp", url, "--state", state, "--batch", "4", exportDemo}, args...)...)
			if code != ExitFindings || !strings.Contains(errs, "not accepted") || !strings.Contains(errs, tc.want) {
				t.Errorf("code %d, stderr:\n%s", code, errs)
			}
			if !tc.slow && strings.Contains(errs, "timed out") {
				t.Errorf("a refusal called a time-out:\n%s", errs)
			}
			if strings.Count(errs, "not accepted (") != 3 || !strings.Contains(errs, "gave up") {
				t.Errorf("want an error for each of 3 batches, then giving up (%d):\n%q", strings.Count(errs, "not accepted ("), errs)
			}
			st, err := os.ReadFile(state)
			if err != nil || strings.Contains(string(st), "3f1c2a9e") {
				t.Errorf("state records what was not accepted: %s %v", st, err)
			}
		})
	}
}

// TestExportPartial: the state holds the batches accepted before the endpoint failed, and the next
// export sends the rest.
func TestExportPartial(t *testing.T) {
	c, srv := newCollector(t, false)
	c.accept = 2
	state := filepath.Join(t.TempDir(), "state.json")
	_, errs, code := run(t, "export", "--otlp", srv.URL, "--state", state, "--batch", "4", "--retry", "1ms", exportDemo)
	if d, _ := c.received(); code != ExitFindings || d != 8 {
		t.Fatalf("code %d, %d spans accepted, want 8: %s", code, d, errs)
	}
	c.accept = 0
	_, errs, code = run(t, "export", "--otlp", srv.URL, "--state", state, exportDemo)
	d, n := c.received()
	if code != ExitOK || d != n || d != 19 {
		t.Fatalf("code %d, %d spans (%d distinct), want the demo's 19 final spans once: %s", code, n, d, errs)
	}
}

// TestExportBadState: a corrupt state file or one of another version stops the export (nothing
// sent) unless --reset-state.
func TestExportBadState(t *testing.T) {
	c, srv := newCollector(t, false)
	for _, body := range []string{"{not json", `{"format":"ccdag-otel-state","version":99,"semconv":"1.41.0","sessions":{}}`} {
		state := filepath.Join(t.TempDir(), "state.json")
		os.WriteFile(state, []byte(body), 0o644)
		_, errs, code := run(t, "export", "--otlp", srv.URL, "--state", state, exportDemo)
		if _, n := c.received(); code != ExitUsage || n != 0 || !strings.Contains(errs, "--reset-state") {
			t.Fatalf("code %d, %d spans sent: %s", code, n, errs)
		}
		_, errs, code = run(t, "export", "--otlp", srv.URL, "--state", state, "--reset-state", exportDemo)
		if _, n := c.received(); code != ExitOK || n == 0 {
			t.Fatalf("--reset-state: code %d, %d spans: %s", code, n, errs)
		}
		c.spans = map[string]int{}
	}
}

// TestExportRedacts: every string goes through the redactor unless --no-redact.
func TestExportRedacts(t *testing.T) {
	old := Redactor
	defer func() { Redactor = old }()
	Redactor = func(s string) string { return strings.ReplaceAll(s, "claude-opus-4-5-20251101", "[REDACTED]") }
	out := filepath.Join(t.TempDir(), "out.json")
	run(t, "export", "--format", "otlp-json", "-o", out, exportDemo)
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), "claude-opus-4-5-20251101") || !strings.Contains(string(b), "[REDACTED]") {
		t.Error("not redacted")
	}
	run(t, "export", "--format", "otlp-json", "-o", out, "--no-redact", exportDemo)
	b, _ = os.ReadFile(out)
	if !strings.Contains(string(b), "claude-opus-4-5-20251101") {
		t.Error("--no-redact redacted")
	}
}

// TestExportRedactsSecrets: the real redactor masks a token in a failed tool result's text.
func TestExportRedactsSecrets(t *testing.T) {
	dir := copyDemo(t)
	main := filepath.Join(dir, "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl")
	token := "ghp_" + "R7x2Kq9LmZ4vT1bN8cW3yH6pD0sF5gJ2aE7u"
	last := lastUUID(t, main)
	appendLines(t, main,
		`{"parentUuid":"`+last+`","sessionId":"3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a","type":"assistant","message":{"model":"m","id":"msg_s","role":"assistant","content":[{"type":"tool_use","id":"toolu_s","name":"Bash","input":{"command":"gh auth status"}}]},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-03-04T10:00:05.000Z"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000001","sessionId":"3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":"bad credentials: GITHUB_TOKEN=`+token+`","is_error":true}]},"uuid":"c0000000-0000-4000-8000-000000000002","timestamp":"2026-03-04T10:00:09.000Z"}`)
	out := filepath.Join(t.TempDir(), "out.json")
	if _, errs, code := run(t, "export", "--format", "otlp-json", "-o", out, dir); code != ExitOK {
		t.Fatalf("code %d: %s", code, errs)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), token) || !strings.Contains(string(b), "[REDACTED:") {
		t.Errorf("the token is not redacted")
	}
	run(t, "export", "--format", "otlp-json", "-o", out, "--no-redact", dir)
	b, _ = os.ReadFile(out)
	if !strings.Contains(string(b), token) {
		t.Errorf("--no-redact: the token is not there")
	}
}

func copyDemo(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("../..", exportDemo)
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func lastUUID(t *testing.T, path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var r struct{ UUID string }
	json.Unmarshal([]byte(lines[len(lines)-1]), &r)
	if r.UUID == "" {
		t.Fatal("no uuid on the last line")
	}
	return r.UUID
}

func appendLines(t *testing.T, path string, lines ...string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		f.WriteString(l + "\n")
	}
}

// TestExportFollowsNoRedirect: an endpoint answering 307 or 302 is a refusal named as a redirect.
// The host it points to receives nothing (not the spans, not the --header API key), the export
// stops, and --state records nothing (docs/spec.md §15).
func TestExportFollowsNoRedirect(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusFound, http.StatusPermanentRedirect, http.StatusMovedPermanently} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var mu sync.Mutex
			var got []string // what B received: method, path and the API key header
			b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = append(got, r.Method+" "+r.URL.Path+" key="+r.Header.Get("X-Api-Key"))
				mu.Unlock()
				w.WriteHeader(http.StatusOK) // anything counts as accepted here
			}))
			defer b.Close()
			a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				http.Redirect(w, r, b.URL+"/v1/traces", status)
			}))
			defer a.Close()
			state := filepath.Join(t.TempDir(), "state.json")
			_, errs, code := run(t, "export", "--otlp", a.URL, "--header", "X-Api-Key=k-not-for-b", "--state", state,
				"--batch", "4", "--retry", "1ms", exportDemo)
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 0 {
				t.Errorf("the redirect was followed: B received %q", got)
			}
			if code != ExitFindings || !strings.Contains(errs, "redirect (to "+b.URL+"/v1/traces)") || !strings.Contains(errs, strconv.Itoa(status)) {
				t.Errorf("code %d, want %d naming the redirect and its status; stderr:\n%s", code, ExitFindings, errs)
			}
			if n := strings.Count(errs, "not accepted ("); n != 1 {
				t.Errorf("%d batches refused, want the export to stop at the first:\n%s", n, errs)
			}
			if st, err := os.ReadFile(state); err != nil || strings.Contains(string(st), "3f1c2a9e") {
				t.Errorf("state records spans that were redirected: %s %v", st, err)
			}
		})
	}
}

// TestExportStateNotWritable: a --state in a missing or read-only folder stops the export before
// anything is sent (found out after the run, every run would send the whole history again).
func TestExportStateNotWritable(t *testing.T) {
	c, srv := newCollector(t, false)
	missing := filepath.Join(t.TempDir(), "no-such-folder", "state.json")
	ro := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	cases := map[string]string{"missing folder": missing}
	if f, err := os.CreateTemp(ro, "probe"); err == nil { // root writes anyway
		f.Close()
		os.Remove(f.Name())
	} else {
		cases["read-only folder"] = filepath.Join(ro, "state.json")
	}
	for name, state := range cases {
		_, errs, code := run(t, "export", "--otlp", srv.URL, "--state", state, exportDemo)
		if _, n := c.received(); n != 0 || code != ExitUsage || !strings.Contains(errs, "cannot be written") || !strings.Contains(errs, "nothing sent") {
			t.Errorf("%s: code %d, %d spans sent; stderr:\n%s", name, code, n, errs)
		}
	}
}

// TestExportStateTooLargeIsRefused: a --state past otelexport.MaxStateBytes (here a sparse file,
// costing no disk) is refused before anything is sent, never read into memory whole; --reset-state
// starts over without reading it.
func TestExportStateTooLargeIsRefused(t *testing.T) {
	c, srv := newCollector(t, false)
	state := filepath.Join(t.TempDir(), "state.json")
	f, err := os.Create(state)
	if err == nil {
		err = errors.Join(f.Truncate(otelexport.MaxStateBytes+1), f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	_, errs, code := run(t, "export", "--otlp", srv.URL, "--state", state, exportDemo)
	if _, n := c.received(); n != 0 || code != ExitUsage || !strings.Contains(errs, "more than the 256 MiB a state may hold") || !strings.Contains(errs, "nothing sent") {
		t.Errorf("code %d, %d spans sent; stderr:\n%s", code, n, errs)
	}
	if _, errs, code := run(t, "export", "--otlp", srv.URL, "--state", state, "--reset-state", exportDemo); code != ExitOK {
		t.Errorf("--reset-state: code %d: %s", code, errs)
	}
}

// exportedSpans writes path as OTLP JSON and returns each trace's span ids.
func exportedSpans(t *testing.T, path string) map[string]map[string]bool {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	if _, errs, code := run(t, "export", "--format", "otlp-json", "-o", out, path); code != ExitOK {
		t.Fatalf("export %s: code %d: %s", path, code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	traces := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct{ TraceID, SpanID string }
				}
			}
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					if traces[sp.TraceID] == nil {
						traces[sp.TraceID] = map[string]bool{}
					}
					traces[sp.TraceID][sp.SpanID] = true
				}
			}
		}
	}
	return traces
}

// TestExportFileIsWholeSession: `export FILE` of a main log sends its whole session (sub-agent logs
// in both layouts), the same spans as `export DIR` sends for it (docs/spec.md §15).
func TestExportFileIsWholeSession(t *testing.T) {
	for _, tc := range []struct{ dir, main string }{
		{"testdata/sessions/demo", "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a.jsonl"},
		{"testdata/sessions/flat", "7a2b3c4d-1111-4222-8333-444455556666.jsonl"},
		{testcorpus.Path(t, "Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo",
			"that export FILE of a genuine session with subagents/ sends its sub-agents"), "87bcc603-30fb-432c-beb2-9c774a335172.jsonl"},
		{testcorpus.Path(t, "CH-chuan__CommuGraph/public/samples/claudecode",
			"that export FILE of a genuine session with flat agent files sends its sub-agents"), "ab51623b-c26d-45f5-b98e-f9d0cfa17018.jsonl"},
	} {
		whole := exportedSpans(t, tc.dir)
		file := exportedSpans(t, filepath.Join(tc.dir, tc.main))
		if len(file) != 1 {
			t.Fatalf("%s: %d traces, want its session's", tc.main, len(file))
		}
		for trace, ids := range file {
			if want := whole[trace]; len(ids) != len(want) {
				t.Errorf("%s: export FILE sent %d spans, export DIR %d for the same session", tc.main, len(ids), len(want))
			}
			for id := range whole[trace] {
				if !ids[id] {
					t.Errorf("%s: span %s of export DIR missing from export FILE", tc.main, id)
					break
				}
			}
		}
	}
}

// TestExportHoldsAStreamingMessage: with --state, a message at the end of a live log whose last
// line has no stop_reason is still streaming: it and the root are held back, and sent once its
// final line (stop_reason, the real output count) is logged. At the end of a log no longer
// written, such a message is final as logged (docs/spec.md §15).
func TestExportHoldsAStreamingMessage(t *testing.T) {
	const sid = "3f1c2a9e-7d4b-4d2b-9a51-6f0e7c8b1d2a"
	line := func(uuid, parent, typ, message string) string {
		return `{"parentUuid":"` + parent + `","sessionId":"` + sid + `","type":"` + typ + `","message":` + message +
			`,"uuid":"` + uuid + `","timestamp":"2026-03-04T10:00:0` + uuid[len(uuid)-1:] + `.000Z"}`
	}
	reply := func(stop string, output int) string {
		return `{"model":"claude-opus-4-5-20251101","id":"msg_stream","role":"assistant","content":[{"type":"text","text":"All green."}],"stop_reason":` +
			stop + `,"usage":{"input_tokens":3,"output_tokens":` + strconv.Itoa(output) + `}}`
	}
	setup := func(t *testing.T) (dir, main string, chat, root string) {
		dir = copyDemo(t)
		main = filepath.Join(dir, sid+".jsonl")
		appendLines(t, main,
			line("d0000000-0000-4000-8000-000000000001", lastUUID(t, main), "user", `{"role":"user","content":"and the tests?"}`),
			line("d0000000-0000-4000-8000-000000000002", "d0000000-0000-4000-8000-000000000001", "assistant", reply("null", 1)))
		for _, sp := range demoSpans(t, dir) {
			for _, a := range sp.Attrs {
				if a.Key == otelmap.KeyResponseID && a.Str == "msg_stream" {
					chat = sp.ID.String()
				}
			}
			if sp.Parent.IsZero() {
				root = sp.ID.String()
			}
		}
		if chat == "" || root == "" {
			t.Fatal("no chat span for msg_stream, or no root")
		}
		return dir, main, chat, root
	}
	export := func(t *testing.T, url, state, dir string) string {
		t.Helper()
		_, errs, code := run(t, "export", "--otlp", url, "--state", state, dir)
		if code != ExitOK {
			t.Fatalf("code %d: %s", code, errs)
		}
		return errs
	}

	t.Run("live", func(t *testing.T) {
		dir, main, chat, root := setup(t)
		c, srv := newCollector(t, false)
		state := filepath.Join(t.TempDir(), "state.json")
		errs := export(t, srv.URL, state, dir)
		if c.spans[chat] != 0 || c.spans[root] != 0 {
			t.Fatalf("a message still streaming was sent (chat %d, root %d times): %s", c.spans[chat], c.spans[root], errs)
		}
		if !strings.Contains(errs, "2 not final held back (in flight or streaming)") {
			t.Errorf("want the message and the root held back: %s", errs)
		}
		appendLines(t, main, line("d0000000-0000-4000-8000-000000000003", "d0000000-0000-4000-8000-000000000002", "assistant", reply(`"end_turn"`, 950)))
		export(t, srv.URL, state, dir)
		if c.spans[chat] != 1 || c.outputs[chat] != 950 || c.spans[root] != 1 {
			t.Errorf("once ended: chat sent %d times with %d output tokens, root %d times; want once, 950, once",
				c.spans[chat], c.outputs[chat], c.spans[root])
		}
	})
	t.Run("no longer written", func(t *testing.T) {
		dir, main, chat, root := setup(t)
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(main, old, old); err != nil {
			t.Fatal(err)
		}
		c, srv := newCollector(t, false)
		export(t, srv.URL, filepath.Join(t.TempDir(), "state.json"), dir)
		if c.spans[chat] != 1 || c.outputs[chat] != 1 || c.spans[root] != 1 {
			t.Errorf("a finished session's last message: chat sent %d times (%d output tokens), root %d times; want once each",
				c.spans[chat], c.outputs[chat], c.spans[root])
		}
	})
}
