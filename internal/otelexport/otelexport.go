// Package otelexport sends otelmap's spans through the OpenTelemetry Go SDK's OTLP exporter (over
// HTTP, or as OTLP JSON into a file) in bounded batches, and keeps the --state of what a backend
// accepted (docs/spec.md §12).
//
// Spans are not started through a tracer: their ids and times come from the log, so each span is
// an SDK snapshot (tracetest.SpanStub) handed to the exporter's ExportSpans. Batching is ours, not
// the SDK's batch processor: the processor drops spans when its queue is full and reports a failed
// export only to a global error handler, while --state must know which batch a backend accepted.
package otelexport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/ccdag/ccdag/internal/otelmap"
)

// Resource is the resource every exported span carries: the agent whose sessions they are.
func Resource() *resource.Resource {
	return resource.NewWithAttributes(otelmap.SchemaURL,
		attribute.String("service.name", "claude-code"),
		attribute.String("telemetry.sdk.name", "ccdag"),
	)
}

// Scope is the instrumentation scope of the spans.
func Scope(version string) instrumentation.Scope {
	return instrumentation.Scope{Name: "github.com/ccdag/ccdag", Version: version, SchemaURL: otelmap.SchemaURL}
}

// HTTPConfig configures the OTLP/HTTP exporter.
type HTTPConfig struct {
	URL      string            // the full traces URL, e.g. http://127.0.0.1:4318/v1/traces (no path: /v1/traces)
	Headers  map[string]string // sent with every request (e.g. an API key)
	Timeout  time.Duration     // per attempt (0: 10 s, as the SDK's)
	MaxRetry time.Duration     // how long a batch is retried with backoff (0: 1 min, as the SDK's)
}

// Attempts counts the HTTP requests of the batch being sent and keeps the last answer's status, so
// an error says how often the batch was tried and what the endpoint answered last.
type Attempts struct {
	mu       sync.Mutex
	n        int
	status   string
	redirect string // the Location of a 3xx answer, "(none)" when it named none
	next     http.RoundTripper
}

func (a *Attempts) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(r)
	a.mu.Lock()
	a.n++
	if err == nil {
		a.status = resp.Status
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			a.redirect = cmp.Or(resp.Header.Get("Location"), "(none)")
		}
	}
	a.mu.Unlock()
	return resp, err
}

// Redirect is the Location of a 3xx answer since the start ("" when there was none): the client
// follows no redirect (noRedirect), so the answer counts as a refusal.
func (a *Attempts) Redirect() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.redirect
}

// noRedirect is the client's CheckRedirect: a redirect is not followed. Go's client would send the
// spans and the --header values (an API key) to whatever host a 307 names, and turn a 302's POST into
// a GET whose 200 would be taken for "accepted": the 3xx answer itself goes back to httpClient,
// which counts it as a refusal (docs/spec.md §15).
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Take describes the attempts since the last Take ("3 attempts, last answer 503 Service
// Unavailable") and starts counting again.
func (a *Attempts) Take() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := fmt.Sprintf("%d attempts", a.n)
	if a.n == 1 {
		s = "1 attempt"
	}
	if a.status != "" {
		s += ", last answer HTTP " + a.status
	}
	a.n, a.status = 0, ""
	return s
}

// NewHTTP returns the SDK's OTLP exporter over HTTP (protobuf), and its request counter.
func NewHTTP(ctx context.Context, c HTTPConfig) (sdktrace.SpanExporter, *Attempts, error) {
	att := &Attempts{next: http.DefaultTransport}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	retry := retryConfig{initial: 1 * time.Second, max: 10 * time.Second, elapsed: time.Minute}
	if c.MaxRetry > 0 {
		retry.elapsed = c.MaxRetry
		retry.initial = min(retry.initial, c.MaxRetry/4)
	}
	exp, err := otlptrace.New(ctx, &httpClient{url: c.URL, headers: c.Headers, retry: retry,
		client: &http.Client{Transport: att, Timeout: timeout, CheckRedirect: noRedirect}})
	return exp, att, err
}

// Snapshot turns a span into the SDK's read-only span.
func Snapshot(sp *otelmap.Span, res *resource.Resource, scope instrumentation.Scope) sdktrace.ReadOnlySpan {
	tid := trace.TraceID(sp.Trace)
	stub := tracetest.SpanStub{
		Name: sp.Name,
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID(sp.ID),
			TraceFlags: trace.FlagsSampled}),
		SpanKind:             trace.SpanKindInternal,
		StartTime:            sp.Start,
		EndTime:              sp.End,
		Attributes:           attrs(sp.Attrs),
		Resource:             res,
		InstrumentationScope: scope,
	}
	if !sp.Parent.IsZero() {
		stub.Parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID(sp.Parent),
			TraceFlags: trace.FlagsSampled})
	}
	if sp.Kind == otelmap.Client {
		stub.SpanKind = trace.SpanKindClient
	}
	if sp.Error {
		stub.Status = sdktrace.Status{Code: codes.Error, Description: sp.Message}
	}
	for _, e := range sp.Events {
		stub.Events = append(stub.Events, sdktrace.Event{Name: e.Name, Time: e.Time, Attributes: attrs(e.Attrs)})
	}
	return stub.Snapshot()
}

func attrs(as []otelmap.Attr) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(as))
	for i, a := range as {
		if a.IsInt {
			out[i] = attribute.Int64(a.Key, a.Num)
		} else {
			out[i] = attribute.String(a.Key, a.Str)
		}
	}
	return out
}

// Sender batches spans into an exporter and records in its State what each accepted batch held.
type Sender struct {
	Exporter  sdktrace.SpanExporter
	State     *State // nil: no --state
	BatchSize int
	Resource  *resource.Resource
	Scope     instrumentation.Scope
	// OnError reports a batch that was not accepted (after the exporter's retries).
	OnError func(err error, spans int)
	// MaxFailures in a row stop the export (ErrGaveUp); 0: 3.
	MaxFailures int

	batch    []sdktrace.ReadOnlySpan
	ids      []sent
	failures int // in a row
	Sent     int // spans accepted
	Failed   int // spans in batches not accepted
}

type sent struct {
	session string
	id      otelmap.SpanID
}

// ErrGaveUp stops an export after MaxFailures batches in a row were not accepted.
var ErrGaveUp = errors.New("gave up")

// Add queues a span of a session, exporting a batch when it is full.
func (s *Sender) Add(ctx context.Context, session string, sp *otelmap.Span) error {
	s.batch = append(s.batch, Snapshot(sp, s.Resource, s.Scope))
	s.ids = append(s.ids, sent{session, sp.ID})
	if len(s.batch) >= max(s.BatchSize, 1) {
		return s.Flush(ctx)
	}
	return nil
}

// Flush exports what is queued. A batch not accepted is reported (OnError) and not recorded.
func (s *Sender) Flush(ctx context.Context) error {
	if len(s.batch) == 0 {
		return nil
	}
	err := s.Exporter.ExportSpans(ctx, s.batch)
	n := len(s.batch)
	if err == nil {
		s.Sent += n
		s.failures = 0
		if s.State != nil {
			for _, x := range s.ids {
				s.State.Mark(x.session, x.id)
			}
		}
	} else {
		s.Failed += n
		s.failures++
		if s.OnError != nil {
			s.OnError(err, n)
		}
	}
	clear(s.batch) // the snapshots hold their session's strings
	s.batch, s.ids = s.batch[:0], s.ids[:0]
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.failures >= cmpOr(s.MaxFailures, 3) {
			return fmt.Errorf("%w after %d batches in a row were not accepted", ErrGaveUp, s.failures)
		}
	}
	return nil
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}
