package transcript

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/fileuri"
	"github.com/ccdag/ccdag/internal/graph"
	"github.com/ccdag/ccdag/internal/mdsafe"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/tokens"
)

// header writes the title and the summary (files, time span, models, tokens) into b.hdr, from the
// figures h counted over the graph's nodes and the session's record count.
func (b *Builder) header(s *session.Session, g *graph.Graph, h *headState, records int) {
	out := &b.hdr
	out.buf, out.lines, out.n = out.buf[:0], out.lines[:0], 0
	title, models, turns := h.title, h.models, h.turns
	if title == "" {
		title = "session " + s.ID
	}
	if main := s.Main(); main != nil {
		out.mark(fileURI(g, main), 0)
	}
	out.text("# " + mdsafe.Code(mdsafe.Shorten(title, 80)))
	out.text("")
	var files []string
	agents := 0
	for _, f := range s.Files {
		if f.Lane == "main" {
			files = append(files, "main log "+mdsafe.Code(filepath.Base(f.Path)))
		} else {
			agents++
		}
	}
	if agents > 0 {
		files = append(files, strconv.Itoa(agents)+" sub-agent log"+plural(agents))
	}
	out.text("- **Files:** " + strings.Join(files, " + "))
	if first, last := span(s); first != "" {
		line := "- **Time:** " + mdsafe.Code(first) + " → " + mdsafe.Code(last)
		t0, e0 := time.Parse(time.RFC3339Nano, first)
		t1, e1 := time.Parse(time.RFC3339Nano, last)
		if e0 == nil && e1 == nil && !t1.Before(t0) {
			line += " (" + Duration(t1.Sub(t0).Milliseconds()) + ")"
		}
		out.text(line)
	}
	if len(models) > 0 {
		var ms []string
		for _, m := range models {
			ms = append(ms, mdsafe.Code(m))
		}
		out.text("- **Models:** " + strings.Join(ms, ", "))
	}
	tot := tokens.Session(s, b.tokens)
	out.text("- **Tokens:** " + tot.String())
	if c := tot.Total.Cost; c.Priced+c.Unpriced > 0 {
		t := prices.Current()
		from := "prices of " + t.Date + ", LiteLLM"
		if t != prices.Builtin() {
			from = "prices from " + mdsafe.Code(t.Source)
		}
		out.text("- **Cost:** " + tot.Total.CostText() + " (" + from + ")")
	}
	if why := tot.Total.Why(); why != "" {
		out.text("- **Note:** " + why) // the server's own words
	}
	out.text("- **Turns:** " + strconv.Itoa(turns) + " · **Records:** " + strconv.Itoa(records))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func fileURI(g *graph.Graph, f *session.File) string {
	for _, fi := range g.Session.Files {
		if fi.Lane == f.Lane {
			return fi.URI
		}
	}
	return fileuri.FromPath(f.Path)
}

// span returns the first and last timestamps of the session's files (their first and last
// records that carry one), read from the ends of each file.
func span(s *session.Session) (first, last string) {
	for _, f := range s.Files {
		n := f.LineCount()
		for i := 0; i < n; i++ {
			if r := f.Rec(i); r != nil && r.LineErr() == nil && r.TimestampSpan.Valid() {
				if ts := r.Timestamp(r.LineBytes()); ts != "" {
					if first == "" || ts < first {
						first = ts
					}
					break
				}
			}
		}
		for i := n - 1; i >= 0; i-- {
			if r := f.Rec(i); r != nil && r.LineErr() == nil && r.TimestampSpan.Valid() {
				if ts := r.Timestamp(r.LineBytes()); ts != "" {
					if ts > last {
						last = ts
					}
					break
				}
			}
		}
	}
	return first, last
}
