package otelexport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
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
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: rs})
	if err != nil {
		return err
	}
	b, err = hexIDs(b)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// hexIDs rewrites protojson's base64 ids as OTLP JSON wants them: hex (the one departure of OTLP
// JSON from the protobuf JSON mapping).
func hexIDs(b []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
						x[k] = hex.EncodeToString(raw)
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}
