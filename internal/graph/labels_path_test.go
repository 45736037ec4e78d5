package graph

import (
	"testing"

	"github.com/ccdag/ccdag/internal/session"
)

// TestActionLabelPaths: a file tool's path is shown relative to the record's cwd, else with ~, and
// a long one is cut in its middle so the file name stays (it was cut from the right).
func TestActionLabelPaths(t *testing.T) {
	cwd := "/Users/schrockn/.erk/repos/erk/worktrees/erk-slot-03"
	for _, c := range []struct{ path, want string }{
		{cwd + "/src/erk/core/metadata/roadmap.py", "Read: src/erk/core/metadata/roadmap.py"},
		{"/Users/schrockn/.erk/repos/erk/worktrees/erk-slot-04/packages/erk-shared/src/erk_shared/gateway/github/metadata/roadmap.py",
			"Read: ~/…/packages/erk-shared/src/erk_shared/gateway/github/metadata/roadmap.py"},
		{"/etc/hosts", "Read: /etc/hosts"},
	} {
		line := `{"type":"assistant","uuid":"a","cwd":"` + cwd + `","message":{"content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"` + c.path + `"}}]}}`
		f := session.NewFile("/x/s.jsonl", []byte(line+"\n"))
		r := f.Rec(0)
		if got := ActionLabel(r, &r.D().Blocks[0]); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
	if got := RecordCwd(session.NewFile("/x/s.jsonl", []byte(`{"uuid":"a","message":{"x":"\"cwd\""}}`+"\n")).Rec(0)); got != "" {
		t.Errorf("a cwd found inside a value: %q", got)
	}
}
