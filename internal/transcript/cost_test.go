package transcript

import (
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// TestHeaderCostLowerBound: the header's cost of a session whose output counts are placeholders
// (2.1.27: ≥ 90 out) is a lower bound, as the tokens are: "≥ $6.33", never a plain "$6.33".
func TestHeaderCostLowerBound(t *testing.T) {
	p := testcorpus.Path(t, "Jason-liu-0219__my-claude/projects/-Users-liuhanwen-Desktop-project-webtech-monorepo/87bcc603-30fb-432c-beb2-9c774a335172.jsonl",
		"that the transcript header's cost is a lower bound where the output figure is")
	s, err := layout.Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	md := Build(s, graph.Build(s), Options{}).Markdown
	if !strings.Contains(md, "≥ 90 out") || !strings.Contains(md, "- **Cost:** ≥ $6.33 (") {
		head, _, _ := strings.Cut(md, "- **Turns:**")
		t.Errorf("header:\n%s", head)
	}
}
