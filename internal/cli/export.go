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

	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/otelexport"
	"github.com/ccdag/ccdag/internal/otelmap"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/version"
)

// Redactor masks secrets in every exported string unless --no-redact (docs/spec.md §11, §12):
// gitleaks' default rules (internal/secrets). A function value, so tests can see what it is given.
var Redactor = secrets.RedactString

// exportOpts are `ccdag export`'s flags.
type exportOpts struct {
	endpoint, statePath, format, out string
	headers                          map[string]string
	reset, noRedact                  bool
	batch                            int
	retry, timeout                   time.Duration
	paths                            []string
}

func parseExport(args []string, env Env) (*exportOpts, error) {
	o := &exportOpts{headers: map[string]string{}}
	fset := newFlagSet("export", env)
	fset.StringVar(&o.endpoint, "otlp", "", "send over OTLP/HTTP to this URL (path /v1/traces when none is given)")
	var headers multiFlag
	fset.Var(&headers, "header", "K=V: an HTTP header sent with every request (repeatable)")
	fset.StringVar(&o.statePath, "state", "", "remember what was accepted in FILE; send only what is new")
	fset.BoolVar(&o.reset, "reset-state", false, "start over when the --state file is corrupt or from another version")
	fset.StringVar(&o.format, "format", "", "otlp-json: write OTLP JSON instead of sending")
	fset.StringVar(&o.out, "o", "", "with --format otlp-json: the file to write (default stdout)")
	fset.BoolVar(&o.noRedact, "no-redact", false, "export strings as they are (secrets not masked)")
	fset.IntVar(&o.batch, "batch", 512, "spans per batch")
	fset.DurationVar(&o.retry, "retry", time.Minute, "how long a batch is retried, with backoff, before it counts as failed")
	fset.DurationVar(&o.timeout, "timeout", 10*time.Second, "time allowed for one attempt to send a batch")
	var err error
	if o.paths, err = parseInterleaved(fset, args); err != nil {
		return nil, err
	}
	switch {
	case o.format != "" && o.format != "otlp-json":
		return nil, fmt.Errorf("unknown --format %q (want otlp-json)", o.format)
	case o.format == "" && o.endpoint == "":
		return nil, errors.New("nothing to do: --otlp URL sends the sessions, --format otlp-json [-o FILE] writes them")
	case o.format != "" && o.endpoint != "":
		return nil, errors.New("--otlp and --format otlp-json exclude each other")
	case o.out != "" && o.format == "":
		return nil, errors.New("-o needs --format otlp-json")
	case o.batch < 1:
		return nil, errors.New("--batch must be at least 1")
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--header %q: want K=V", h)
		}
		o.headers[strings.TrimSpace(k)] = v
	}
	if o.endpoint != "" {
		u, err := url.Parse(o.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--otlp %q: want an http:// or https:// URL", o.endpoint)
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		o.endpoint = u.String()
	}
	return o, nil
}

// exportSink is where spans go: the SDK's exporter over HTTP, or into a file as OTLP JSON.
type exportSink struct {
	exp      sdktrace.SpanExporter
	attempts *otelexport.Attempts // HTTP only
	file     *os.File             // OTLP JSON only
	w        *bufio.Writer
}

func openSink(ctx context.Context, o *exportOpts) (*exportSink, error) {
	k := &exportSink{}
	var err error
	if o.endpoint != "" {
		k.exp, k.attempts, err = otelexport.NewHTTP(ctx, otelexport.HTTPConfig{URL: o.endpoint, Headers: o.headers, Timeout: o.timeout, MaxRetry: o.retry})
		return k, err
	}
	k.file = os.Stdout
	if o.out != "" && o.out != "-" {
		if k.file, err = os.Create(o.out); err != nil {
			return nil, err
		}
	}
	k.w = bufio.NewWriterSize(k.file, 256<<10)
	k.exp, err = otelexport.NewJSON(ctx, k.w)
	return k, err
}

// close shuts the exporter down and flushes and closes the file.
func (k *exportSink) close() error {
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = k.exp.Shutdown(shutdown)
	if k.w == nil {
		return nil
	}
	err := k.w.Flush()
	if k.file != os.Stdout {
		err = errors.Join(err, k.file.Close())
	}
	return err
}

// runExport is `ccdag export` (docs/spec.md §12): sessions as OpenTelemetry traces, sent over
// OTLP/HTTP with --otlp or written as OTLP JSON with --format otlp-json. Nothing leaves the machine
// without --otlp.
func runExport(args []string, env Env) int {
	o, err := parseExport(args, env)
	if err != nil {
		return usageError(env, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var state *otelexport.State
	if o.statePath != "" {
		if state, err = otelexport.LoadState(o.statePath, o.reset); err != nil {
			if errors.Is(err, otelexport.ErrState) {
				errorf(env.Stderr, "ccdag: %v; nothing sent (--reset-state exports everything again and rewrites it)\n", err)
				return ExitUsage
			}
			errorf(env.Stderr, "ccdag: %v; nothing sent\n", err)
			return ExitUsage
		}
	}
	found, code := findSessions(o.paths, env)
	if found == nil {
		return code
	}
	sink, err := openSink(ctx, o)
	if err != nil {
		return usageError(env, err)
	}
	r := exportRun{env: env, state: state, sink: sink, timeout: o.timeout}
	r.opt = otelmap.Options{Redact: Redactor, Live: liveLog}
	if o.noRedact {
		r.opt.Redact = nil
	}
	r.sender = &otelexport.Sender{Exporter: sink.exp, State: state, BatchSize: o.batch, Resource: otelexport.Resource(),
		Scope: otelexport.Scope(version.String()), OnError: r.onError}
	sendErr := r.all(ctx, found)
	if err := sink.close(); err != nil && sendErr == nil {
		sendErr = err
	}
	if state != nil {
		if err := state.Save(); err != nil {
			errorf(env.Stderr, "ccdag: writing state %s: %v\n", o.statePath, err)
			return ExitUsage
		}
	}
	r.summary(len(found), o.format != "")
	switch {
	case sendErr != nil:
		errorf(env.Stderr, "ccdag: export stopped: %v\n", sendErr)
		return ExitFindings
	case r.sender.Failed > 0:
		return ExitFindings
	case code != ExitOK || r.unread > 0:
		return ExitUsage
	}
	return ExitOK
}

// streamWindow: a log written within it may end on a reply still streaming (otelmap.Options.Live).
// Claude Code writes a reply's lines as its blocks end and gives up on a request after 10 minutes
// (API_TIMEOUT_MS, 600 000 by default), so a log untouched that long streams nothing.
const streamWindow = 10 * time.Minute

func liveLog(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && now().Sub(fi.ModTime()) < streamWindow
}

// exportRun is one export's progress.
type exportRun struct {
	env                   Env
	opt                   otelmap.Options
	state                 *otelexport.State
	sink                  *exportSink
	sender                *otelexport.Sender
	batches, held, before int           // batches gone, spans held back (in flight or streaming), spans sent before
	timeout               time.Duration // --timeout, named when a batch timed out
	unread                int           // sessions that could not be read
	redirect              string        // where a 3xx answer pointed: the export stops
}

func (r *exportRun) onError(err error, n int) {
	var why []string
	if r.sink.attempts != nil {
		why = append(why, r.sink.attempts.Take())
		if r.redirect = r.sink.attempts.Redirect(); r.redirect != "" {
			why = append(why, "a redirect to "+r.redirect+", not followed")
		}
	}
	if timedOut(err) {
		why = append(why, "timed out: no answer within --timeout "+r.timeout.String())
	}
	how := ""
	if len(why) > 0 {
		how = " (" + strings.Join(why, ", ") + ")"
	}
	errorf(r.env.Stderr, "ccdag: batch %d (%d spans) not accepted%s: %v\n", r.batches+1, n, how, err)
}

// timedOut tells a batch the endpoint did not answer in time from one it refused. The cause comes
// in two wordings: the context's deadline, or http.Client's own timeout, which the OTLP exporter
// passes on formatted with %v (so neither errors.Is nor errors.As can see it) — which of the two
// fires first depends on how busy the machine is.
func timedOut(err error) bool {
	var ne interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "deadline exceeded") || strings.Contains(s, "Client.Timeout exceeded")
}

// all maps and sends the sessions one at a time (memory: one session and one batch), then what is
// left in the batch.
func (r *exportRun) all(ctx context.Context, found []history.Session) error {
	var sendErr error
	for _, h := range found {
		err := withSession(h.Found, func(s *session.Session) {
			sendErr = r.session(ctx, s, h.Paths()[0])
		})
		if err != nil {
			r.unread++
			errorf(r.env.Stderr, "ccdag: %v\n", err)
		}
		if sendErr != nil {
			return sendErr
		}
	}
	if err := r.sender.Flush(ctx); err != nil {
		return err
	}
	return r.redirected()
}

// redirected stops an export whose endpoint answered with a redirect: every batch would be refused.
func (r *exportRun) redirected() error {
	if r.redirect == "" {
		return nil
	}
	return fmt.Errorf("the endpoint answered with a redirect (to %s): ccdag follows no redirect, so the spans and headers go only to the URL given; give --otlp the URL that accepts them", r.redirect)
}

// session sends a session's spans: those not sent before and, with a state, final.
func (r *exportRun) session(ctx context.Context, s *session.Session, path string) error {
	spans := otelmap.Session(s, r.opt)
	if spans == nil {
		errorf(r.env.Stderr, "ccdag: %s: no timestamp in the session: nothing to export\n", displayPath(path))
	}
	for i := range spans {
		sp := &spans[i]
		if r.state != nil {
			if r.state.Sent(s.ID, sp.ID) {
				r.before++
				continue
			}
			if sp.Pending {
				r.held++ // final in a later export
				continue
			}
		}
		gone := r.sender.Sent + r.sender.Failed
		if err := r.sender.Add(ctx, s.ID, sp); err != nil {
			return err
		}
		if err := r.redirected(); err != nil {
			return err
		}
		if r.sender.Sent+r.sender.Failed != gone { // a batch went
			r.batches++
			if r.sink.attempts != nil {
				r.sink.attempts.Take()
			}
		}
	}
	return nil
}

func (r *exportRun) summary(sessions int, written bool) {
	what := "sent"
	if written {
		what = "written"
	}
	noun := "sessions"
	if sessions == 1 {
		noun = "session"
	}
	fmt.Fprintf(r.env.Stderr, "ccdag: %d %s: %d spans %s", sessions, noun, r.sender.Sent, what)
	if r.state != nil {
		fmt.Fprintf(r.env.Stderr, ", %d sent before, %d not final held back (in flight or streaming)", r.before, r.held)
	}
	if r.sender.Failed > 0 {
		fmt.Fprintf(r.env.Stderr, ", %d not accepted", r.sender.Failed)
	}
	fmt.Fprintln(r.env.Stderr)
}
