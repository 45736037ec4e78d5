// Package lsp is ccdag's language server (docs/spec.md §3): it keeps every open session log parsed as it
// changes, pushes its integrity problems as diagnostics, describes records on hover, moves along
// the DAG with definition and references, outlines a log, and serves the workflow graph.
//
// Structure (one file per concern): the transport (framing, cancellation, recovery, initialize
// gating, shutdown and exit) is package jsonrpc; lifecycle.go holds the method table and
// initialize; handler.go the one adapter every request goes through (decode, run where it must,
// reply once); sessions.go maps documents to sessions and runs each session's work on its own
// goroutine, in order; the other files are the features, a typed handler each.
//
// Concurrency: the connection's read loop only decodes messages and queues work. Each session has
// one worker goroutine that owns its session.Session and checker and runs that session's jobs in
// arrival order (edits, then the requests that follow them), so a slow job — the graph of a huge
// session — delays only later work on the same session, never the next message.
package lsp

import (
	"context"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/wsymbol"
)

// Options configure `ccdag serve`.
type Options struct {
	LogFile   string // zap log; "" logs to stderr
	LogLevel  string // debug, info, warn, error ("" = info)
	TraceFile string // every message in and out; "" = none
	NoCache   bool   // the history cache is neither read nor written (--no-cache)
}

// RunStdio serves one client on stdin/stdout until `exit` or the end of stdin, and returns the
// process's exit code: 0 after shutdown, 1 otherwise (and 2 when the log or trace file cannot be
// opened).
func RunStdio(ctx context.Context, opts Options) int {
	st := jsonrpc.NewSplitStream(os.Stdin, os.Stdout, nopCloser{})
	return serve(ctx, st, opts, hooks{})
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// Serve runs the server over stream (tests: jsonrpc.NewStream over one end of a net.Pipe) until
// `exit` or the end of the stream, and returns the exit code RunStdio would.
func Serve(ctx context.Context, stream *jsonrpc.Stream, opts Options) int {
	return serve(ctx, stream, opts, hooks{})
}

// hooks let tests observe and slow down the server.
type hooks struct {
	log           *zap.Logger
	progressBytes int          // session size from which work reports progress (0: default)
	beforeGraph   func()       // runs in the worker before a graph is built
	afterPublish  func(string) // runs after diagnostics for a URI were sent
	onServer      func(*server)
	stage         func(name string) // benchmarks: marks the stages of an open
	wsPoll        time.Duration     // how often workspace symbols look at the folders (0: wsymbol.Poll)
	noSecrets     bool              // benchmarks: checkers leave the secret scan out (secretscan.go)
	closeGrace    time.Duration     // a session's life after its last document (0: closeGrace)
	willOpenGrace time.Duration     // a provisional document's wait for its didOpen (0: willOpenGrace)
	maxFileBytes  int64             // the file-size limit (0: maxFileBytes)
}

func (h *hooks) mark(name string) {
	if h.stage != nil {
		h.stage(name)
	}
}

type server struct {
	conn   *jsonrpc.Conn
	stream *jsonrpc.Stream
	log    *zap.Logger
	ctx    context.Context
	hooks  hooks

	mu       sync.Mutex
	docs     map[string]*document // by URI as the client sent it
	sessions map[string]*sess
	sev      check.Severities
	claude   string // ccdag.claudeVersion (claudeversion.go)
	noRedact bool   // ccdag.redact set false: results show secrets (redactview.go)
	caps     clientCaps
	wsym     *wsymbol.Index // workspace symbols, made at initialize
	tokenSeq int

	openRoots []string // the folders ccdag/willOpen reads under (willopen.go), set at initialize

	noCache   bool       // Options.NoCache
	toClient  *clientLog // the stderr log, sent to the client once it is attached (nil: a log file)
	cacheOnce sync.Once
	cache     *cache.Cache // the history cache (browser.go); nil: none
}

func serve(ctx context.Context, stream *jsonrpc.Stream, opts Options, h hooks) int {
	log, toClient, closeLog, err := newClientLogger(opts, h.log)
	if err != nil {
		os.Stderr.WriteString("ccdag serve: " + err.Error() + "\n")
		return 2
	}
	defer closeLog()
	if opts.TraceFile != "" {
		f, err := os.Create(opts.TraceFile)
		if err != nil {
			log.Error("cannot open the trace file", zap.Error(err))
			return 2
		}
		defer f.Close()
		stream.SetTrace(f)
	}
	stream.DecodeBig("textDocument/didOpen", func(b []byte, i int) (any, int, error) { return decodeDidOpenAt(b, i) })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &server{
		conn:     jsonrpc.NewConn(stream, log),
		stream:   stream,
		log:      log,
		ctx:      ctx,
		hooks:    h,
		docs:     map[string]*document{},
		sessions: map[string]*sess{},
		noCache:  opts.NoCache,
		toClient: toClient,
	}
	defer func() {
		srv.cacheOnce.Do(func() {}) // no open after this one
		if srv.cache != nil {
			srv.cache.Close()
		}
	}()
	if srv.hooks.closeGrace == 0 {
		srv.hooks.closeGrace = closeGrace
	}
	if srv.hooks.willOpenGrace == 0 {
		srv.hooks.willOpenGrace = willOpenGrace
	}
	if srv.hooks.maxFileBytes == 0 {
		srv.hooks.maxFileBytes = maxFileBytes
	}
	if srv.hooks.progressBytes == 0 {
		srv.hooks.progressBytes = 8 << 20
	}
	// A large message counts in the memory budget from its header on (didOpen then counts its
	// text when it is decoded, and the budget follows what is held again).
	stream.OnBody(srv.memoryBudget)
	if h.onServer != nil {
		h.onServer(srv)
	}
	log.Info("ccdag language server started")
	return srv.conn.Run(ctx, srv.methods())
}

// newClientLogger returns the server's logger (given, else to --log-file or stderr at
// --log-level) and, when the log goes to stderr, the core that sends it to the client once
// attached (clientLog), else nil.
func newClientLogger(opts Options, given *zap.Logger) (*zap.Logger, *clientLog, func(), error) {
	if given != nil {
		return given, nil, func() {}, nil
	}
	level := zapcore.InfoLevel
	if opts.LogLevel != "" {
		if err := level.Set(opts.LogLevel); err != nil {
			return nil, nil, nil, err
		}
	}
	var w zapcore.WriteSyncer = zapcore.Lock(os.Stderr)
	closer := func() {}
	if opts.LogFile != "" {
		f, err := os.OpenFile(opts.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, nil, err
		}
		w = zapcore.Lock(f)
		closer = func() { f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), w, level)
	var cl *clientLog
	if opts.LogFile == "" {
		cl = newClientLog(core, level)
		core = cl
	}
	log := zap.New(core)
	return log, cl, func() { log.Sync(); closer() }, nil
}
