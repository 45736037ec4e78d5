package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
)

// The property: any sequence of edits (inserts and deletes across line boundaries, multi-byte
// characters, CRLF, appends, whole-text replacements, positions out of range) leaves the server
// in exactly the state a fresh parse of the final text gives: the same text, the same
// diagnostics, the same graph. The client side is modelled independently, in UTF-16 code units
// with LSP's clamping rules, the way an editor holds the document.

// doc is the client's copy of the document.
type doc struct{ u []uint16 }

func newDoc(s string) *doc { return &doc{u: utf16.Encode([]rune(s))} }

func (d *doc) String() string { return string(utf16.Decode(d.u)) }

// starts returns the start of every line (a final line without newline counts; none after a
// final newline).
func (d *doc) starts() []int {
	var s []int
	for i := 0; i < len(d.u); {
		s = append(s, i)
		j := i
		for j < len(d.u) && d.u[j] != '\n' {
			j++
		}
		i = j + 1
	}
	return s
}

// offset maps an LSP position to a code unit offset: a negative line or character counts as 0, a character
// past the end of the line is the end of the line (before "\r\n"), a line past the last is the
// end of the document, a character inside a surrogate pair is the start of the pair.
func (d *doc) offset(line, char int) int {
	line, char = max(line, 0), max(char, 0)
	st := d.starts()
	if line >= len(st) {
		return len(d.u)
	}
	s := st[line]
	e := len(d.u)
	if line+1 < len(st) {
		e = st[line+1] - 1 // the '\n'
	} else if e > s && d.u[e-1] == '\n' {
		e--
	}
	if e > s && d.u[e-1] == '\r' && (e < len(d.u) && d.u[e] == '\n') {
		e--
	}
	off := s + min(char, e-s)
	if off > s && off < len(d.u) && utf16.IsSurrogate(rune(d.u[off])) && d.u[off] >= 0xDC00 && d.u[off-1] >= 0xD800 && d.u[off-1] < 0xDC00 {
		off--
	}
	return off
}

func (d *doc) replace(a, b int, text string) {
	if a > b {
		a, b = b, a
	}
	ins := utf16.Encode([]rune(text))
	d.u = append(d.u[:a:a], append(ins, d.u[b:]...)...)
}

// editor makes random edits from a source of randomness.
type editor struct {
	r   *rand.Rand
	ids []string
}

func (e *editor) id() string { return e.ids[e.r.IntN(len(e.ids))] }

func (e *editor) record() string {
	switch e.r.IntN(5) {
	case 0:
		return fmt.Sprintf(`{"type":"user","uuid":"%s","parentUuid":"%s","message":{"role":"user","content":"hé 🙂 完"}}`, e.id(), e.id())
	case 1:
		return fmt.Sprintf(`{"type":"assistant","uuid":"%s","parentUuid":"%s","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Read","input":{}}]}}`, e.id(), e.id(), e.r.IntN(3), e.r.IntN(4))
	case 2:
		return fmt.Sprintf(`{"type":"user","uuid":"%s","parentUuid":"%s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"ok"}]}}`, e.id(), e.id(), e.r.IntN(4))
	case 3:
		return fmt.Sprintf(`{"type":"assistant","uuid":"%s","parentUuid":null,"message":{"id":"m%d","role":"assistant","content":[{"type":"text","text":"e\u0301 \"q\""}]}}`, e.id(), e.r.IntN(3))
	default:
		return fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","uuid":"%s","parentUuid":null,"logicalParentUuid":"%s"}`, e.id(), e.id())
	}
}

var snippets = []string{"🙂", "完", "e\u0301", "\r\n", "\n", "\n\n", `"`, `}`, `{`, `,"parentUuid":"u1"`, `"uuid":"u2",`, "x", "\t", " ", "ü"}

func (e *editor) text() string {
	switch e.r.IntN(4) {
	case 0:
		return e.record() + "\n"
	case 1:
		return e.record() + "\r\n"
	default:
		return snippets[e.r.IntN(len(snippets))]
	}
}

func (e *editor) pos(d *doc) pos {
	n := len(d.starts())
	return pos{e.r.IntN(n+3) - 1, e.r.IntN(90) - 1}
}

// change returns one content change and applies it to d.
func (e *editor) change(d *doc) map[string]any {
	switch k := e.r.IntN(10); {
	case k == 0: // replace everything
		var b strings.Builder
		for range e.r.IntN(4) {
			b.WriteString(e.record() + "\n")
		}
		d.u = utf16.Encode([]rune(b.String()))
		return map[string]any{"text": b.String()}
	case k <= 2: // append a record
		st := len(d.starts())
		off := d.offset(st, 0)
		t := e.record() + "\n"
		if off > 0 && d.u[off-1] != '\n' {
			t = "\n" + t
		}
		d.replace(off, off, t)
		return edit(rng{pos{st, 0}, pos{st, 0}}, t)
	default:
		a, b := e.pos(d), e.pos(d)
		if e.r.IntN(3) == 0 {
			b = a // a pure insert
		}
		t := ""
		if e.r.IntN(3) > 0 {
			t = e.text()
		}
		d.replace(d.offset(a.Line, a.Character), d.offset(b.Line, b.Character), t)
		return edit(rng{a, b}, t)
	}
}

// expected returns the diagnostics and graph a fresh parse of text gives, as the server encodes
// them.
func expected(uri, text string) ([]diagnostic, []byte) {
	s := layout.SessionOf(session.NewFile(uri, []byte(text)))
	d := &document{uri: uri, path: uri, opened: true}
	ss := &sess{srv: &server{}, docs: map[string]*document{uri: d}, session: s, chk: check.New(s)}
	var ds []diagnostic
	raw, _ := json.Marshal(ss.diagnostics(s.Files[0], nil))
	json.Unmarshal(raw, &ds)
	fg := graph.BuildWith(s, graph.Options{URI: ss.clientURI})
	return ds, graph.AppendProblems(graph.AppendJSON(nil, fg), graph.Problems(fg, ss.chk.All(nil)))
}

// serverText reads the text the server holds for a document.
func serverText(c *client, uri string) string {
	d := c.srv.doc(uri)
	out := make(chan string, 1)
	d.sess.do(nil, func() { out <- string(d.sess.session.File(d.path).Text()) })
	return <-out
}

var bases = []string{
	"",
	"{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
	"{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"🙂\"}}\r\n{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"完\"}}\r\n",
}

// runEdits drives a fresh server through rounds of random edits and checks it against a fresh
// parse after each round.
func runEdits(t *testing.T, seed uint64, rounds int) {
	r := rand.New(rand.NewPCG(seed, seed>>7|1))
	base := bases[r.IntN(len(bases)+1)%len(bases)]
	if r.IntN(len(bases)+1) == len(bases) {
		if b, err := os.ReadFile("testdata/basic/11111111-1111-4111-8111-111111111111.jsonl"); err == nil {
			base = string(b)
		}
	}
	e := &editor{r: r, ids: []string{"u1", "u2", "u3", "u-0001", "a-0001", "a-0002", "r-0001"}}
	uri := "untitled:prop.jsonl"
	c := newClient(t, clientOpt{})
	d := newDoc(base)
	version := int32(1)
	c.open(uri, base, version)
	for round := 0; round < rounds; round++ {
		var changes []map[string]any
		for range 1 + r.IntN(3) {
			changes = append(changes, e.change(d))
		}
		version += int32(1 + r.IntN(4)) // versions jump, as Neovim's do
		c.change(uri, version, changes...)
		got := c.diagsAt(uri, version)
		text := d.String()
		if st := serverText(c, uri); st != text {
			t.Fatalf("seed %d round %d: the server's text differs from the client's:\nserver %q\nclient %q\nchanges %v", seed, round, st, text, changes)
		}
		want, wantGraph := expected(uri, text)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Fatalf("seed %d round %d: diagnostics differ from a fresh parse\ntext %q\ngot  %s\nwant %s", seed, round, text, gb, wb)
		}
		var g json.RawMessage
		c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": uri}}, &g)
		if !jsonEqual(g, wantGraph) {
			t.Fatalf("seed %d round %d: graph differs from a fresh parse\ntext %q\ngot  %s\nwant %s", seed, round, text, g, wantGraph)
		}
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestEditsMatchAFreshParse(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 30
	}
	for seed := range uint64(n) {
		runEdits(t, seed, 8)
	}
}

// runEditsSession is the property on a session of two files (a main log and a sub-agent log in
// subagents/, both open), edits going to either: the cross-file index (parents in the other file,
// the spawn, the agent's lane) must agree with a fresh load too.
func runEditsSession(t *testing.T, seed uint64, rounds int) {
	r := rand.New(rand.NewPCG(seed, seed>>3|5))
	mainSrc, _, mainText := fixture(t, subMain)
	agentSrc, _, agentText := fixture(t, subAgent)
	dir := t.TempDir()
	mainPath := filepath.Join(dir, filepath.Base(mainSrc))
	agentPath := filepath.Join(dir, strings.TrimPrefix(agentSrc, filepath.Dir(mainSrc)+string(filepath.Separator)))
	os.MkdirAll(filepath.Dir(agentPath), 0o755)
	os.WriteFile(mainPath, []byte(mainText), 0o644)
	os.WriteFile(agentPath, []byte(agentText), 0o644)
	uris := []string{pathToURI(mainPath), pathToURI(agentPath)}
	paths := []string{mainPath, agentPath}
	docs := []*doc{newDoc(mainText), newDoc(agentText)}
	e := &editor{r: r, ids: []string{"u-0001", "a-0001", "r-0001", "a-0002", "s-0001", "s-0002", "s-0003", "s-0004", "zz"}}
	c := newClient(t, clientOpt{})
	c.open(uris[0], mainText, 1)
	c.open(uris[1], agentText, 1)
	version := []int32{1, 1}
	for round := 0; round < rounds; round++ {
		k := r.IntN(2)
		var changes []map[string]any
		for range 1 + r.IntN(3) {
			changes = append(changes, e.change(docs[k]))
		}
		version[k] += int32(1 + r.IntN(3))
		c.change(uris[k], version[k], changes...)
		// a fresh load of the same texts
		texts := map[string][]byte{paths[0]: []byte(docs[0].String()), paths[1]: []byte(docs[1].String())}
		s, err := layout.Load(mainPath, func(p string) ([]byte, error) {
			if b, ok := texts[p]; ok {
				return append([]byte(nil), b...), nil
			}
			return os.ReadFile(p)
		})
		if err != nil {
			t.Fatal(err)
		}
		ss := &sess{srv: &server{}, onDisk: true, docs: map[string]*document{}, session: s, chk: check.New(s)}
		for i := range uris {
			ss.docs[paths[i]] = &document{uri: uris[i], path: paths[i], opened: true}
		}
		for i := range uris {
			want := ss.diagnostics(s.File(paths[i]), nil)
			wb, _ := json.Marshal(want)
			got := c.diagsAt(uris[i], version[i])
			if st := serverText(c, uris[i]); st != docs[i].String() {
				t.Fatalf("seed %d round %d: file %d: the server's text differs from the client's", seed, round, i)
			}
			if k != i {
				// The other file's diagnostics are republished at its own (unchanged) version,
				// after publications still on their way from earlier rounds: wait until the last
				// one is what a fresh load gives (a wrong one times out).
				c.await("the other file's diagnostics after the change", func() bool {
					ps := c.diags[uris[i]]
					gb, _ := json.Marshal(ps[len(ps)-1].Diagnostics)
					return bytes.Equal(gb, wb)
				})
				continue
			}
			gb, _ := json.Marshal(got)
			if !bytes.Equal(gb, wb) {
				t.Fatalf("seed %d round %d: file %d: diagnostics differ from a fresh load\ngot  %s\nwant %s", seed, round, i, gb, wb)
			}
		}
		fg := graph.BuildWith(s, graph.Options{URI: ss.clientURI})
		wantGraph := graph.AppendProblems(graph.AppendJSON(nil, fg), graph.Problems(fg, ss.chk.All(nil)))
		var g json.RawMessage
		c.mustCall(methodWorkflowGraph, map[string]any{"textDocument": map[string]any{"uri": uris[k]}}, &g)
		if !jsonEqual(g, wantGraph) {
			t.Fatalf("seed %d round %d: graph differs from a fresh load\ngot  %s\nwant %s", seed, round, g, wantGraph)
		}
	}
}

func TestSessionEditsMatchAFreshLoad(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 10
	}
	for seed := range uint64(n) {
		runEditsSession(t, seed, 8)
	}
}

// FuzzEdits is the same property driven by the fuzzer: go test -fuzz FuzzEdits ./internal/lsp
func FuzzEdits(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s, uint8(6), false)
	}
	f.Add(uint64(7), uint8(5), true)
	f.Fuzz(func(t *testing.T, seed uint64, rounds uint8, twoFiles bool) {
		if twoFiles {
			runEditsSession(t, seed, 1+int(rounds%8))
			return
		}
		runEdits(t, seed, 1+int(rounds%12))
	})
}
