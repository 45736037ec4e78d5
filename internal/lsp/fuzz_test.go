package lsp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/jsonrpc"
)

// msgSep splits a fuzz input into JSON-RPC messages.
var msgSep = []byte("\n\x1e\n")

func fuzzDoc() string {
	log, last := hostile.Turns("f", "", 2, 0)
	return string(log) + hostile.User("o", "nowhere", "orphan 😀") + "\n" + hostile.User("e", last, "end") + "\n"
}

// FuzzJSONRPC drives the whole server with messages made from fuzz input, after an initialize and a
// didOpen of a small session: each message is framed with a correct Content-Length (its body is
// the fuzz bytes), except those starting with '!', which go on the wire as they are (so headers and
// framing are fuzzed too). Whatever comes, no handler may panic (recovered panics are logged at
// error level and count as failures), and the server must still answer a request afterwards — or,
// when the raw bytes left the framing in an unknown state, end cleanly when the client leaves.
func FuzzJSONRPC(f *testing.F) {
	uri := "untitled:fuzz.jsonl"
	seeds := [][]string{
		{`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":1,"character":40}}}`},
		{`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":5},"end":{"line":2,"character":1}},"text":"😀\r\n{"}]}}`,
			`{"jsonrpc":"2.0","id":3,"method":"textDocument/definition","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":1,"character":20}}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"textDocument/references","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":0,"character":180},"context":{"includeDeclaration":true}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"` + uri + `"}}}`},
		{`{"jsonrpc":"2.0","id":6,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":"` + uri + `"}}}`,
			`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":6}}`},
		{`{"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"ccdag.workflowGraph","arguments":["` + uri + `"]}}`,
			`{"jsonrpc":"2.0","id":8,"method":"ccdag/sessionSummary","params":{"textDocument":{"uri":"` + uri + `"}}}`},
		{`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":9},"contentChanges":[{"text":"{\"uuid\":5}\n[1]\n"}]}}`,
			`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"` + uri + `"}}}`,
			`{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":0,"character":0}}}`},
		{`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"ccdag":{"severity":{"orphan":"error"}}}}}`},
		{`!Content-Length: 5` + "\r\n\r\n" + `{"a":`, `{"jsonrpc":"2.0","id":1e999,"method":"x"}`},
		{`{"jsonrpc":"2.0","id":10,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`},
	}
	for _, s := range seeds {
		f.Add([]byte(strings.Join(s, string(msgSep))))
	}
	doc := fuzzDoc()
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs := bytes.Split(data, msgSep)
		if len(msgs) > 40 {
			msgs = msgs[:40]
		}
		core, logs := observer.New(zapcore.ErrorLevel)
		a, b := net.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		code := make(chan int, 1)
		go func() { code <- serve(ctx, jsonrpc.NewStream(a), Options{}, hooks{log: zap.New(core)}) }()
		defer a.Close()
		// drain everything the server writes; report the sentinel's reply
		sentinel := make(chan struct{})
		go func() {
			r := bufio.NewReader(b)
			seen := false
			for {
				body, err := readFrame(r)
				if err != nil && err != errNoLength {
					return
				}
				if !seen && bytes.Contains(body, []byte(`"id":"fuzz-sentinel"`)) {
					seen = true
					close(sentinel)
				}
			}
		}()
		write := func(s []byte) bool {
			b.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, err := b.Write(s)
			return err == nil
		}
		frame := func(body []byte) bool {
			return write(append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...))
		}
		frame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
		frame([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
		frame([]byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"jsonl","version":1,"text":` + hostile.Q(doc) + `}}}`))
		raw, exited := false, false
		for _, m := range msgs {
			var ok bool
			if len(m) > 0 && m[0] == '!' {
				raw = true
				ok = write(m[1:])
			} else {
				ok = frame(m)
			}
			if !ok { // the server stopped reading: it must be because it exited
				exited = true
				break
			}
		}
		if !raw && !exited {
			frame([]byte(`{"jsonrpc":"2.0","id":"fuzz-sentinel","method":"ccdag/ping"}`))
			select {
			case <-sentinel:
			case c := <-code:
				exited = true
				if !bytes.Contains(data, []byte("exit")) {
					t.Fatalf("the server ended (code %d) without an exit", c)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the server no longer answers")
			}
		}
		b.Close()
		if !exited {
			select {
			case <-code:
			case <-time.After(10 * time.Second):
				t.Fatal("the server did not end when the client left")
			}
		}
		for _, e := range logs.All() {
			if strings.Contains(e.Message, "panic") {
				t.Fatalf("%s: %v", e.Message, e.ContextMap())
			}
		}
	})
}
