package check

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// The true findings of the corpus (its README), as "code line" per main log (1b2fa935: 432 is a
// call after which the conversation went on; 438, 439 and 441 are parallel calls of one message
// still in flight where the log ends); parent-after-child
// hints aside, nothing else may be reported anywhere in the corpus.
var corpusTruth = map[string][]string{
	"87bcc603-30fb-432c-beb2-9c774a335172": {"missing-agent-file 24", "missing-agent-file 27", "missing-agent-file 36", "missing-agent-file 42", "missing-agent-file 51", "missing-agent-file 378", "missing-agent-file 381"},
	"1b2fa935-2b3c-47c3-a234-caee199c619b": {"missing-agent-file 296", "unmatched-tool-use 432 warning", "unmatched-tool-use 438 information", "unmatched-tool-use 439 information", "unresolved-logical-parent 433", "unmatched-tool-use 441 information"},
	"26efdcc5-de34-4028-a984-9a094a9fa95b": {"unmatched-tool-use 64 information"},
}

// corpusBeyondReadme are true findings the corpus README's table leaves out, each checked by hand:
// the Task calls at 551 and 707 name agents aa12c48 and a9e9b60, whose logs are not in subagents/
// (only ac6b686's is), and the compaction at 625 names logical parent 06ce6b2d, which is in no file
// (provenance.json: "compaction (logicalParentUuid missing from file)").
var corpusBeyondReadme = map[string][]string{
	"87bcc603-30fb-432c-beb2-9c774a335172": {"missing-agent-file 551", "missing-agent-file 707", "unresolved-logical-parent 625"},
}

func TestCorpusFindingsAreExactlyTheTrueOnes(t *testing.T) {
	files := testcorpus.Files(t, "that ccdag check reports exactly the true findings of every real log (none on healthy ones)")
	for _, p := range files {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// Secrets are gitleaks' verdict, held to gitleaks itself by internal/secrets' corpus test.
		c := NewOptions(s, Options{NoSecrets: true})
		var got []string
		for _, f := range c.All(nil) {
			if f.Code == ParentAfterChild {
				continue
			}
			if f.File != s.Main() && s.Main() != nil {
				t.Errorf("%s: finding in %s line %d: %s %s", p, f.File.Path, f.Line+1, f.Code, f.Message)
				continue
			}
			if f.Code == MissingAgentFile && len(f.Related) > 1 {
				// One finding per file for its missing sub-agent logs, each call in its related
				// information, in under 120 characters.
				if n := len([]rune(f.Message)); n >= MaxGroupedMessage {
					t.Errorf("%s: the missing-agent-file message has %d characters: %q", p, n, f.Message)
				}
				for _, rl := range f.Related {
					got = append(got, fmt.Sprintf("%s %d", f.Code, rl.Line+1))
				}
				continue
			}
			g := fmt.Sprintf("%s %d", f.Code, f.Line+1)
			if f.Code == UnmatchedToolUse {
				g += " " + f.Severity.String()
			}
			got = append(got, g)
		}
		want := append(slices.Clone(corpusTruth[s.ID]), corpusBeyondReadme[s.ID]...)
		if s.Main() == nil || s.Main().Path != mustAbs(p) {
			// agent logs: their session's findings are checked through the main log
			if s.Main() != nil {
				continue
			}
			want = nil
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got  %q\n want %q", p, got, want)
		}
	}
}

func mustAbs(p string) string {
	a, _ := filepath.Abs(p)
	return a
}

// Every secret the scan finds on a line of a real log is a finding of check, and nothing else is:
// what `ccdag redact` replaces (every line, records or not) is what check, the editor and
// `sessions` show.
func TestCorpusSecretFindingsAreTheScansHits(t *testing.T) {
	files := testcorpus.Files(t, "that check's secret findings are the scan's hits on every line of real logs")
	total := 0
	for _, p := range files {
		s, err := layout.Load(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c := New(s)
		for _, f := range s.Files {
			got, want := secretLines(slices.Collect(c.Each(f, nil))), scanned(f)
			if !slices.Equal(got, want) {
				t.Errorf("%s: secret findings %v, the scan's hits %v", f.Path, got, want)
			}
			total += len(want)
		}
	}
	t.Logf("%d secrets in %d logs", total, len(files))
}
