//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExportStateFIFOIsRefused: a --state naming a FIFO is refused before anything is sent, with or
// without --reset-state: the export waited on it for ever. (A device is refused the same way, not a
// regular file; it is not tried here: before, --reset-state renamed the state over it, and /dev/zero
// was read until memory ran out.)
func TestExportStateFIFOIsRefused(t *testing.T) {
	c, srv := newCollector(t, false)
	fifo := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	for _, reset := range []bool{false, true} {
		args := []string{"export", "--otlp", srv.URL, "--state", fifo, exportDemo}
		if reset {
			args = append(args, "--reset-state")
		}
		type result struct {
			errs string
			code int
		}
		done := make(chan result, 1)
		go func() {
			_, errs, code := run(t, args...)
			done <- result{errs, code}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(time.Minute): // only the defect waits: the refusal is at once
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close() // the reader sees the end and the test can end
			}
			r = <-done
			t.Errorf("%v: waited on the FIFO", args)
		}
		if _, n := c.received(); n != 0 || r.code != ExitUsage || !strings.Contains(r.errs, "not a regular file") || !strings.Contains(r.errs, "nothing sent") {
			t.Errorf("%v: code %d, %d spans sent; stderr:\n%s", args, r.code, n, r.errs)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%v: the FIFO was replaced: %v %v", args, fi, err) // the next case needs it
		}
	}
}
