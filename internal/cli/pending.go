package cli

import "fmt"

// Replaced when internal/graph and internal/lsp land.
func runGraph(args []string, env Env) int {
	fmt.Fprintln(env.Stderr, "ccdag: graph is not built into this binary yet")
	return ExitUsage
}

func runServe(args []string, env Env) int {
	fmt.Fprintln(env.Stderr, "ccdag: serve is not built into this binary yet")
	return ExitUsage
}
