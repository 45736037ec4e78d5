package session

import (
	"os"
	"strings"
	"testing"
)

func TestNotJSONL(t *testing.T) {
	rec := `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`
	for _, c := range []struct {
		name, text string
		not        bool
	}{
		{"empty file", "", false},
		{"blank lines", "\n\n  \n", false},
		{"a record", rec + "\n", false},
		{"a new live log: one record being written", `{"type":"user","uuid":`, false},
		{"garbage, then a record being written", "hello\n" + `{"type":"user","uuid":`, true},
		{"three lines of prose", "# Notes\nsome text\nmore\n", true},
		{"seven bad lines, then a record", strings.Repeat("x\n", 7) + rec + "\n", false},
		{"eight bad lines, then a record", strings.Repeat("x\n", 8) + rec + "\n", true},
		{"arrays are not objects", "[1]\n[2]\n", true},
		{"NUL bytes before a record", "\x00\x00" + rec + "\n", false},
		// Claude Code loads these (docs/spec.md §13): records glued by interrupted appends.
		{"eight lines of glued records", strings.Repeat(rec+rec+"\n", 8), false},
		{"eight torn appends", strings.Repeat(rec[:60]+rec+"\n", 8), false},
		{"eight lines glued three times", strings.Repeat(rec+" "+rec+rec+"\n", 8), false},
		{"an object then text", strings.Repeat(rec+"x\n", 8), true},
		{"a cut string then text", strings.Repeat(rec[:60]+"{\"x\n", 8), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := NewFile("x.jsonl", []byte(c.text))
			if f.NotJSONL() != c.not {
				t.Fatalf("NotJSONL = %v, want %v", f.NotJSONL(), c.not)
			}
			if c.not && f.RecordCount() != 0 {
				t.Errorf("a file that is not JSON Lines keeps %d records", f.RecordCount())
			}
		})
	}
}

// An editor turns a file into JSON Lines and back: the records come and go with the verdict.
func TestNotJSONLEdits(t *testing.T) {
	s := New("x", "")
	f := NewFile("x.jsonl", []byte("garbage\n"))
	s.AddFile(f)
	if !f.NotJSONL() {
		t.Fatal("garbage is JSON Lines")
	}
	rec := `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`
	s.Edit(f, 0, len("garbage"), []byte(rec))
	if f.NotJSONL() || s.Lookup("u1") == nil {
		t.Fatalf("after the edit: NotJSONL %v, u1 indexed %v", f.NotJSONL(), s.Lookup("u1") != nil)
	}
	s.Edit(f, 0, len(rec), []byte("[1]"))
	if !f.NotJSONL() || s.Lookup("u1") != nil || f.RecordCount() != 0 {
		t.Fatalf("after breaking it: NotJSONL %v, u1 indexed %v, %d records", f.NotJSONL(), s.Lookup("u1") != nil, f.RecordCount())
	}
}

// A binary file is not read past its first lines.
func TestNotJSONLBinary(t *testing.T) {
	text, err := os.ReadFile("../../testdata/checks/not-jsonl.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if f := NewFile("b.jsonl", text); !f.NotJSONL() || f.RecordCount() != 0 {
		t.Fatalf("binary fixture: NotJSONL %v, %d records", f.NotJSONL(), f.RecordCount())
	}
}
