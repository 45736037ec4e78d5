// Command genhistory writes a generated history of session logs, laid out as Claude Code does
// (DIR/projects/<project>/<session>.jsonl), for the all-sessions benchmarks (scripts/perf-history.sh).
//
//	go run ./scripts/genhistory -dir /tmp/h -sessions 1000 -size 3000000
//	go run ./scripts/genhistory -dir /tmp/s -sessions 1 -size 104857600 -record 330   # many small records
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ccdag/ccdag/internal/gen"
)

func main() {
	dir := flag.String("dir", "", "folder to write DIR/projects/... into")
	sessions := flag.Int("sessions", 1000, "sessions")
	projects := flag.Int("projects", 20, "project folders")
	size := flag.Int("size", 3_000_000, "bytes per session log (at least)")
	record := flag.Int("record", 0, "bytes per record: short records of about this size (gen's Short) instead of turns")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "genhistory: -dir is required")
		os.Exit(2)
	}
	var total int64
	base := time.Now().Add(-time.Duration(*sessions) * time.Minute)
	for i := 0; i < *sessions; i++ {
		id := fmt.Sprintf("5e551000-0000-4000-8000-%012d", i)
		w := gen.New(gen.Options{SessionID: id, Seed: uint64(i + 1)})
		for len(w.Bytes()) < *size {
			if *record > 0 {
				w.Short(*record)
			} else {
				w.Turn()
			}
		}
		p := filepath.Join(*dir, "projects", fmt.Sprintf("-home-dev-project%02d", i%*projects), id+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		mod := base.Add(time.Duration(i) * time.Minute) // session i+1 is newer than session i
		os.Chtimes(p, mod, mod)
		total += int64(len(w.Bytes()))
	}
	fmt.Printf("%d sessions, %d bytes\n", *sessions, total)
}
