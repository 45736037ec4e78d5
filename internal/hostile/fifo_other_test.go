//go:build !unix

package hostile

import "errors"

// There are no FIFOs here: the tests that need one skip.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
