package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ccdag/ccdag/internal/lsp"
	"github.com/ccdag/ccdag/internal/secrets"
)

func runServe(args []string, env Env) int {
	fset := newFlagSet("serve", env)
	var opts lsp.Options
	fset.StringVar(&opts.LogFile, "log-file", "", "write the server's log to PATH (default: stderr; never stdout)")
	fset.StringVar(&opts.LogLevel, "log-level", "info", "debug, info, warn or error")
	fset.StringVar(&opts.TraceFile, "trace-file", "", "write every JSON-RPC message in and out to PATH")
	fset.BoolVar(&opts.NoCache, "no-cache", false, "neither read nor write the history cache ($CCDAG_CACHE_DIR) for ccdag/sessions")
	fset.Bool("stdio", true, "serve on stdin/stdout (the only transport; accepted for VS Code's client)")
	if _, err := parseInterleaved(fset, args); err != nil {
		return usageError(env, err)
	}
	switch opts.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return usageError(env, errUnknownLevel(opts.LogLevel))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go secrets.Warm() // the rules' keywords read while the client starts, not on the first open
	return lsp.RunStdio(ctx, opts)
}

type errUnknownLevel string

func (e errUnknownLevel) Error() string {
	return "unknown --log-level " + string(e) + " (want debug, info, warn or error)"
}
