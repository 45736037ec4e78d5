package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/ccdag/ccdag/internal/textsafe"
)

// errorf writes one line of a message to w (stderr) with what it carries escaped (textsafe.Printable):
// a file or folder name, an error naming one, holds whatever its creator put there, and a newline or
// a terminal escape in it must not forge a line nor drive the terminal. The format's final newline
// is the line's end.
func errorf(w io.Writer, format string, a ...any) {
	s := strings.TrimSuffix(fmt.Sprintf(format, a...), "\n")
	fmt.Fprintln(w, textsafe.Printable(s))
}
