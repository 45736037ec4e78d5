// Command ccdag reads Claude Code session logs: a language server and a command-line checker.
// Everything lives in internal/; see ARCHITECTURE.md.
package main

import (
	"os"

	"github.com/ccdag/ccdag/internal/cli"
)

func main() {
	fi, err := os.Stderr.Stat()
	tty := err == nil && fi.Mode()&os.ModeCharDevice != 0
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, StderrIsTTY: tty}))
}
