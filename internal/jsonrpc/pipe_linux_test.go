package jsonrpc

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// The server's output pipe gets a 1 MiB buffer: a graph leaves in 2 writes, not 24.
func TestPipeGrown(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	NewSplitStream(r, w, w)
	n, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil || n != 1<<20 {
		t.Errorf("pipe buffer %d (%v), want 1 MiB", n, err)
	}
}
