package otelexport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func batch() []*tracepb.ResourceSpans {
	span := func(name string) *tracepb.Span {
		return &tracepb.Span{Name: name, TraceId: make([]byte, 16), SpanId: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	}
	return []*tracepb.ResourceSpans{
		{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{span("a"), span("b")}}}},
		{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{span("c")}}}},
	}
}

func client(url string) *httpClient {
	return &httpClient{url: url, headers: map[string]string{"X-Key": "k"}, client: &http.Client{},
		retry: retryConfig{initial: time.Millisecond, max: time.Millisecond, elapsed: time.Minute}}
}

// TestHTTPClientRequest: what is posted is an ExportTraceServiceRequest as OTLP's own Go type
// reads it, with the headers asked for.
func TestHTTPClientRequest(t *testing.T) {
	var got coltracepb.ExportTraceServiceRequest
	var typ, key string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		typ, key = r.Header.Get("Content-Type"), r.Header.Get("X-Key")
		if err := proto.Unmarshal(b, &got); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	want := batch()
	if err := client(srv.URL).UploadTraces(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, &coltracepb.ExportTraceServiceRequest{ResourceSpans: want}) {
		t.Errorf("posted %v", &got)
	}
	if typ != "application/x-protobuf" || key != "k" {
		t.Errorf("Content-Type %q, X-Key %q", typ, key)
	}
}

// TestHTTPClientRetries: 503 and 429 are asked again until accepted; a 400 is not, and its error
// names the answer.
func TestHTTPClientRetries(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	if err := client(srv.URL).UploadTraces(context.Background(), batch()); err != nil || n.Load() != 3 {
		t.Errorf("%d requests, error %v; want 3, accepted", n.Load(), err)
	}

	n.Store(0)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "no such tenant", http.StatusBadRequest)
	}))
	defer bad.Close()
	err := client(bad.URL).UploadTraces(context.Background(), batch())
	if err == nil || n.Load() != 1 || !strings.Contains(err.Error(), "400 Bad Request") || !strings.Contains(err.Error(), "no such tenant") {
		t.Errorf("%d requests, error %v; want 1, naming the 400 and its body", n.Load(), err)
	}
}

// TestHTTPClientRetryAfter: a Retry-After beyond the time left to retry gives up at once, naming
// the last answer, rather than waiting past it.
func TestHTTPClientRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "later", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c := client(srv.URL)
	c.retry.elapsed = time.Hour / 2
	err := c.UploadTraces(context.Background(), batch())
	if err == nil || n.Load() != 1 || !strings.Contains(err.Error(), "max retry time elapsed") || !strings.Contains(err.Error(), "503") {
		t.Errorf("%d requests, error %v", n.Load(), err)
	}
	if retryAfter("120") != 2*time.Minute || retryAfter("soon") != 0 || retryAfter(time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)) != 0 {
		t.Error("Retry-After misread")
	}
}

// TestHTTPClientPartialSuccess: an accepted request whose answer says spans were rejected is an
// error, in either of OTLP's encodings; an empty partial success is not.
func TestHTTPClientPartialSuccess(t *testing.T) {
	pb, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
		RejectedSpans: 2, ErrorMessage: "too old"}})
	empty, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	for _, tc := range []struct {
		typ, body string
		want      string
	}{
		{"application/x-protobuf", string(pb), "OTLP partial success: too old (2 spans rejected)"},
		{"application/json", `{"partialSuccess":{"rejectedSpans":"3","errorMessage":"quota"}}`, "OTLP partial success: quota (3 spans rejected)"},
		{"application/json", `{"partialSuccess":{"rejectedSpans":1}}`, "OTLP partial success:  (1 spans rejected)"},
		{"application/x-protobuf", string(empty), ""},
		{"application/json", `{}`, ""},
		{"text/plain", "ok", ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.typ)
			io.WriteString(w, tc.body)
		}))
		err := client(srv.URL).UploadTraces(context.Background(), batch())
		srv.Close()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s %q: error %q, want %q", tc.typ, tc.body, got, tc.want)
		}
	}
}
