package graph

import (
	"bytes"
	"slices"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/check"
)

// Problem is one node's diagnostics in the graph result's "problems" list (docs/graph.md): the
// viewer marks the node. Severity is the highest of the node's findings.
type Problem struct {
	Node     string   `json:"node"`
	Severity string   `json:"severity"`
	Count    int      `json:"count"`
	Messages []string `json:"messages"` // the first few, "code: message"
}

const problemMessages = 5

// Problems maps findings (severities already resolved) to the nodes of their records, in node order.
func Problems(g *Graph, fs []check.Finding) []Problem {
	at := map[int]*Problem{}
	var order []int
	for i := range fs {
		fd := &fs[i]
		if fd.File == nil || fd.Severity == check.Off {
			continue
		}
		r := fd.File.Rec(fd.Line)
		if r == nil {
			continue
		}
		n := g.NodeOf(r)
		if n == nil {
			continue
		}
		k := g.Index(n)
		p := at[k]
		if p == nil {
			p = &Problem{Node: n.ID, Severity: fd.Severity.String()}
			at[k] = p
			order = append(order, k)
		} else if fd.Severity < severityOf(p.Severity) {
			p.Severity = fd.Severity.String()
		}
		p.Count++
		if len(p.Messages) < problemMessages {
			p.Messages = append(p.Messages, string(fd.Code)+": "+fd.Message)
		}
	}
	slices.Sort(order)
	out := make([]Problem, 0, len(order))
	for _, k := range order {
		out = append(out, *at[k])
	}
	return out
}

func severityOf(s string) check.Severity {
	for _, v := range []check.Severity{check.Error, check.Warning, check.Information, check.Hint} {
		if v.String() == s {
			return v
		}
	}
	return check.Hint
}

// AppendProblems adds "problems" to an encoded graph (the JSON object AppendJSON wrote).
func AppendProblems(raw []byte, ps []Problem) []byte {
	raw = bytes.TrimRight(raw, " \n")
	if len(raw) == 0 || raw[len(raw)-1] != '}' {
		return raw
	}
	enc, err := json.Marshal(ps)
	if err != nil {
		return raw
	}
	raw = append(raw[:len(raw)-1], `,"problems":`...)
	raw = append(raw, enc...)
	return append(raw, '}')
}

// ProblemsDrawn is Problems for a graph drawn with less (Collapsed): findings are placed on the
// full graph's nodes, and kept for the nodes drawn under their own id (a collapsed node keeps its
// first member's id; the findings of its other members are not shown).
func ProblemsDrawn(full, drawn *Graph, fs []check.Finding) []Problem {
	ps := Problems(full, fs)
	if drawn == full {
		return ps
	}
	ids := make(map[string]bool, len(drawn.Nodes))
	for i := range drawn.Nodes {
		ids[drawn.Nodes[i].ID] = true
	}
	out := ps[:0]
	for _, p := range ps {
		if ids[p.Node] {
			out = append(out, p)
		}
	}
	return out
}
