package resume_test

import (
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/gen"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/repair"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/session"
)

// The resumed chain and the repairs of a 10 MB realistic session: what the server pays once per
// session version (a live session: after each append) when a diagnostic or a code action asks.
func BenchmarkCompute10MB(b *testing.B) {
	s := layout.SessionOf(session.NewFile("/b/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl", gen.Session(10<<20, 1)))
	b.SetBytes(int64(len(s.Main().Text())))
	for b.Loop() {
		if resume.Compute(s) == nil {
			b.Fatal("no chain")
		}
	}
}

func BenchmarkRepair10MB(b *testing.B) {
	s := layout.SessionOf(session.NewFile("/b/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl", gen.Session(10<<20, 1)))
	b.SetBytes(int64(len(s.Main().Text())))
	b.Run("fresh check", func(b *testing.B) {
		for b.Loop() {
			repair.Session(s, repair.Options{})
		}
	})
	chk := check.New(s)
	b.Run("server's checker", func(b *testing.B) {
		for b.Loop() {
			repair.Session(s, repair.Options{Checker: chk})
		}
	})
}
