package lsp

// Protocol abuse (issue 5): malformed frames and bodies, wrong Content-Length, ids of every JSON
// type, unknown methods, documents never opened, positions out of range, stale and closed-document
// changes, inverted ranges, a 100 MB didOpen, a burst of 10 000 changes, cancellation of every
// request kind, a client that vanishes mid-request, and hover markdown that log text cannot
// inject into. Each case ends by checking that the server still answers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/hostile"
	"github.com/ccdag/ccdag/internal/jsonrpc"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// A wrong Content-Length (too short, too long) costs the messages it cuts through, then the server
// finds the next frame again and answers.
func TestAbuseWrongContentLength(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":50,"method":"ccdag/ping"}`
	for _, delta := range []int{-10, +25} {
		c := initRaw(t, hooks{})
		c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(ping)+delta, ping))
		c.frame(`{"jsonrpc":"2.0","id":51,"method":"ccdag/ping"}`)
		c.frame(`{"jsonrpc":"2.0","id":52,"method":"ccdag/ping"}`)
		lost := 0
		answered := false
		for id := 53; id < 58 && !answered; id++ { // a few more messages, each a chance to resynchronise
			var junk []string
			junk, answered = c.answeredWithin(id, 2*time.Second)
			lost += len(junk)
		}
		if !answered {
			t.Fatalf("after one Content-Length off by %d, the server never answers again while messages keep coming back to back: "+
				"the rest of the cut frame and the next header run together on one line, which is not read as a header (fix: find \"Content-Length:\" anywhere in a header line)", delta)
		}
		t.Logf("Content-Length off by %d: %d error replies before the server resynchronised", delta, lost)
	}
}

// Headers of every form; unusable lengths are answered with an error and reading goes on.
func TestAbuseHeaders(t *testing.T) {
	c := initRaw(t, hooks{})
	// Header variants: lower case, no space, extra headers, LF only, stray blank lines, junk
	// header lines, a duplicate header (the last wins), leading zeros.
	body := `{"jsonrpc":"2.0","id":60,"method":"ccdag/ping"}`
	for i, hdr := range []string{
		"content-length: %d\r\n\r\n",
		"Content-Length:%d\r\n\r\n",
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
		"Content-Length: %d\n\n",
		"\r\n\r\nContent-Length: %d\r\n\r\n",
		"X-Junk-Without-Colon\r\nContent-Length: %d\r\n\r\n",
		"Content-Length: 3\r\nContent-Length: %d\r\n\r\n",
		"Content-Length: 000%d\r\n\r\n",
	} {
		b := strings.Replace(body, "60", strconv.Itoa(60+i), 1)
		c.write(fmt.Sprintf(hdr, len(b)) + b)
		c.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"*"}}`, 60+i))
	}

	// Lengths that are not usable: negative, not a number, empty, zero, beyond int64.
	for _, hdr := range []string{"Content-Length: -5\r\n\r\n", "Content-Length: 12x\r\n\r\n", "Content-Length:\r\n\r\n",
		"Content-Length: 0\r\n\r\n", "Content-Length: 99999999999999999999999\r\n\r\n", "Junk: 1\r\n\r\n"} {
		c.write(hdr)
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if got := c.reply(); json.Unmarshal([]byte(got), &m) != nil || string(m.ID) != "null" || m.Error == nil || m.Error.Code >= 0 {
			t.Errorf("header %q answered with %s", hdr, got)
		}
	}
	// A 64 KiB header line is dropped whole.
	c.write("X-Long: " + strings.Repeat("a", 200<<10) + "\r\n")
	c.frame(`{"jsonrpc":"2.0","id":70,"method":"ccdag/ping"}`)
	c.expect(`{"jsonrpc":"2.0","id":70,"error":{"code":-32601,"message":"*"}}`)
	c.alive(71)
}

func TestAbuseBodies(t *testing.T) {
	c := initRaw(t, hooks{})
	bodies := []string{
		`{`, `}`, `null`, `5`, `"str"`, `[]`, `[1,2]`, `{}`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"id":1,"method":"ccdag/ping","params":5}`, `{"id":2,"method":"textDocument/hover","params":"x"}`,
		`{"id":3,"method":"textDocument/hover","params":[1,2]}`, `{"id":4,"method":"textDocument/hover","params":null}`,
		`{"id":5,"method":"textDocument/hover"}`, `{"method":"textDocument/didOpen","params":{"textDocument":{"uri":5}}}`,
		`{"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.jsonl","text":7}}}`,
		`{"method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.jsonl"},"contentChanges":[{"range":"x","text":"y"}]}}`,
		"\xff\xfe\x00\x01", `{"id":6,"method":"ccdag/ping","params":{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`,
		`{"id":7,"method":"textDocument/hover","params":` + strings.Repeat(`{"a":`, 50000) + `1` + strings.Repeat("}", 50000) + `}`,
		`{"id":8,"method":"ccdag/ping","id":9}`, `{"id":10,"method":"initialize","params":{}}`,
		`{"id":11,"result":{}}`, `{"id":12,"error":{"code":1,"message":"x"}}`, `{"id":"zz","result":null}`,
		`{"id":13,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":{"x":1}}}}`,
		`{"id":14,"method":"workspace/executeCommand","params":{"command":"ccdag.workflowGraph","arguments":[5,null]}}`,
		`{"id":15,"method":"workspace/executeCommand","params":{"command":"rm -rf /","arguments":["file:///x"]}}`,
		`{"id":16,"method":"workspace/executeCommand","params":{"command":"ccdag.workflowGraph"}}`,
		`{"id":17,"method":"workspace/didChangeConfiguration","params":{"settings":{"ccdag":{"severity":{"orphan":"boom","nope":"error"}}}}}`,
		`{"method":"workspace/didChangeConfiguration","params":{"settings":[1,2,3]}}`,
		`{"method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"file:///etc/passwd","type":1},{"uri":5,"type":"x"}]}}`,
		`{"method":"$/cancelRequest","params":{"id":{"x":1}}}`, `{"method":"$/cancelRequest","params":5}`, `{"method":"$/cancelRequest"}`,
		`{"method":"$/setTrace","params":{"value":"verbose"}}`, `{"method":"$/unknownNotification","params":[1]}`,
		`{"id":18,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///never.jsonl"}}}`,
		`{"id":19,"method":"textDocument/references","params":{"textDocument":{"uri":"file:///never.jsonl"},"position":{"line":0,"character":0},"context":{"includeDeclaration":true}}}`,
		`{"id":20,"method":"ccdag/sessionSummary","params":{"textDocument":{"uri":"untitled:never"}}}`,
	}
	for i, b := range bodies {
		c.frame(b)
		if i%7 == 6 {
			c.alive(1000 + i)
		}
	}
	c.alive(2000)
}

func TestAbuseIDsOfEveryType(t *testing.T) {
	c := initRaw(t, hooks{})
	hugeNum := "9" + strings.Repeat("0", 10000)
	hugeStr := `"` + strings.Repeat("x", 1<<20) + `"`
	for _, id := range []string{`0`, `-0`, `-1`, `2147483648`, `-2147483649`, `9223372036854775808`, hugeNum, `1E400`, `-1e-400`,
		`0.0`, `3.25`, `""`, `"1"`, `" "`, `"\u0000ccdag-id:1"`, `"\ud800"`, `"😀"`, hugeStr, `null`, `true`, `false`, `{}`, `{"a":[1]}`, `[]`, `[1,"x"]`} {
		c.frame(`{"jsonrpc":"2.0","id":` + id + `,"method":"ccdag/noSuchMethod"}`)
		got := c.reply()
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatalf("id %.40s: reply is not JSON: %.200s", id, got)
		}
		if !bytes.Equal(m["id"], []byte(id)) {
			t.Errorf("id %.40s answered with id %.40s", id, m["id"])
		}
		if m["error"] == nil {
			t.Errorf("id %.40s: no error in %.200s", id, got)
		}
	}
	// The same ids on a real request are answered with results.
	for _, id := range []string{hugeNum, `"\u0000ccdag-id:7"`, `{"a":1}`, `1.5`} {
		c.frame(`{"jsonrpc":"2.0","id":` + id + `,"method":"textDocument/hover","params":{"textDocument":{"uri":"untitled:none"},"position":{"line":0,"character":0}}}`)
		got := c.reply()
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(got), &m)
		if !bytes.Equal(m["id"], []byte(id)) {
			t.Errorf("hover with id %.40s answered with id %.40s", id, m["id"])
		}
	}
	if n := idCount(c.srv); n != 0 {
		t.Errorf("%d synthetic ids remembered after every request was answered (a leak)", n)
	}
	c.alive(1)
}

func idCount(srv *server) int {
	ids, _ := srv.stream.Held()
	return ids
}

// A big unknown notification or a big request before initialize must not leave its params behind.
func TestAbuseBigParamsAreNotKept(t *testing.T) {
	c := newAbuse(t, hooks{}, false)
	big := `"` + strings.Repeat("p", 200<<10) + `"`
	c.frame(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"x":` + big + `}}`) // before initialize
	c.reply()
	c.frame(initReq)
	c.reply()
	for i := 0; i < 20; i++ {
		c.frame(`{"jsonrpc":"2.0","method":"$/noSuchNotification","params":{"x":` + big + `}}`)
		c.frame(`{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"ccdag/noSuchMethod","params":{"x":` + big + `}}`)
		c.frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1,"x":` + big + `}}`)
	}
	c.alive(99)
	if _, n := c.srv.stream.Held(); n != 0 {
		t.Errorf("%d big params kept after their messages were handled", n)
	}
}

// Every request kind on a document never opened, on URIs of every shape: an error or an empty
// result, and the server goes on. A document that is not open is never read from a path that is
// not a session log.
func TestAbuseNeverOpened(t *testing.T) {
	c := initRaw(t, hooks{})
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte(`{"type":"user","uuid":"SECRET-CONTENT","message":{"content":"SECRET-CONTENT"}}`+"\n"), 0o600)
	uris := []string{"file:///never/opened.jsonl", "untitled:x", "", "file://", "file://remote-host/x.jsonl", "http://example.com/x.jsonl",
		"file:///%00", "file:///" + strings.Repeat("a/", 3000) + "x.jsonl", "not a uri at all", "file:///dev/zero", pathToURI(dir), pathToURI(secret)}
	id := 100
	leaked := ""
	for _, u := range uris {
		qu, _ := json.Marshal(u)
		for _, req := range []string{
			`"textDocument/hover","params":{"textDocument":{"uri":%s},"position":{"line":0,"character":0}}`,
			`"textDocument/definition","params":{"textDocument":{"uri":%s},"position":{"line":0,"character":0}}`,
			`"textDocument/references","params":{"textDocument":{"uri":%s},"position":{"line":0,"character":0},"context":{"includeDeclaration":false}}`,
			`"textDocument/documentSymbol","params":{"textDocument":{"uri":%s}}`,
			`"ccdag/workflowGraph","params":{"textDocument":{"uri":%s}}`,
			`"ccdag/sessionSummary","params":{"textDocument":{"uri":%s}}`,
			`"workspace/executeCommand","params":{"command":"ccdag.workflowGraph","arguments":[%s]}`,
		} {
			id++
			c.frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":`+req+`}`, id, qu))
			got := c.reply()
			if !strings.Contains(got, fmt.Sprintf(`"id":%d,`, id)) {
				t.Fatalf("reply to %d: %.300s", id, got)
			}
			if strings.Contains(got, "SECRET-CONTENT") {
				leaked = fmt.Sprintf("a request about %s (never opened, not a .jsonl) returned the file's content: %.200s", u, got)
			}
		}
		c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":` + string(qu) + `,"version":3},"contentChanges":[{"text":"x"}]}}`)
		c.frame(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":` + string(qu) + `}}}`)
	}
	c.alive(1)
	if leaked != "" {
		t.Errorf("%s. docs/spec.md §5: the server reads only where a session's files live; a graph or summary of a document that is not open should be read only from a .jsonl path", leaked)
	}
}

// Positions of every shape for every positional request.
func TestAbusePositions(t *testing.T) {
	c := initRaw(t, hooks{})
	_, uri, text := fixture(t, "utf16/33333333-3333-4333-8333-333333333333.jsonl")
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "jsonl", "version": 1, "text": text}}})
	c.frame(string(open))
	id := 10
	for _, p := range []string{`{"line":-1,"character":-1}`, `{"line":0,"character":-2147483648}`, `{"line":2147483647,"character":0}`,
		`{"line":0,"character":9007199254740993}`, `{"line":1e308,"character":1e308}`, `{"line":0.5,"character":1.5}`,
		`{"line":"1","character":"2"}`, `{"line":null,"character":null}`, `{}`, `[]`, `null`, `5`, `{"line":1,"character":3,"extra":[1]}`} {
		for _, m := range []string{"textDocument/hover", "textDocument/definition", "textDocument/references"} {
			id++
			c.frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"textDocument":{"uri":%q},"position":%s,"context":{"includeDeclaration":true}}}`, id, m, uri, p))
			got := c.reply()
			for strings.Contains(got, `"method"`) {
				got = c.reply()
			}
			if !strings.Contains(got, fmt.Sprintf(`"id":%d,`, id)) {
				t.Fatalf("%s at %s: %.300s", m, p, got)
			}
		}
	}
	// every character of every line, in UTF-16 units and beyond: hover never fails
	lines := strings.Split(text, "\n")
	for l := range lines {
		for ch := 0; ch <= utf16Len(lines[l])+2; ch += 1 + ch/8 {
			id++
			c.frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}}`, id, uri, l, ch))
			got := c.reply()
			if strings.Contains(got, `"error"`) {
				t.Fatalf("hover at %d:%d: %.300s", l, ch, got)
			}
		}
	}
	c.alive(1)
}

// applyRef applies an LSP change to text the obvious way (the client's view of the document).
// Negative coordinates are invalid LSP; each is taken as 0 on its own (line -1, character 5 is
// line 0, character 5), as the server reads them.
func applyRef(text []byte, rng *rng, repl string) []byte {
	if rng == nil {
		return []byte(repl)
	}
	off := func(p pos) int {
		lines := bytes.SplitAfter(text, []byte("\n"))
		if len(text) == 0 {
			return 0
		}
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		p.Line, p.Character = max(p.Line, 0), max(p.Character, 0) // each clamped on its own, as the server does
		if p.Line >= len(lines) {
			return len(text)
		}
		start := 0
		for _, l := range lines[:p.Line] {
			start += len(l)
		}
		content := bytes.TrimSuffix(bytes.TrimSuffix(lines[p.Line], []byte("\n")), []byte("\r"))
		units, i := 0, 0
		for _, r := range string(content) {
			n := 1
			if r >= 0x10000 {
				n = 2
			}
			if units+n > max(p.Character, 0) {
				break
			}
			units += n
			i += len(string(r))
		}
		return start + min(i, len(content))
	}
	a, b := off(rng.Start), off(rng.End)
	if a > b {
		a, b = b, a
	}
	return slices.Concat(text[:a], []byte(repl), text[b:])
}

// freshDiags is what a fresh parse of text says, as diagnostics of a document at uri.
func freshDiags(uri string, text []byte) []string {
	path, ok := uriToPath(uri)
	if !ok {
		path = uri
	}
	s := session.New("fresh", filepath.Dir(path))
	f := session.NewFile(path, slices.Clone(text))
	s.AddFile(f)
	var out []string
	fs := check.New(s).File(f, nil)
	resume.Annotate(fs, func() *resume.Result { return resume.Compute(s) }) // as the server does
	for _, fd := range fs {
		r := spanRange(f, fd.Line, fd.Span.Start, fd.Span.End)
		out = append(out, fmt.Sprintf("%d:%d-%d:%d %s %s", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, fd.Code, fd.Message))
	}
	slices.Sort(out)
	return out
}

func wireDiags(ds []diagnostic) []string {
	var out []string
	for _, d := range ds {
		r := d.Range
		out = append(out, fmt.Sprintf("%d:%d-%d:%d %s %s", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, d.Code, d.Message))
	}
	slices.Sort(out)
	return out
}

// didChange for closed documents and with stale versions, inverted ranges, ranges past the end,
// edits splitting surrogate pairs and CRLF: the server's text stays the client's, and its
// diagnostics are those of a fresh parse of that text.
func TestAbuseDidChange(t *testing.T) {
	c := newClient(t, clientOpt{})
	uri := "untitled:abuse-change.jsonl"
	text := []byte(hostile.User("a", "", "hi 😀 中") + "\r\n" + hostile.ToolUse("b", "a", "m", "t1", "Read", "") + "\n")
	c.open(uri, string(text), 1)
	c.diagsAt(uri, 1)
	rnd := rand.New(rand.NewPCG(1, 2))
	version := int32(1)
	pieces := []string{"", "\n", "\r\n", "😀", "x", hostile.ToolResult("c", "b", "t1", "ok", "") + "\n", `"parentUuid":"zz"`, "}", hostile.User("d", "nope", "q") + "\n"}
	for i := 0; i < 300; i++ {
		version++
		r := &rng{Start: pos{rnd.IntN(6) - 1, rnd.IntN(400) - 5}, End: pos{rnd.IntN(6) - 1, rnd.IntN(400) - 5}} // inverted, negative, past the end
		if i%37 == 0 {
			r = nil
		}
		piece := pieces[rnd.IntN(len(pieces))]
		text = applyRef(text, r, piece)
		if r == nil {
			c.change(uri, version, map[string]any{"text": piece})
		} else {
			c.change(uri, version, edit(*r, piece))
		}
		if i%50 == 0 {
			version -= 10 // a stale version: the change still applies (the client's text is what it is)
		}
	}
	got := wireDiags(c.diagsAt(uri, version))
	if want := freshDiags(uri, text); !slices.Equal(got, want) {
		t.Fatalf("after 300 abusive changes the diagnostics differ from a fresh parse:\n got  %q\n want %q", got, want)
	}
	// closed: changes to it are ignored, requests fail cleanly; reopening starts from its new text
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.change(uri, version+1, map[string]any{"text": "junk"})
	var h json.RawMessage
	if err := c.call("textDocument/hover", tdp(uri, at(0, 0)), &h); err == nil && string(h) != "null" {
		t.Errorf("hover on a closed document: %s", h)
	}
	c.open(uri, string(text), 900)
	if got := wireDiags(c.diagsAt(uri, 900)); !slices.Equal(got, freshDiags(uri, text)) {
		t.Fatalf("reopened: %q", got)
	}
	// opened twice without a close: the second text wins (one line, not an object: not JSON Lines)
	c.open(uri, "[1]\n", 901)
	if got := wireDiags(c.diagsAt(uri, 901)); len(got) != 1 || !strings.Contains(got[0], "not-jsonl") {
		t.Fatalf("opened twice: %q", got)
	}
}

// 10 000 didChanges in a burst (one record appended per change, an edit now and then): the
// server keeps up, publishes the last version, and agrees with a fresh parse.
func TestAbuseChangeBurst(t *testing.T) {
	c := newClient(t, clientOpt{})
	uri := "untitled:burst.jsonl"
	text := []byte(hostile.User("r0", "", "start") + "\n")
	c.open(uri, string(text), 0)
	c.diagsAt(uri, 0)
	start := time.Now()
	lines := 1
	for v := int32(1); v <= 10_000; v++ {
		rec := hostile.Assistant(fmt.Sprintf("r%d", v), fmt.Sprintf("r%d", v-1), "m", "burst 😀")
		r := rng{Start: at(lines, 0), End: at(lines, 0)}
		piece := rec + "\n"
		if v%1000 == 0 { // break a parent in the middle of the file
			r = rng{Start: at(lines/2, 0), End: at(lines/2, 0)}
			piece = hostile.User(fmt.Sprintf("x%d", v), "missing", "inserted") + "\n"
		}
		if v%1000 == 0 {
			text = applyRef(text, &r, piece)
		} else {
			text = append(text, piece...) // line `lines` is the end of the text
		}
		c.change(uri, v, edit(r, piece))
		lines++
	}
	got := wireDiags(c.diagsAt(uri, 10_000))
	t.Logf("10 000 changes sent and the last one's diagnostics received in %v (%d publications in all)", time.Since(start), c.publications(uri))
	if want := freshDiags(uri, text); !slices.Equal(got, want) {
		t.Fatalf("after the burst: %d diagnostics, a fresh parse has %d:\n got  %.500q\n want %.500q", len(got), len(want), got, want)
	}
	if h := c.hoverText(uri, at(5000, 3)); !strings.Contains(h, "Parent") {
		t.Errorf("hover after the burst: %q", h)
	}
}

// A 100 MB didOpen: parsed, diagnosed, hovered; and its memory goes when it is closed.
func TestAbuseHundredMegabyteDidOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	base := liveHeap()
	c := newClient(t, clientOpt{})
	text := hostileGen(100 << 20)
	uri := "untitled:huge.jsonl"
	start := time.Now()
	c.open(uri, string(text), 1)
	ds := c.diagsAt(uri, 1)
	t.Logf("100 MB didOpen: diagnostics after %v (%d of them); live heap %d MB over the baseline", time.Since(start), len(ds), (liveHeap()-base)>>20)
	if len(ds) != 1 || ds[0].Code != "orphan" {
		t.Fatalf("diagnostics: %+v", ds)
	}
	if h := c.hoverText(uri, at(1000, 5)); !strings.Contains(h, "Parent") {
		t.Errorf("hover in the big document: %q", h)
	}
	var g json.RawMessage
	c.mustCall("ccdag/workflowGraph", map[string]any{"textDocument": map[string]any{"uri": uri}}, &g)
	text, g = nil, nil
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.await("diagnostics cleared", func() bool {
		ps := c.diags[uri]
		return len(ps) > 1 && len(ps[len(ps)-1].Diagnostics) == 0
	})
	c.mu.Lock()
	c.notes, c.diags = nil, map[string][]publishParams{}
	c.mu.Unlock()
	c.call("ccdag/ping", nil, nil) // the close has been handled by now (one reader, in order)
	after := waitHeapBelow(base + 64<<20)
	t.Logf("after close: live heap %d MB over the baseline", (after-base)>>20)
	if after > base+64<<20 {
		t.Errorf("closing the 100 MB document left %d MB live", (after-base)>>20)
	}
}

// hostileGen writes a log of about n bytes: a chain of realistic turns, one orphan.
func hostileGen(n int) []byte {
	log, last := hostile.Turns("big", "", n/6000, 6000)
	return append(log, []byte(hostile.User("orph", "nowhere", "x")+"\n"+hostile.User("end", last, "end")+"\n")...)
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// waitHeapBelow collects garbage until the live heap is below limit or a few seconds pass (the
// session's worker may still be finishing its last job); it returns the last reading.
func waitHeapBelow(limit uint64) uint64 {
	deadline := time.Now().Add(10 * time.Second)
	for {
		h := liveHeap()
		if h <= limit || time.Now().After(deadline) {
			return h
		}
		time.Sleep(50 * time.Millisecond) // polling the heap: there is no event to wait for
	}
}

// A request whose id is a whole number written with a fraction (7.0) is cancelled by that id in
// either form, and the reply carries the id as the client wrote it.
func TestAbuseCancelFractionalID(t *testing.T) {
	entered := make(chan struct{}, 10)
	release := make(chan struct{})
	defer close(release)
	c := initRaw(t, hooks{beforeGraph: func() {
		entered <- struct{}{}
		<-release
	}})
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "jsonl", "version": 1, "text": text}}})
	c.frame(string(open))
	<-entered // the graph built behind the first diagnostics
	release <- struct{}{}
	for i, pair := range [][2]string{{"7.0", "7"}, {"8", "8.0"}, {"9.0", "9.0"}} {
		c.frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":` + strconv.Itoa(i+2) + `},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"\n"}]}}`)
		c.frame(`{"jsonrpc":"2.0","id":` + pair[0] + `,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":"` + uri + `"}}}`)
		<-entered // the request is running: only a cancellation can answer it now
		c.frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + pair[1] + `}}`)
		c.expect(`{"jsonrpc":"2.0","id":` + pair[0] + `,"error":{"code":-32800,"message":"request cancelled"}}`)
		release <- struct{}{}
	}
}

// Cancellation of every request kind, before and while it runs: exactly one reply per id, either
// the result or RequestCancelled, and the server goes on.
func TestAbuseCancelEveryKind(t *testing.T) {
	entered := make(chan struct{}, 100)
	release := make(chan struct{})
	c := initRaw(t, hooks{beforeGraph: func() {
		entered <- struct{}{}
		<-release
	}})
	_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "jsonl", "version": 1, "text": text}}})
	c.frame(string(open))
	kinds := []string{
		`"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":2,"character":5}}`,
		`"textDocument/definition","params":{"textDocument":{"uri":%q},"position":{"line":3,"character":20}}`,
		`"textDocument/references","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":20},"context":{"includeDeclaration":true}}`,
		`"textDocument/documentSymbol","params":{"textDocument":{"uri":%q}}`,
		`"ccdag/sessionSummary","params":{"textDocument":{"uri":%q}}`,
		`"ccdag/workflowGraph","params":{"textDocument":{"uri":%q}}`,
		`"workspace/executeCommand","params":{"command":"ccdag.workflowGraph","arguments":[%q]}`,
		`"ccdag/noSuchMethod","params":{"x":%q}`,
	}
	replies := map[string]int{}
	var ids []string
	for i, k := range kinds {
		for j, idForm := range []string{`%d`, `"c-%d"`, `%d.0`} {
			id := fmt.Sprintf(idForm, 100+10*i+j)
			ids = append(ids, id)
			c.frame(`{"jsonrpc":"2.0","id":` + id + `,"method":` + fmt.Sprintf(k, uri) + `}`)
			c.frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)
		}
	}
	go func() { // let every graph build that starts run to its end
		for range entered {
			release <- struct{}{}
		}
	}()
	defer close(entered)
	// Sentinels: a hover queued on the session after every job above (its worker runs them in
	// order), and a ping on the read loop. When both are answered, every earlier reply, duplicates
	// included, has been written.
	c.frame(`{"jsonrpc":"2.0","id":"sentinel-hover","method":"textDocument/hover","params":{"textDocument":{"uri":"` + uri + `"},"position":{"line":0,"character":0}}}`)
	c.frame(`{"jsonrpc":"2.0","id":"sentinel-ping","method":"ccdag/ping"}`)
	for replies[`"sentinel-hover"`] == 0 || replies[`"sentinel-ping"`] == 0 {
		m, ok := c.nextOK()
		if !ok {
			t.Fatal("the server closed the connection")
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal([]byte(m), &msg)
		if msg.Method == "" {
			replies[string(msg.ID)]++
			if msg.Error != nil && msg.Error.Code != int(jsonrpc.RequestCancelled) && msg.Error.Code != -32601 && msg.Error.Code != -32600 {
				t.Errorf("request %s: unexpected error %s", msg.ID, m)
			}
		}
	}
	for _, id := range ids {
		if replies[id] != 1 {
			t.Errorf("request %s got %d replies, want exactly 1", id, replies[id])
		}
	}
	c.frame(`{"jsonrpc":"2.0","id":"bye","method":"shutdown"}`)
	c.expect(`{"jsonrpc":"2.0","id":"bye","result":null}`)
	c.frame(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != 0 {
		t.Errorf("exit code %d after shutdown", code)
	}
}

// A client that disappears mid-request, mid-frame, or with a 1 GiB Content-Length announced: the
// server ends (code 1: no shutdown), and leaves no goroutine behind.
func TestAbuseClientVanishes(t *testing.T) {
	baseline := runtime.NumGoroutine()
	for i, vanish := range []func(c *raw, uri string){
		func(c *raw, uri string) { // during a slow graph build
			c.frame(`{"jsonrpc":"2.0","id":5,"method":"ccdag/workflowGraph","params":{"textDocument":{"uri":"` + uri + `"}}}`)
		},
		func(c *raw, uri string) { c.write("Content-Length: 500\r\n\r\n{\"jsonrpc\":") },                      // mid-body
		func(c *raw, uri string) { c.write("Content-Len") },                                                   // mid-header
		func(c *raw, uri string) { c.write("Content-Length: 1073741824\r\n\r\n" + strings.Repeat("x", 999)) }, // 1 GiB announced
		func(c *raw, uri string) { c.write("Content-Length: 1099511627776\r\n\r\n{}") },                       // beyond the limit
	} {
		entered, release := make(chan struct{}, 1), make(chan struct{})
		c := initRaw(t, hooks{beforeGraph: func() { entered <- struct{}{}; <-release }})
		_, uri, text := fixture(t, "basic/11111111-1111-4111-8111-111111111111.jsonl")
		open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "jsonl", "version": 1, "text": text}}})
		c.frame(string(open))
		vanish(c, uri)
		if i == 0 {
			<-entered
		}
		c.conn.Close()
		if code := c.exit(); code != 1 {
			t.Errorf("case %d: exit code %d when the client vanished, want 1", i, code)
		}
		close(release)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // goroutines end on their own schedule: poll the count
	}
	if n := runtime.NumGoroutine(); n > baseline+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left behind:\n%s", n-baseline, buf[:runtime.Stack(buf, true)])
	}
}

// stripCode removes what markdown shows literally: fenced code blocks and inline code spans
// (CommonMark: a span opened by a run of n backticks closes at the next run of exactly n).
func stripCode(md string) string {
	var out strings.Builder
	lines := strings.Split(md, "\n")
	fence := ""
	for _, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") {
			n := len(t) - len(strings.TrimLeft(t, "`"))
			fence = strings.Repeat("`", n)
			continue
		}
		out.WriteString(l)
		out.WriteByte('\n')
	}
	s := out.String()
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		// find the closing run of exactly n
		j := i + n
		closed := -1
		for j < len(s) {
			if s[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(s) && s[j+m] == '`' {
				m++
			}
			if m == n {
				closed = j
				break
			}
			j += m
		}
		if closed < 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		b.WriteString("CODE")
		i = closed + n
	}
	return b.String()
}

// Hover markdown: log text holding links, command: URIs, HTML, images, code fences, autolinks,
// backtick runs, line breaks and bidi overrides cannot become markdown. Every payload carries the
// word INJECT; after the code spans and fences are cut out, no hover may contain it.
func TestAbuseHoverMarkdownInjection(t *testing.T) {
	payloads := []string{
		"[click me INJECT](command:workbench.action.terminal.new)",
		"[x](command:_ccdag.run?%5B%22rm%22%5D) INJECT",
		"<img src=x onerror=alert('INJECT')>",
		"<script>alert('INJECT')</script>",
		"</script><a href=\"javascript:alert(1)\">INJECT</a>",
		"![INJECT](https://evil.example/track.png)",
		"<https://evil.example/INJECT>",
		"https://evil.example/INJECT www.evil.example/INJECT",
		"```\nINJECT\n```",
		"`` ` `` INJECT ``````````````````",
		"\n# INJECT heading\n\n---\n\n- [ ] INJECT",
		"INJECT \u202e\u2066 \u0000 \x1b[31m \r\n\r\n| a | INJECT |\n|---|---|",
		"[INJECT]: https://evil.example\n[ref][INJECT]",
		"\\`INJECT\\` *INJECT* _INJECT_ ~~INJECT~~ <!-- INJECT -->",
	}
	dir := t.TempDir()
	sid := "44444444-4444-4444-8444-444444444444"
	// a sub-agent log whose file name is itself a markdown link
	agentID := "x](command:evil)INJECT"
	sub := filepath.Join(dir, sid, "subagents")
	os.MkdirAll(sub, 0o755)
	var recs []string
	parent := ""
	for i, p := range payloads {
		u := fmt.Sprintf("u%d-%s", i, p) // in uuids too
		tool := "toolu_" + p
		recs = append(recs,
			hostile.User(u, parent, p),
			hostile.ToolUse(u+"-call", u, "msg-"+p, tool, p, `{"command":`+hostile.Q(p)+`,"file_path":`+hostile.Q(p)+`,"`+strings.ReplaceAll(p, `"`, `'`)+`":1}`),
			strings.Replace(hostile.ToolResult(u+"-res", u+"-call", tool, p, agentID), `"status":"completed"`, `"status":`+hostile.Q(p), 1),
			strings.Replace(hostile.Assistant(u+"-ans", u+"-res", "m"+p, p), `"model":"claude-test"`, `"model":`+hostile.Q(p), 1),
		)
		parent = u + "-ans"
	}
	recs = append(recs, `{"type":`+hostile.Q(payloads[0])+`,"uuid":"typed","parentUuid":`+hostile.Q(parent)+`,"timestamp":`+hostile.Q(payloads[1])+`}`,
		hostile.User("cross", "ag-2", "a record whose parent is in the sub-agent log: its hover names that file")) // the file name is a payload too
	agentLog := hostile.Lines(hostile.User("ag-1", "", payloads[2]), hostile.Assistant("ag-2", "ag-1", "am", payloads[3]))
	if err := os.WriteFile(filepath.Join(sub, "agent-"+agentID+".jsonl"), agentLog, 0o644); err != nil {
		t.Skipf("this file system refuses the file name: %v", err)
	}
	os.WriteFile(filepath.Join(sub, "agent-"+agentID+".meta.json"), []byte(`{"agentType":`+hostile.Q(payloads[4])+`,"description":`+hostile.Q(payloads[5])+`}`), 0o644)
	mainPath := filepath.Join(dir, sid+".jsonl")
	text := string(hostile.Lines(recs...))
	os.WriteFile(mainPath, []byte(text), 0o644)

	c := newClient(t, clientOpt{})
	uri := pathToURI(mainPath)
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	agentURI := pathToURI(filepath.Join(sub, "agent-"+agentID+".jsonl"))
	c.open(agentURI, string(agentLog), 1)
	c.diagsAt(agentURI, 1)
	hovers, bidi, fileLeak := 0, "", ""
	for _, doc := range []struct {
		uri, text string
	}{{uri, text}, {agentURI, string(agentLog)}} {
		for l, line := range strings.Split(doc.text, "\n") {
			for ch := 0; ch < utf16Len(line); ch += 7 {
				h := c.hoverText(doc.uri, at(l, ch))
				if h == "" {
					continue
				}
				hovers++
				rest := stripCode(h)
				if strings.Contains(strings.ReplaceAll(rest, "agent-"+agentID+".jsonl", ""), "INJECT") {
					t.Fatalf("hover at %d:%d lets log text out of code spans:\n%s\n--- outside code:\n%s", l, ch, h, rest)
				}
				if strings.Contains(rest, "INJECT") && fileLeak == "" {
					fileLeak = fmt.Sprintf("hover at %d:%d puts a sub-agent log's file name into markdown as it is (a crafted name such as agent-[x](command:y).jsonl becomes a link): %q", l, ch, rest)
				}
				for _, bad := range []string{"\x1b", "\x00", "\x07"} {
					if strings.Contains(h, bad) {
						t.Fatalf("hover at %d:%d holds control character %q:\n%s", l, ch, bad, h)
					}
				}
				if strings.ContainsAny(h, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") {
					bidi = fmt.Sprintf("hover at %d:%d", l, ch)
				}
			}
		}
	}
	if hovers < 100 {
		t.Fatalf("only %d hovers answered", hovers)
	}
	t.Logf("%d hovers checked", hovers)
	defer func() {
		var bugs []string
		if fileLeak != "" {
			bugs = append(bugs, fileLeak+"; the file name comes from Where() in internal/describe: wrap it in mdsafe.Code()")
		}
		if bidi != "" {
			bugs = append(bugs, bidi+" shows log text with bidirectional override characters (U+202E, U+2066...) as they are: text can be made to read differently from what it is (Trojan Source); escape them as the diagnostics do (textsafe.Printable)")
		}
		if len(bugs) > 0 {
			t.Errorf("%s", strings.Join(bugs, "\n"))
		}
	}()
	// The diagnostics' messages carry ids from the log too: plain text, no control characters.
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ps := range c.diags {
		for _, p := range ps {
			for _, d := range p.Diagnostics {
				if textsafe.Printable(d.Message) != d.Message {
					t.Errorf("diagnostic message with control characters: %q", d.Message)
				}
			}
		}
	}
}
