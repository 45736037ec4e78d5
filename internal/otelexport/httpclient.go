package otelexport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// httpClient is the OTLP/HTTP (protobuf) transport under the SDK's exporter (otlptrace.New): the
// SDK turns the spans into OTLP's protobuf messages; this posts them as an
// ExportTraceServiceRequest and retries as the SDK's otlptracehttp does (429, 502, 503 and 504,
// and a temporary network error, with exponential backoff and Retry-After).
//
// It stands in for otlptracehttp: that package's request type lives in the same Go package as
// OTLP's gRPC service, so importing it links gRPC into ccdag, and every ccdag command, `sessions`
// answered from the cache included, ran gRPC's package inits (0.6 ms of a 3.6 ms start, 9 MB of
// the binary: docs/PERFORMANCE.md, "The exporter without gRPC"). The request is framed here with
// protowire instead (field 1, repeated ResourceSpans: the whole message).
type httpClient struct {
	url     string
	headers map[string]string
	client  *http.Client
	retry   retryConfig
}

type retryConfig struct {
	initial, max, elapsed time.Duration
}

var _ otlptrace.Client = (*httpClient)(nil)

func (c *httpClient) Start(context.Context) error { return nil }
func (c *httpClient) Stop(context.Context) error  { return nil }

// maxAnswer caps what is read of an answer's body: an error names its start.
const maxAnswer = 64 << 10

// UploadTraces posts one batch, retrying what can be retried until c.retry.elapsed has passed.
func (c *httpClient) UploadTraces(ctx context.Context, rs []*tracepb.ResourceSpans) error {
	body, err := exportRequest(rs)
	if err != nil {
		return err
	}
	b := &backoff.ExponentialBackOff{InitialInterval: c.retry.initial, RandomizationFactor: backoff.DefaultRandomizationFactor,
		Multiplier: backoff.DefaultMultiplier, MaxInterval: c.retry.max}
	b.Reset()
	start := time.Now()
	for {
		err := c.post(ctx, body)
		var re *retryable
		if err == nil || !errors.As(err, &re) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", context.Cause(ctx), err)
		}
		delay := max(re.after, b.NextBackOff())
		if time.Since(start)+delay > c.retry.elapsed {
			return fmt.Errorf("max retry time elapsed: %w", err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %w", context.Cause(ctx), err)
		case <-t.C:
		}
	}
}

// retryable is an answer worth asking again, after at least `after` when the endpoint said so.
type retryable struct {
	err   error
	after time.Duration
}

func (e *retryable) Error() string { return "retry-able request failure: " + e.err.Error() }
func (e *retryable) Unwrap() error { return e.err }

// post sends the request once.
func (c *httpClient) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "ccdag (OTel OTLP Exporter Go/"+otlptrace.Version()+")")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.Temporary() {
			return &retryable{err: err}
		}
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return partialSuccess(resp.Header.Get("Content-Type"), answer)
	}
	said := strings.TrimSpace(string(answer))
	if said == "" {
		said = "(empty)"
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return &retryable{err: fmt.Errorf("%s (body: %s)", resp.Status, said), after: retryAfter(resp.Header.Get("Retry-After"))}
	}
	return fmt.Errorf("failed to send to %s: %s (body: %s)", c.url, resp.Status, said)
}

// exportRequest encodes an ExportTraceServiceRequest: its one field, resource_spans (1), repeated.
func exportRequest(rs []*tracepb.ResourceSpans) ([]byte, error) {
	var b []byte
	for _, r := range rs {
		m, err := proto.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("failed to marshal request body in protobuf: %w", err)
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	return b, nil
}

// partialSuccess reads an ExportTraceServiceResponse (protobuf or JSON, as its Content-Type
// says): spans it rejected, or a message, make an error, as in the SDK.
func partialSuccess(contentType string, b []byte) error {
	var n int64
	var msg string
	switch contentType {
	case "application/x-protobuf":
		ps, err := protoField(b, 1)
		if err != nil || ps == nil {
			return err
		}
		for len(ps) > 0 {
			num, typ, l := protowire.ConsumeTag(ps)
			if l < 0 {
				return protowire.ParseError(l)
			}
			ps = ps[l:]
			switch {
			case num == 1 && typ == protowire.VarintType:
				v, l := protowire.ConsumeVarint(ps)
				if l < 0 {
					return protowire.ParseError(l)
				}
				n, ps = int64(v), ps[l:]
			case num == 2 && typ == protowire.BytesType:
				v, l := protowire.ConsumeBytes(ps)
				if l < 0 {
					return protowire.ParseError(l)
				}
				msg, ps = string(v), ps[l:]
			default:
				l := protowire.ConsumeFieldValue(num, typ, ps)
				if l < 0 {
					return protowire.ParseError(l)
				}
				ps = ps[l:]
			}
		}
	case "application/json":
		var r struct {
			PartialSuccess *struct {
				RejectedSpans json.RawMessage `json:"rejectedSpans"` // int64: a string in OTLP JSON, a number from some
				ErrorMessage  string          `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		if err := json.Unmarshal(b, &r); err != nil || r.PartialSuccess == nil {
			return err
		}
		n, _ = strconv.ParseInt(strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`), 10, 64)
		msg = r.PartialSuccess.ErrorMessage
	default:
		return nil
	}
	if n == 0 && msg == "" {
		return nil
	}
	return fmt.Errorf("OTLP partial success: %s (%d spans rejected)", msg, n)
}

// protoField is the last value of message field num (bytes) in b, nil when it is absent.
func protoField(b []byte, num protowire.Number) ([]byte, error) {
	var v []byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			f, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return nil, protowire.ParseError(l)
			}
			v, b = f, b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		b = b[l:]
	}
	return v, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
