package check

import "github.com/ccdag/ccdag/internal/textsafe"

// Printable is textsafe.Printable, kept here while branches written against it are merged; new
// code calls textsafe.
func Printable(s string) string { return textsafe.Printable(s) }
