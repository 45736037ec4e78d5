package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/otelexport"
	"github.com/ccdag/ccdag/internal/otelmap"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/version"
)

// Redactor masks secrets in every exported string unless --no-redact (docs/spec.md §11, §12). It
// is a function value so the secrets scanner plugs in here; nil exports strings as they are.
var Redactor func(string) string

// runExport is `ccdag export` (docs/spec.md §12): sessions as OpenTelemetry traces, sent over
// OTLP/HTTP with --otlp or written as OTLP JSON with --format otlp-json. Nothing leaves the machine
// without --otlp.
func runExport(args []string, env Env) int {
	fset := newFlagSet("export", env)
	endpoint := fset.String("otlp", "", "send over OTLP/HTTP to this URL (path /v1/traces when none is given)")
	var headers multiFlag
	fset.Var(&headers, "header", "K=V: an HTTP header sent with every request (repeatable)")
	statePath := fset.String("state", "", "remember what was accepted in FILE; send only what is new")
	reset := fset.Bool("reset-state", false, "start over when the --state file is corrupt or from another version")
	format := fset.String("format", "", "otlp-json: write OTLP JSON instead of sending")
	out := fset.String("o", "", "with --format otlp-json: the file to write (default stdout)")
	noRedact := fset.Bool("no-redact", false, "export strings as they are (secrets not masked)")
	batch := fset.Int("batch", 512, "spans per batch")
	retry := fset.Duration("retry", time.Minute, "how long a batch is retried, with backoff, before it counts as failed")
	timeout := fset.Duration("timeout", 10*time.Second, "time allowed for one attempt to send a batch")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	switch {
	case *format != "" && *format != "otlp-json":
		return usageError(env, fmt.Errorf("unknown --format %q (want otlp-json)", *format))
	case *format == "" && *endpoint == "":
		return usageError(env, errors.New("nothing to do: --otlp URL sends the sessions, --format otlp-json [-o FILE] writes them"))
	case *format != "" && *endpoint != "":
		return usageError(env, errors.New("--otlp and --format otlp-json exclude each other"))
	case *out != "" && *format == "":
		return usageError(env, errors.New("-o needs --format otlp-json"))
	case *batch < 1:
		return usageError(env, errors.New("--batch must be at least 1"))
	}
	hdr := map[string]string{}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageError(env, fmt.Errorf("--header %q: want K=V", h))
		}
		hdr[strings.TrimSpace(k)] = v
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var exp sdktrace.SpanExporter
	var attempts *otelexport.Attempts
	var file *os.File
	var w *bufio.Writer
	if *endpoint != "" {
		u, err := url.Parse(*endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError(env, fmt.Errorf("--otlp %q: want an http:// or https:// URL", *endpoint))
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		if exp, attempts, err = otelexport.NewHTTP(ctx, otelexport.HTTPConfig{URL: u.String(), Headers: hdr, Timeout: *timeout, MaxRetry: *retry}); err != nil {
			return usageError(env, err)
		}
	} else {
		file = os.Stdout
		if *out != "" && *out != "-" {
			if file, err = os.Create(*out); err != nil {
				return usageError(env, err)
			}
		}
		w = bufio.NewWriterSize(file, 256<<10)
		if exp, err = otelexport.NewJSON(ctx, w); err != nil {
			return usageError(env, err)
		}
	}

	var state *otelexport.State
	if *statePath != "" {
		if state, err = otelexport.LoadState(*statePath, *reset); err != nil {
			if errors.Is(err, otelexport.ErrState) {
				fmt.Fprintf(env.Stderr, "ccdag: %v; nothing sent (--reset-state exports everything again and rewrites it)\n", err)
				return ExitUsage
			}
			return usageError(env, err)
		}
	}
	found, code := findSessions(paths, env)
	if found == nil {
		return code
	}
	opt := otelmap.Options{Redact: Redactor}
	if *noRedact {
		opt.Redact = nil
	}
	batchNo := 0
	sender := &otelexport.Sender{Exporter: exp, State: state, BatchSize: *batch, Resource: otelexport.Resource(),
		Scope: otelexport.Scope(version.String()),
		OnError: func(err error, n int) {
			how := ""
			if attempts != nil {
				how = " (" + attempts.Take() + ")"
			}
			fmt.Fprintf(env.Stderr, "ccdag: batch %d (%d spans) not accepted%s: %v\n", batchNo+1, n, how, err)
		}}
	held, skipped, failedSessions := 0, 0, 0
	var sendErr error
	for _, h := range found {
		if sendErr != nil {
			break
		}
		err := withSession(h.Found, func(s *session.Session) {
			spans := otelmap.Session(s, opt)
			if spans == nil {
				fmt.Fprintf(env.Stderr, "ccdag: %s: no timestamp in the session: nothing to export\n", check.Printable(displayPath(h.Paths()[0])))
			}
			for i := range spans {
				sp := &spans[i]
				if state != nil {
					if state.Sent(s.ID, sp.ID) {
						skipped++
						continue
					}
					if sp.Pending {
						held++ // final in a later export
						continue
					}
				}
				before := sender.Sent + sender.Failed
				if sendErr = sender.Add(ctx, s.ID, sp); sendErr != nil {
					return
				}
				if sender.Sent+sender.Failed != before { // a batch went
					batchNo++
					if attempts != nil {
						attempts.Take()
					}
				}
			}
		})
		if err != nil {
			failedSessions++
			fmt.Fprintf(env.Stderr, "ccdag: %v\n", err)
		}
	}
	if sendErr == nil {
		sendErr = sender.Flush(ctx)
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = exp.Shutdown(shutdown)
	if w != nil {
		if err := w.Flush(); err != nil && sendErr == nil {
			sendErr = err
		}
		if file != os.Stdout {
			if err := file.Close(); err != nil && sendErr == nil {
				sendErr = err
			}
		}
	}
	if state != nil {
		if err := state.Save(); err != nil {
			fmt.Fprintf(env.Stderr, "ccdag: writing state %s: %v\n", *statePath, err)
			return ExitUsage
		}
	}
	what := "sent"
	if *format != "" {
		what = "written"
	}
	fmt.Fprintf(env.Stderr, "ccdag: %d sessions: %d spans %s", len(found), sender.Sent, what)
	if state != nil {
		fmt.Fprintf(env.Stderr, ", %d sent before, %d in flight held back", skipped, held)
	}
	if sender.Failed > 0 {
		fmt.Fprintf(env.Stderr, ", %d not accepted", sender.Failed)
	}
	fmt.Fprintln(env.Stderr)
	switch {
	case sendErr != nil:
		fmt.Fprintf(env.Stderr, "ccdag: export stopped: %v\n", sendErr)
		return ExitFindings
	case sender.Failed > 0:
		return ExitFindings
	case code != ExitOK || failedSessions > 0:
		return ExitUsage
	}
	return ExitOK
}
