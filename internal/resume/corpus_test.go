package resume_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// The corpus's resumed chains, checked by hand and by an independent script (docs/resume.md): every
// main log's chain reaches a root (as the newest Claude Code under its config folder loads it: the
// d-kimuson logs written by 1.0.98 are loaded as 1.0.108 wrote its neighbour), nothing is bridged, and a resume carries these many records.
func TestCorpusChains(t *testing.T) {
	want := map[string]string{
		"ab51623b": "resume, as Claude Code 2.0.64 will load it: 154 records, complete",
		"71b482a4": "resume, as Claude Code 2.1.119 will load it: 91 records, complete",
		"87bcc603": "resume, as Claude Code 2.1.27 will load it: 71 records, complete",
		"e37d812a": "resume, as Claude Code 2.1.27 will load it: 2 records, complete", // local commands alone: Claude Code resumes them
		"2158a82f": "resume: nothing to resume (no conversation in the main log)",
		"8296b4d4": "resume: nothing to resume (no conversation in the main log)",
		"1af7fc5e": "resume, as Claude Code 1.0.108 will load it: 29 records, complete",
		"5c0375b4": "resume, as Claude Code 1.0.108 will load it: 31 records, complete",
		"fe5e1c67": "resume, as Claude Code 1.0.108 will load it: 32 records, complete",
		"1b2fa935": "resume, as Claude Code 2.1.53 will load it: 9 records, complete",
		"26efdcc5": "resume, as Claude Code 2.1.50 will load it: 53 records, complete",
		"sample":   "resume, as Claude Code 1.0.61 will load it: 4 records, complete",
	}
	seen := 0
	for _, p := range testcorpus.Files(t, "the resumed chain of every corpus session") {
		if _, agent := layout.AgentIDFromName(p); agent {
			continue
		}
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		id = id[:min(8, len(id))]
		got := resume.Compute(s).Summary()
		if got != want[id] {
			t.Errorf("%s: %q, want %q", id, got, want[id])
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("%d main logs, want %d", seen, len(want))
	}
}
