package jsonrpc

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// tracer writes every message in and out to a file (--trace-file): a line with the time, the
// direction and the size, then the body, cut at traceMax bytes.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
}

const traceMax = 64 << 10

func (t *tracer) message(dir string, body []byte) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "[%s] %s %d bytes\n", time.Now().Format("15:04:05.000000"), dir, len(body))
	if len(body) > traceMax {
		t.w.Write(body[:traceMax])
		fmt.Fprintf(t.w, "… (%d more bytes)\n", len(body)-traceMax)
		return
	}
	t.w.Write(body)
	io.WriteString(t.w, "\n")
}
