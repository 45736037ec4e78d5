package lsp

import "github.com/ccdag/ccdag/internal/mdsafe"

// Markdown and plain-text helpers of the outline and hints live in mdsafe (shared with the
// transcript and the hover text of internal/describe).
var (
	longestRun = mdsafe.LongestRun // markdown_test.go
	oneLine    = mdsafe.OneLine
	shorten    = mdsafe.Shorten
)
