package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/jsonrpc"
)

// Raw-JSON wire tests: bytes in, bytes out, compared as JSON values (so null is not [], a missing
// key is not a zero value). "*" in an expected message matches any string.

const initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`

const initResult = `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{
	"textDocumentSync":{"openClose":true,"change":2,"save":{"includeText":false}},
	"hoverProvider":true,"definitionProvider":true,"referencesProvider":true,"documentHighlightProvider":true,
	"documentSymbolProvider":true,"codeLensProvider":{},"workspaceSymbolProvider":true,"foldingRangeProvider":true,
	"codeActionProvider":{"codeActionKinds":["quickfix","source.fixAll.ccdag"]},
	"executeCommandProvider":{"commands":["ccdag.workflowGraph","ccdag.transcript","ccdag.parent"]},"inlayHintProvider":true},
	"serverInfo":{"name":"ccdag","version":"*"}}}`

func TestWireLifecycle(t *testing.T) {
	c := newWire(t, hooks{})
	// before initialize: requests get ServerNotInitialized, notifications are dropped
	c.frame(`{"jsonrpc":"2.0","id":0,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.jsonl"},"position":{"line":0,"character":0}}}`)
	c.expect(`{"jsonrpc":"2.0","id":0,"error":{"code":-32002,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.jsonl","languageId":"jsonl","version":1,"text":"{}\n"}}}`)
	c.frame(`{"jsonrpc":"2.0","id":"s1","method":"shutdown"}`)
	c.expect(`{"jsonrpc":"2.0","id":"s1","error":{"code":-32002,"message":"*"}}`)
	c.frame(initReq)
	c.expect(initResult)
	c.frame(initReq)
	c.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	// unknown request and notification
	c.frame(`{"jsonrpc":"2.0","method":"ccdag/noSuchNotification","params":{}}`)
	c.frame(`{"jsonrpc":"2.0","id":2,"method":"ccdag/noSuchMethod","params":{}}`)
	c.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"*"}}`)
	// a request for a document never opened
	c.frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///never.jsonl"},"position":{"line":0,"character":0}}}`)
	c.expect(`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`)
	c.expect(`{"jsonrpc":"2.0","id":4,"result":null}`)
	c.frame(`{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{}}`)
	c.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != 0 {
		t.Errorf("exit after shutdown: code %d, want 0", code)
	}
}

func TestWireShutdownParams(t *testing.T) {
	for _, params := range []string{``, `,"params":null`, `,"params":{}`, `,"params":[]`} {
		c := newWire(t, hooks{})
		c.frame(initReq)
		c.reply()
		c.frame(`{"jsonrpc":"2.0","id":9,"method":"shutdown"` + params + `}`)
		c.expect(`{"jsonrpc":"2.0","id":9,"result":null}`)
		c.frame(`{"jsonrpc":"2.0","method":"exit"` + params + `}`)
		if code := c.exit(); code != 0 {
			t.Errorf("shutdown%s then exit: code %d", params, code)
		}
	}
}

func TestWireExitWithoutShutdown(t *testing.T) {
	c := newWire(t, hooks{})
	c.frame(initReq)
	c.reply()
	c.frame(`{"jsonrpc":"2.0","method":"exit","params":{}}`)
	if code := c.exit(); code != 1 {
		t.Errorf("exit without shutdown: code %d, want 1", code)
	}
	// before initialize too
	c = newWire(t, hooks{})
	c.frame(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != 1 {
		t.Errorf("exit before initialize: code %d, want 1", code)
	}
	// the stream ends without exit
	c = newWire(t, hooks{})
	c.frame(initReq)
	c.reply()
	c.conn.Close()
	if code := c.exit(); code != 1 {
		t.Errorf("end of input without shutdown: code %d, want 1", code)
	}
}

func TestWireCancelSlowRequest(t *testing.T) {
	entered, release := make(chan struct{}, 4), make(chan struct{})
	c := newWire(t, hooks{beforeGraph: func() { entered <- struct{}{}; <-release }})
	defer close(release)
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	c.frame(initReq)
	c.reply()
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "jsonl", "version": 1, "text": text}}})
	c.frame(string(open))
	for _, id := range []string{`7`, `"req-8"`} {
		c.frame(`{"jsonrpc":"2.0","id":` + id + `,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":"` + uri + `"}}}`)
		select { // the graph is being built, and stays so until released
		case <-entered:
		case <-time.After(waitLimit):
			t.Fatal("the graph was never built")
		}
		// the server still reads and answers while the slow work runs
		c.frame(`{"jsonrpc":"2.0","id":100,"method":"ccdag/noSuchMethod"}`)
		c.expect(`{"jsonrpc":"2.0","id":100,"error":{"code":-32601,"message":"*"}}`)
		c.frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)
		c.expect(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32800,"message":"*"}}`)
		release <- struct{}{}
		// an edit, so that the next request builds a new graph
		c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"\n"}]}}`)
	}
	// cancelling what is not running: nothing happens, and the next request is answered
	c.frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":987654}}`)
	c.frame(`{"jsonrpc":"2.0","id":11,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":999,"character":0}}}`)
	c.expect(`{"jsonrpc":"2.0","id":11,"result":null}`)
}

func TestWireIDsAndMalformedMessages(t *testing.T) {
	c := newWire(t, hooks{})
	c.frame(initReq)
	c.reply()
	for _, id := range []string{`2147483647`, `-3`, `1099511627776`, `1.5`, `1e3`, `""`, `"a\"b"`, `"\u00e9"`, `null`} {
		c.frame(`{"jsonrpc":"2.0","id":` + id + `,"method":"ccdag/noSuchMethod"}`)
		got := c.reply()
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601`) {
			t.Errorf("id %s answered as %s", id, got)
		}
	}
	// not JSON; a batch; no method; a method that is not a string; garbage headers: each answered
	// (or dropped), and the server goes on
	c.frame(`{"jsonrpc":"2.0","id":1,"method":`)
	c.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"*"}}`)
	c.frame(`[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`)
	c.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","id":12}`)
	c.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","id":13,"method":5}`)
	c.expect(`{"jsonrpc":"2.0","id":13,"error":{"code":-32600,"message":"*"}}`)
	c.write("X-Junk\r\nContent-Length: abc\r\n\r\n")
	c.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","id":14,"method":"textDocument/hover","params":{"textDocument":5}}`)
	c.expect(`{"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"*"}}`)
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nope.jsonl"},"contentChanges":"x"}}`)
	c.frame(`{"jsonrpc":"2.0","id":15,"method":"shutdown"}`)
	c.expect(`{"jsonrpc":"2.0","id":15,"result":null}`)
}

// didOpen, a change without a range, positions past the end of a line and of the file, a negative
// position: diagnostics on the wire.
func TestWireTextSync(t *testing.T) {
	c := newWire(t, hooks{})
	c.frame(initReq)
	c.reply()
	uri := "untitled:wire-1.jsonl"
	rec := func(uuid, parent string) string {
		return fmt.Sprintf(`{\"type\":\"user\",\"uuid\":\"%s\",\"parentUuid\":%s,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}`, uuid, parent)
	}
	diag := func(version int, body string) string {
		return `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"` + uri + `","version":` + strconv.Itoa(version) + `,"diagnostics":[` + body + `]}}`
	}
	orphan := func(line, from, to int, parent string) string {
		return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"severity":2,"code":"orphan","source":"ccdag","message":"*"}`, line, from, line, to)
	}
	expectNote := func(want string) {
		t.Helper()
		got := c.next()
		if !jsonMatch(t, got, want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"jsonl","version":0,"text":"` + rec("a", "null") + `\n"}}}`)
	expectNote(diag(0, ``)) // version 0 is sent (the library would drop it), the list is [] not null
	// a change without a range replaces everything
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":5},"contentChanges":[{"text":"` + rec("b", `\"zz\"`) + `\n"}]}}`)
	col := len(`{"type":"user","uuid":"b","parentUuid":`)
	expectNote(diag(5, orphan(0, col, col+4, "zz")))
	// past the end of the line (character 999) and of the file (line 99): clamped, the record is
	// appended after the last line
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":6},"contentChanges":[{"range":{"start":{"line":99,"character":999},"end":{"line":99,"character":999}},"text":"` + rec("c", `\"b\"`) + `\n"}]}}`)
	expectNote(diag(6, orphan(0, col, col+4, "zz")))
	// a negative position counts as 0: this inserts at the very start
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":7},"contentChanges":[{"range":{"start":{"line":-1,"character":-5},"end":{"line":0,"character":-1}},"text":"` + rec("d", `\"qq\"`) + `\n"}]}}`)
	expectNote(diag(7, orphan(0, col, col+4, "qq")+","+orphan(1, col, col+4, "zz")))
	// hover past the end of a line lands on that line's record; past the file on nothing
	c.frame(`{"jsonrpc":"2.0","id":20,"method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":2,"character":9999}}}`)
	if got := c.reply(); !strings.Contains(got, "**uuid:** `c`") {
		t.Errorf("hover past the end of line 2: %s", got)
	}
	c.frame(`{"jsonrpc":"2.0","id":21,"method":"textDocument/definition","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":4000000000,"character":0}}}`)
	c.expect(`{"jsonrpc":"2.0","id":21,"result":null}`)
	c.frame(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"` + uri + `"}}}`)
	expectNote(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"` + uri + `","diagnostics":[]}}`)
}

// Notifications sent as requests are answered (null), so that a confused client does not hang.
func TestWireNotificationAsRequest(t *testing.T) {
	c := newWire(t, hooks{})
	c.frame(initReq)
	c.reply()
	c.frame(`{"jsonrpc":"2.0","id":30,"method":"initialized","params":{}}`)
	c.expect(`{"jsonrpc":"2.0","id":30,"result":null}`)
	c.frame(`{"jsonrpc":"2.0","id":31,"method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:n.jsonl","languageId":"jsonl","version":1,"text":"{}\n"}}}`)
	c.expect(`{"jsonrpc":"2.0","id":31,"result":null}`)
	c.frame(`{"jsonrpc":"2.0","id":32,"method":"workspace/didChangeConfiguration","params":{"settings":null}}`)
	c.expect(`{"jsonrpc":"2.0","id":32,"result":null}`)
	c.frame(`{"jsonrpc":"2.0","id":33,"method":"$/cancelRequest","params":{"id":1}}`)
	c.expect(`{"jsonrpc":"2.0","id":33,"result":null}`)
}

// --trace-file gets every message in and out; --log-file the log (never stdout).
func TestTraceAndLogFiles(t *testing.T) {
	dir := t.TempDir()
	trace, logf := dir+"/trace.txt", dir+"/server.log"
	a, b := net.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Serve(context.Background(), jsonrpc.NewStream(a), Options{TraceFile: trace, LogFile: logf, LogLevel: "debug"})
	}()
	c := &raw{t: t, conn: b, r: bufio.NewReader(b), code: done}
	c.frame(initReq)
	c.reply()
	c.frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	c.reply()
	c.frame(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	tr, _ := os.ReadFile(trace)
	for _, w := range []string{"recv", "send", `"method":"initialize"`, `"serverInfo"`, `"method":"exit"`} {
		if !strings.Contains(string(tr), w) {
			t.Errorf("trace lacks %q:\n%s", w, tr)
		}
	}
	if lg, _ := os.ReadFile(logf); !strings.Contains(string(lg), "language server started") {
		t.Errorf("log file: %q", lg)
	}
	// an unknown level is refused, with exit code 2
	if code := Serve(context.Background(), jsonrpc.NewStream(a), Options{LogLevel: "loud"}); code != 2 {
		t.Errorf("unknown log level: code %d", code)
	}
}
