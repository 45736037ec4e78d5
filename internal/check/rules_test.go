package check

import (
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// parentOf, the rules' shortcut to a record's parent, is the session's Lookup for every record:
// of the corpus, and where the line before defines the parent's uuid a second time (the first
// definition is the parent then).
func TestParentOfIsLookup(t *testing.T) {
	var sessions []*session.Session
	for _, p := range testcorpus.Files(t, "that a record's parent found from the line before is the session's") {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sessions = append(sessions, s)
	}
	dup := session.New("s", "/x")
	dup.AddFile(session.NewFile("/x/s.jsonl", []byte(`{"type":"user","uuid":"a","sessionId":"s","message":{"role":"user","content":"x"}}
{"type":"user","uuid":"a","parentUuid":"a","sessionId":"s","message":{"role":"user","content":"x"}}
{"type":"user","uuid":"b","parentUuid":"a","sessionId":"s","message":{"role":"user","content":"x"}}
`)))
	sessions = append(sessions, dup)
	n := 0
	for _, s := range sessions {
		for _, f := range s.Files {
			f.Recs(func(r *session.Rec) bool {
				if r.Parent != "" {
					n++
					if got, want := parentOf(s, r), s.Lookup(r.Parent); got != want {
						t.Errorf("%s line %d: parentOf gives line %d, Lookup line %d", f.Path, r.Line+1, got.Line+1, want.Line+1)
					}
				}
				return true
			})
		}
	}
	if n < 100 {
		t.Errorf("only %d records with a parent compared", n)
	}
}
