package otelexport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// NewJSON returns the SDK's OTLP exporter writing each batch to w as one line of OTLP JSON (an
// ExportTraceServiceRequest, the form the OpenTelemetry Collector's file exporter writes and its
// otlpjsonfile receiver reads): the same protobuf messages the HTTP exporter sends.
func NewJSON(ctx context.Context, w io.Writer) (sdktrace.SpanExporter, error) {
	return otlptrace.New(ctx, &jsonClient{w: w})
}

type jsonClient struct {
	mu sync.Mutex
	w  io.Writer
}

func (c *jsonClient) Start(context.Context) error { return nil }
func (c *jsonClient) Stop(context.Context) error  { return nil }

func (c *jsonClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	// The request's one field, framed by hand: its Go type lives beside OTLP's gRPC service
	// (httpClient's comment).
	b := []byte(`{"resourceSpans":[`)
	for i, r := range rs {
		m, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(r)
		if err != nil {
			return err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b, err := hexIDs(append(b, "]}"...))
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// hexIDs rewrites protojson's base64 ids as OTLP JSON wants them: hex (the one departure of OTLP
// JSON from the protobuf JSON mapping). The keys are found in the bytes: inside a JSON string a
// quote is escaped, so `"spanId"` followed by a colon is always a key; protojson may put spaces
// around the colon.
func hexIDs(b []byte) ([]byte, error) {
	out := make([]byte, 0, len(b)+len(b)/8)
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte(`Id"`))
		if j < 0 {
			out = append(out, b[i:]...)
			break
		}
		j += i + len(`Id"`)
		out = append(out, b[i:j]...)
		i = j
		if !(bytes.HasSuffix(out, []byte(`"traceId"`)) || bytes.HasSuffix(out, []byte(`"spanId"`)) || bytes.HasSuffix(out, []byte(`"parentSpanId"`))) {
			continue
		}
		k := i
		for k < len(b) && (b[k] == ' ' || b[k] == ':') {
			k++
		}
		if k >= len(b) || b[k] != '"' {
			continue
		}
		end := bytes.IndexByte(b[k+1:], '"')
		if end < 0 {
			return nil, errors.New("otlp json: unterminated id")
		}
		raw, err := base64.StdEncoding.DecodeString(string(b[k+1 : k+1+end]))
		if err != nil {
			return nil, fmt.Errorf("otlp json: id %q: %w", b[k+1:k+1+end], err)
		}
		out = append(out, ':', '"')
		out = hex.AppendEncode(out, raw)
		out = append(out, '"')
		i = k + 1 + end + 1
	}
	return out, nil
}
