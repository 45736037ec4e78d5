package cli

import (
	"fmt"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/transcript"
)

// runTranscript writes the session as Markdown (docs/spec.md §7).
func runTranscript(args []string, env Env) int {
	fset := newFlagSet("transcript", env)
	outPath := fset.String("o", "", "write to FILE instead of standard output")
	all := fset.Bool("all-branches", false, "also render abandoned branches (marked)")
	noRedact := fset.Bool("no-redact", false, "show secrets (by default each is replaced by [REDACTED:<rule>])")
	priceFile := fset.String("prices", "", "price `FILE` in LiteLLM's format instead of the built-in table")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if !usePrices(*priceFile, env) {
		return ExitUsage
	}
	if len(paths) != 1 {
		return usageError(env, fmt.Errorf("transcript takes exactly one SESSION.jsonl"))
	}
	if fh, err := layout.Open(paths[0], ""); err != nil {
		errorf(env.Stderr, "ccdag: cannot read %s: %v\n", paths[0], unwrapPathErr(err))
		return ExitUsage
	} else {
		fh.Close()
	}
	sayNamedLinks(env, paths)
	s, err := loadSession(paths[0], *noRedact)
	if err != nil {
		errorf(env.Stderr, "ccdag: cannot read %s: %v\n", paths[0], unwrapPathErr(err))
		return ExitUsage
	}
	if len(s.Files) > 0 && s.Files[0].NotJSONL() {
		errorf(env.Stderr, "ccdag: %s is not a session log (not JSON Lines): no transcript\n", paths[0])
		return ExitUsage
	}
	res := transcript.Build(s, graph.Build(s), transcript.Options{AllBranches: *all})
	return writeOutput(env, *outPath, []byte(res.Markdown))
}
