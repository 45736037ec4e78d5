package oracle_test

import (
	"bytes"
	"time"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

// faultyCopy is a main log spoiled one way.
type faultyCopy struct {
	kind string
	text []byte
}

// Kinds of faulty copies (docs/resume.md).
const (
	RemovedFar  = "removed-child-over-5s"   // a record removed, its child more than 5 s after the record a resume could bridge to
	RemovedNear = "removed-child-within-5s" // the same, the child within 5 s
	ResultGone  = "tool-result-removed"     // a result record removed, its children re-parented to its parent
	Duplicated  = "line-duplicated"
	Glued       = "lines-glued"
	NULs        = "nul-bytes"
)

// faulty makes one copy of each kind from records in the middle of the resumed chain (res, as
// ccdag computed it for the intact log); a kind with no fitting record is left out.
func faulty(f *session.File, res *resume.Result) []faultyCopy {
	lines := bytes.SplitAfter(f.Text(), []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	// Middle first: spoiling the first or last record says little.
	var order []*session.Rec
	for k := range res.Sent {
		i := len(res.Sent)/2 + (k+1)/2*(1-2*(k%2))
		if i >= 0 && i < len(res.Sent) && res.Sent[i].LineErr() == nil {
			order = append(order, res.Sent[i])
		}
	}
	children := map[string][]*session.Rec{}
	var all []*session.Rec
	f.Recs(func(r *session.Rec) bool {
		if r.LineErr() == nil && r.UUID != "" {
			children[r.Parent] = append(children[r.Parent], r)
			all = append(all, r)
		}
		return true
	})
	onChain := map[*session.Rec]bool{}
	for _, r := range res.Sent {
		onChain[r] = true
	}
	build := func(kind string, edit func(i int, l []byte) [][]byte) faultyCopy {
		var b bytes.Buffer
		for i, l := range lines {
			for _, o := range edit(i, l) {
				b.Write(o)
			}
		}
		return faultyCopy{kind, b.Bytes()}
	}
	var out []faultyCopy
	done := map[string]bool{}
	for _, r := range order {
		kids := children[r.UUID]
		if len(kids) == 1 && onChain[kids[0]] && r.Parent != "" {
			c := kids[0]
			// The record a resume could bridge c to: the newest earlier one of its side, r aside.
			var best time.Time
			for _, o := range all {
				if o.Line >= c.Line || o == r || o.Has(jsonl.FlagSidechain) != c.Has(jsonl.FlagSidechain) || o.Type == "progress" {
					continue
				}
				if t := stamp(o); !t.After(stamp(c)) && t.After(best) {
					best = t
				}
			}
			gap := stamp(c).Sub(best)
			kind := RemovedNear
			if gap > 5*time.Second {
				kind = RemovedFar
			}
			if !done[kind] && !best.IsZero() {
				done[kind] = true
				out = append(out, build(kind, func(i int, l []byte) [][]byte {
					if i == r.Line {
						return nil
					}
					return [][]byte{l}
				}))
			}
		}
		if !done[ResultGone] && r.Type == "user" && len(kids) > 0 && r.Parent != "" && hasResult(r) {
			done[ResultGone] = true
			from := []byte(`"parentUuid":"` + r.UUID + `"`)
			to := []byte(`"parentUuid":"` + r.Parent + `"`)
			out = append(out, build(ResultGone, func(i int, l []byte) [][]byte {
				if i == r.Line {
					return nil
				}
				return [][]byte{bytes.ReplaceAll(l, from, to)}
			}))
		}
		if !done[Duplicated] {
			done[Duplicated] = true
			out = append(out, build(Duplicated, func(i int, l []byte) [][]byte {
				if i == r.Line {
					return [][]byte{l, l}
				}
				return [][]byte{l}
			}))
		}
		if next := f.Rec(r.Line + 1); !done[Glued] && next != nil && onChain[next] {
			done[Glued] = true
			out = append(out, build(Glued, func(i int, l []byte) [][]byte {
				if i == r.Line {
					return [][]byte{bytes.TrimRight(l, "\r\n")}
				}
				return [][]byte{l}
			}))
		}
		if !done[NULs] && r.Line > 0 {
			done[NULs] = true
			out = append(out, build(NULs, func(i int, l []byte) [][]byte {
				if i == r.Line {
					return [][]byte{[]byte("\x00\x00\x00\x00"), l}
				}
				return [][]byte{l}
			}))
		}
	}
	return out
}

func hasResult(r *session.Rec) bool {
	for _, b := range r.D().Blocks {
		if b.ToolUseID != "" {
			return true
		}
	}
	return false
}

func stamp(r *session.Rec) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.Timestamp(r.LineBytes()))
	return t
}
