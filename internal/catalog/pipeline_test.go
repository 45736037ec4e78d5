package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/search"
	"github.com/ccdag/ccdag/internal/session"
)

// The one pipeline of a session list (ccdag sessions, the server's ccdag/sessions): the rows the
// cache holds handed over first, then the others as they are read, the failures in found's order
// and never stored, the rows read stored so that the next list reads none, a query keeping only
// the sessions holding it, the list newest first.
func TestPipeline(t *testing.T) {
	dir := t.TempDir()
	for i, text := range []string{"alpha widget", "beta", "gamma widget", "delta"} {
		p := filepath.Join(dir, "s"+string(rune('1'+i))+".jsonl")
		rec := `{"type":"user","uuid":"u","sessionId":"s` + string(rune('1'+i)) + `","timestamp":"2026-01-0` + string(rune('1'+i)) + `T10:00:00Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
		if err := os.WriteFile(p, []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-time.Duration(i) * time.Hour)
		os.Chtimes(p, when, when)
	}
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bad := errors.New("unreadable")
	run := func(q *search.Query, failing string) (Listing, int, []int, []string) {
		found, _ := history.Sessions([]string{dir})
		var cached int
		var todo []int
		var seen []string // "c:<id>" cached, "r:<id>" read, "e" failed, in the order handed over
		l, err := Pipeline{
			Query: q,
			Load: func(h history.Session, use func(*session.Session)) error {
				if h.ID == failing {
					return bad
				}
				s, err := layout.LoadFound(h.Found, nil)
				if err == nil {
					use(s)
				}
				return err
			},
			Cached: func(n int, td []int) { cached, todo = n, td },
			Each: func(l Listed, err error) {
				switch {
				case err != nil:
					seen = append(seen, "e")
				case todo == nil && cached == 0:
					seen = append(seen, "c:"+l.Row.ID)
				default:
					seen = append(seen, "r:"+l.Row.ID)
				}
			},
		}.Run(context.Background(), found, Look(c, found, []string{dir}, 0))
		if err != nil {
			t.Fatal(err)
		}
		return l, cached, todo, seen
	}
	ids := func(l Listing) []string {
		var out []string
		for _, r := range l.Rows {
			out = append(out, r.Row.ID)
		}
		return out
	}

	l, cached, todo, seen := run(nil, "s3")
	if cached != 0 || len(todo) != 4 || len(l.Failed) != 1 || !errors.Is(l.Failed[0], bad) || l.Stored != nil {
		t.Errorf("cold: %d cached, todo %v, failed %v, stored %v", cached, todo, l.Failed, l.Stored)
	}
	if want := []string{"s4", "s2", "s1"}; !slices.Equal(ids(l), want) {
		t.Errorf("cold rows %v, want %v (newest first, the failed one left out)", ids(l), want)
	}
	if slices.Index(seen, "e") < 0 || len(seen) != 4 {
		t.Errorf("cold: handed over %v", seen)
	}

	l, cached, todo, seen = run(nil, "")
	if cached != 3 || len(todo) != 1 || len(l.Failed) != 0 {
		t.Errorf("warm: %d cached, todo %v (want the one that failed), failed %v", cached, todo, l.Failed)
	}
	if want := []string{"s4", "s3", "s2", "s1"}; !slices.Equal(ids(l), want) {
		t.Errorf("warm rows %v, want %v", ids(l), want)
	}
	if len(seen) != 4 || seen[3] != "r:s3" {
		t.Errorf("warm: handed over %v, want the cached ones first, then s3 read", seen)
	}

	q, err := search.Compile("widget")
	if err != nil {
		t.Fatal(err)
	}
	l, cached, todo, _ = run(q, "")
	if want := []string{"s3", "s1"}; !slices.Equal(ids(l), want) || cached != 2 || len(todo) != 0 {
		t.Errorf("query: rows %v (want %v), %d cached, todo %v", ids(l), want, cached, todo)
	}
}
