package lsp

import "github.com/ccdag/ccdag/internal/mdsafe"

// The hover's Markdown helpers live in mdsafe (shared with the transcript).
var (
	code         = mdsafe.Code
	fenced       = mdsafe.Fenced
	longestRun   = mdsafe.LongestRun
	oneLine      = mdsafe.OneLine
	shorten      = mdsafe.Shorten
	stringPrefix = mdsafe.StringPrefix
)
