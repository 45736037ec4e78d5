package repair_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/repair"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// A fault breaks one log the way real logs break (issue 10's fault set). at picks where: the
// fault goes near that fraction of the file. It returns nil when the log has no place for it.
type fault struct {
	name  string
	apply func(text []byte, at float64) []byte
}

func lines(text []byte) [][]byte { return repair.Lines(text) }

func joinLines(ls [][]byte) []byte { return bytes.Join(ls, nil) }

// pick returns the first line index at or after fraction at whose line satisfies ok (wrapping).
func pick(ls [][]byte, at float64, ok func([]byte) bool) int {
	n := len(ls)
	if n == 0 {
		return -1
	}
	start := int(at*float64(n)) % n
	for k := 0; k < n; k++ {
		i := (start + k) % n
		if ok(ls[i]) {
			return i
		}
	}
	return -1
}

func has(s string) func([]byte) bool {
	return func(l []byte) bool { return bytes.Contains(l, []byte(s)) }
}

var faults = []fault{
	{"dropped result", func(t []byte, at float64) []byte {
		ls := lines(t)
		i := pick(ls, at, has(`"type":"tool_result"`))
		if i < 0 {
			return nil
		}
		return joinLines(slices.Delete(ls, i, i+1))
	}},
	{"dropped call", func(t []byte, at float64) []byte {
		ls := lines(t)
		i := pick(ls, at, has(`"type":"tool_use"`))
		if i < 0 {
			return nil
		}
		return joinLines(slices.Delete(ls, i, i+1))
	}},
	{"orphan", func(t []byte, at float64) []byte {
		ls := lines(t)
		re := regexp.MustCompile(`"parentUuid":"[^"]+"`)
		i := pick(ls, at, func(l []byte) bool { return re.Match(l) })
		if i < 0 {
			return nil
		}
		ls[i] = re.ReplaceAll(ls[i], []byte(`"parentUuid":"0badf00d-0000-4000-8000-00000000dead"`))
		return joinLines(ls)
	}},
	{"duplicate", func(t []byte, at float64) []byte {
		ls := lines(t)
		i := pick(ls, at, has(`"uuid"`))
		if i < 0 || !bytes.HasSuffix(ls[i], []byte("\n")) {
			return nil
		}
		return joinLines(slices.Insert(ls, i+1, ls[i]))
	}},
	{"NUL padding", func(t []byte, at float64) []byte {
		ls := lines(t)
		i := pick(ls, at, has(`"uuid"`))
		if i < 0 || !bytes.HasSuffix(ls[i], []byte("\n")) {
			return nil
		}
		ls[i] = append(bytes.Repeat([]byte{0}, 37), ls[i]...)
		return joinLines(ls)
	}},
	{"glued lines", func(t []byte, at float64) []byte {
		ls := lines(t)
		i := pick(ls, at, has(`"uuid"`))
		if i < 0 || i+1 >= len(ls) || !bytes.HasSuffix(ls[i+1], []byte("\n")) {
			return nil
		}
		ls[i] = bytes.TrimRight(ls[i], "\r\n")
		return joinLines(ls)
	}},
	{"truncation", func(t []byte, at float64) []byte {
		ls := lines(t)
		i := pick(ls, at, has(`"uuid"`))
		if i < 0 {
			return nil
		}
		ls = ls[:i+1]
		ls[i] = ls[i][:len(ls[i])/2]
		return joinLines(ls)
	}},
}

// key names a finding independently of line numbers: file, code, record uuid, the bytes it marks.
func key(fd check.Finding) string {
	r := fd.File.Rec(fd.Line)
	id := ""
	mark := ""
	if r != nil {
		id = r.UUID
		line := r.LineBytes()
		if fd.Span.Valid() && int(fd.Span.End) <= len(line) {
			mark = string(line[fd.Span.Start:fd.Span.End])
		}
	}
	return fmt.Sprintf("%s|%s|%s|%.200q", fd.File.Lane, fd.Code, id, mark)
}

func findingKeys(s *session.Session) map[string]int {
	out := map[string]int{}
	for _, fd := range check.New(s).All(nil) {
		if fd.Code == check.ParentAfterChild && fd.Severity == check.Hint {
			continue // structure in healthy logs; repairs may move a record past one
		}
		out[key(fd)]++
	}
	return out
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// verify holds one repaired session to the invariants of docs/spec.md §6.
func verify(t *testing.T, what string, s *session.Session) map[check.Code]int {
	t.Helper()
	fixes := repair.Session(s, repair.Options{})
	made := map[check.Code]int{}
	for _, rf := range fixes {
		for _, r := range rf.Repairs {
			made[r.Code]++
		}
	}
	texts := map[string][]byte{}
	for _, rf := range fixes {
		named := map[int]bool{}
		for _, r := range rf.Repairs {
			if len(r.Lines) == 0 {
				t.Errorf("%s: repair %q names no line", what, r.Title)
			}
			for _, l := range r.Lines {
				named[l] = true
			}
		}
		old := lines(rf.Old)
		// Every line no repair names is byte-identical and in order in the output.
		nl := lines(rf.New)
		k := 0
		for i, l := range old {
			if named[i] {
				continue
			}
			for k < len(nl) && !bytes.Equal(nl[k], l) {
				k++
			}
			if k == len(nl) {
				t.Fatalf("%s: %s: line %d, named by no repair, is not kept in order", what, rf.Path, i+1)
			}
			k++
			if rf.Changed[i] {
				t.Errorf("%s: line %d is marked changed but named by no repair", what, i+1)
			}
		}
		texts[rf.Path] = rf.New
	}
	if len(fixes) == 0 {
		return made
	}
	after := repair.Reload(s, texts)
	// No new finding appears: every finding after the repair was there before, in the faulty log
	// or on a record a line repair brought back (unreadable before, checked between the phases).
	before := findingKeys(s)
	p1 := map[string][]byte{}
	for _, rf := range repair.Session(s, repair.Options{Codes: map[check.Code]bool{check.InvalidJSON: true}}) {
		p1[rf.Path] = rf.New
	}
	for k, n := range findingKeys(repair.Reload(s, p1)) {
		before[k] = max(before[k], n)
	}
	junkBefore := map[string]bool{} // files with lines that are no records: their not-jsonl verdict is theirs
	for _, fd := range check.New(s).All(nil) {
		if fd.Code == check.NotAnObject || fd.Code == check.InvalidJSON {
			junkBefore[fd.File.Lane] = true
		}
	}
	for k, n := range findingKeys(after) {
		// A log whose records all went (results of no call) is left its junk lines: a log of no
		// record, which the check calls not-jsonl, from the same lines as before.
		if strings.Contains(k, "|not-jsonl|") && junkBefore[strings.SplitN(k, "|", 2)[0]] {
			continue
		}
		if n > before[k] {
			t.Errorf("%s: new finding after the repair: %s", what, k)
		}
	}
	fixedAgain := repair.Session(after, repair.Options{})
	for _, fd := range check.New(after).All(nil) {
		// A root, or an orphan, whose blocks are all such results may keep them (removeEmptied).
		rootKept := fd.File.Rec(fd.Line) != nil && (fd.File.Rec(fd.Line).Parent == "" || after.Lookup(fd.File.Rec(fd.Line).Parent) == nil)
		if (fd.Code == check.UnmatchedToolResult || fd.Code == check.DuplicateToolResult) && !rootKept || fd.Code == check.InvalidJSON && nulPaddedRecord(fd.File.Line(fd.Line)) {
			t.Errorf("%s: %s remains after the repair at %s:%d: %s", what, fd.Code, fd.File.Lane, fd.Line+1, fd.Message)
		}
		// A call on a record without a uuid stays: a result inserted for it could name no parent.
		if fd.Code == check.UnmatchedToolUse && fd.Severity == check.Warning && fd.File.Rec(fd.Line) != nil && fd.File.Rec(fd.Line).UUID != "" {
			t.Errorf("%s: unmatched call remains after the repair at line %d: %s", what, fd.Line+1, fd.Message)
		}
	}
	// A second fix changes nothing.
	for _, rf := range fixedAgain {
		t.Errorf("%s: a second fix still changes %s: %v", what, rf.Path, rf.Repairs)
	}
	// Inserted records are complete: a v4 uuid, the keys of a result record of the file, in time.
	for _, rf := range fixes {
		f := after.File(rf.Path)
		var resultKeys []string
		f.Recs(func(r *session.Rec) bool {
			if r.Type == "user" && r.D().SourceToolAssistant != "" && !bytes.Contains(r.LineBytes(), []byte("inserted by ccdag fix")) {
				resultKeys = keysOf(t, r.LineBytes())
				return false
			}
			return true
		})
		f.Recs(func(r *session.Rec) bool {
			if !bytes.Contains(r.LineBytes(), []byte("inserted by ccdag fix")) {
				return true
			}
			if !uuidV4.MatchString(r.UUID) {
				t.Errorf("%s: inserted uuid %q is not v4", what, r.UUID)
			}
			if ks := keysOf(t, r.LineBytes()); resultKeys != nil && !sameSet(ks, resultKeys) {
				t.Errorf("%s: inserted record's keys %v, a result's %v", what, ks, resultKeys)
			}
			call := after.Lookup(r.Parent)
			if call == nil || call.Timestamp(call.LineBytes()) != r.Timestamp(r.LineBytes()) {
				t.Errorf("%s: inserted result not parented to its call with its timestamp", what)
			}
			return true
		})
	}
	return made
}

// nulPaddedRecord: NUL bytes, then a JSON object (what the NUL repair restores). NULs before a line
// that is not an object once they are gone are not that fault, and stay (FuzzRepair found
// `\x00…"uuid"0`, invalid with or without them, held against the repair).
func nulPaddedRecord(line []byte) bool {
	rest := bytes.TrimLeft(line, "\x00")
	return len(rest) < len(line) && len(rest) > 0 && rest[0] == '{' && json.Valid(rest)
}

func keysOf(t *testing.T, line []byte) []string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("inserted record is not JSON: %v", err)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// sameSet compares key sets, leaving out keys only some records carry.
func sameSet(a, b []string) bool {
	optional := map[string]bool{"isMeta": true, "slug": true, "agentId": true, "requestId": true, "isApiErrorMessage": true, "thinkingMetadata": true, "todos": true, "permissionMode": true, "imagePasteIds": true, "isVisibleInTranscriptOnly": true, "isCompactSummary": true, "error": true}
	f := func(x []string) []string {
		return slices.DeleteFunc(slices.Clone(x), func(k string) bool { return optional[k] })
	}
	return slices.Equal(f(a), f(b))
}

// Every corpus session, each fault applied at three places of its main log.
func TestFaultsOnCorpus(t *testing.T) {
	n := 0
	made := map[string]map[check.Code]int{}
	for _, p := range testcorpus.Files(t, "repairs on every corpus session with each fault applied") {
		if _, agent := layout.AgentIDFromName(p); agent {
			continue
		}
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		verify(t, p+" as it is", s)
		for _, fl := range faults {
			for _, at := range []float64{0.2, 0.5, 0.9} {
				text := fl.apply(slices.Clone(s.Main().Text()), at)
				if text == nil {
					continue
				}
				texts := map[string][]byte{s.Main().Path: text}
				m := verify(t, fmt.Sprintf("%s with %s at %.0f%%", p[strings.LastIndex(p, "/")+1:], fl.name, at*100), repair.Reload(s, texts))
				if made[fl.name] == nil {
					made[fl.name] = map[check.Code]int{}
				}
				for c, k := range m {
					made[fl.name][c] += k
				}
				n++
			}
		}
	}
	t.Logf("%d faulty sessions repaired: %v", n, made)
	// Each fault is met by the repair made for it (truncation leaves a partial last line, which is
	// repaired only on request).
	for f, c := range map[string]check.Code{"dropped result": check.UnmatchedToolUse, "dropped call": check.UnmatchedToolResult,
		"orphan": check.Orphan, "duplicate": check.DuplicateUUID, "NUL padding": check.InvalidJSON, "glued lines": check.InvalidJSON} {
		if made[f][c] == 0 {
			t.Errorf("%s: no %s repair made on any session", f, c)
		}
	}
}

// All faults at once on each corpus session: the repairs compose (several touch one line) and the
// result does not depend on the order they are decided or applied in — Go's map order differs
// from run to run, so ten runs must agree byte for byte — and the invariants still hold.
func TestFaultsTogetherComposeInAnyOrder(t *testing.T) {
	for _, p := range testcorpus.Files(t, "repairs composing on a session with every fault at once") {
		if _, agent := layout.AgentIDFromName(p); agent {
			continue
		}
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		text := slices.Clone(s.Main().Text())
		for k, fl := range faults[:6] { // truncation last would cut the others off
			if b := fl.apply(text, 0.15+0.13*float64(k)); b != nil {
				text = b
			}
		}
		bad := repair.Reload(s, map[string][]byte{s.Main().Path: text})
		first := repair.Session(bad, repair.Options{})
		for run := 0; run < 10; run++ {
			again := repair.Session(bad, repair.Options{})
			if len(again) != len(first) {
				t.Fatalf("%s: run %d repairs %d files, first %d", p, run, len(again), len(first))
			}
			for i := range again {
				if !bytes.Equal(again[i].New, first[i].New) {
					t.Fatalf("%s: run %d gives another text", p, run)
				}
			}
		}
		verify(t, filepath.Base(p)+" with every fault", bad)
	}
}

// A file keeps the first session.MaxLineErrors invalid lines as records; one repair run still
// strips the NUL bytes of every such line, kept or not.
func TestRepairsEveryNULLinePastTheCap(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n")
	const n = session.MaxLineErrors + 500
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\x00\x00{\"type\":\"progress\",\"uuid\":\"u%d\",\"parentUuid\":\"u%d\",\"sessionId\":\"s\"}\n", i, i-1)
	}
	f := session.NewFile("/s.jsonl", b.Bytes())
	s := session.New("s", "/")
	s.AddFile(f)
	if f.UnkeptLineErrors(jsonl.ErrInvalidJSON) != 500 {
		t.Fatalf("%d invalid lines not kept, want 500", f.UnkeptLineErrors(jsonl.ErrInvalidJSON))
	}
	files := repair.Session(s, repair.Options{})
	if len(files) != 1 {
		t.Fatalf("%d files repaired", len(files))
	}
	if bytes.IndexByte(files[0].New, 0) >= 0 {
		t.Errorf("NUL bytes left after one run: %d repairs", len(files[0].Repairs))
	}
	if got := bytes.Count(files[0].New, []byte("\n")); got != n+1 {
		t.Errorf("%d lines out, want %d", got, n+1)
	}
}
