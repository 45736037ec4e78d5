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
	return problems(g.idx, fs, func(k int) int { return k }, func(k int) string { return g.Nodes[k].ID })
}

// ProblemsDrawn is Problems for a graph drawn with less (Collapsed, BuildDrawn): each finding goes
// to the node that draws its record's node, so a collapsed node shows the findings of all its
// members; findings of nodes left out are not shown. full is only read when drawn is not collapsed:
// ProblemsDrawn(g, g, fs) serves a graph from BuildDrawn.
func ProblemsDrawn(full, drawn *Graph, fs []check.Finding) []Problem {
	if drawn.drawnAs == nil { // not collapsed: the full graph itself
		return Problems(full, fs)
	}
	// A drawn node keeps the id of the full graph's node it is (nodeID of its position there).
	return problems(drawn.idx, fs, func(k int) int { return int(drawn.drawnAs[k]) }, nodeID)
}

// problems places each finding on the node place maps its record's node to (positions in the full
// graph, below 0: not shown), named by id.
func problems(x *index, fs []check.Finding, place func(int) int, id func(int) string) []Problem {
	at := map[int]*Problem{}
	var order []int
	for i := range fs {
		fd := &fs[i]
		if fd.File == nil || fd.Severity == check.Off {
			continue
		}
		rec := fd.File.Rec(fd.Line)
		if rec == nil {
			continue
		}
		k := x.nodePos(rec)
		if k < 0 {
			continue
		}
		if k = place(k); k < 0 {
			continue
		}
		p := at[k]
		if p == nil {
			p = &Problem{Node: id(k), Severity: fd.Severity.String()}
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
