package oracle_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/ccdag/ccdag/internal/cli"
)

// The comparison reads ccdag's prediction without Claude Code: a result without its call that
// was all its message held (dropped, the message sent as "(no content)") is not a result sent.
// Counting it made the two faulty copies of 26efdcc5 whose middle call record is lost look like
// disagreements (docs/resume.md).
func TestPredictedDropsOrphanResult(t *testing.T) {
	path := "../testdata/call-lost-result-bridged.jsonl"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"resume", "--format", "json", "--fail-on", "never", "--claude-version", Pinned, path}, cli.Env{Stdout: &out, Stderr: &errb}); code != cli.ExitOK {
		t.Fatalf("ccdag resume: exit %d: %s", code, errb.String())
	}
	_, uses, results, prompts, err := predicted(out.Bytes(), text)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"t2"}; !slices.Equal(uses, want) || !slices.Equal(results, want) {
		t.Errorf("tool_use ids %v, tool_result ids %v; want %v for both (t1's result has no call)", uses, results, want)
	}
	if want := []string{"hi", "(no content)"}; !slices.Equal(prompts, want) {
		t.Errorf("user texts %q, want %q", prompts, want)
	}
}
