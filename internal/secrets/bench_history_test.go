package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHistory scans every line of the logs under $CCDAG_HISTORY (a genuine history, as
// scripts/genuine-history.sh builds; up to 200 MB of it), reporting CPU time per pass: the scan's
// cost on genuine text at a scale the corpus does not reach.
//
//	CCDAG_HISTORY=/tmp/bd/genuine go test ./internal/secrets -run '^$' -bench History -benchtime 3x -cpu 1
func BenchmarkHistory(b *testing.B) {
	root := os.Getenv("CCDAG_HISTORY")
	if root == "" {
		b.Skip("CCDAG_HISTORY names no history (a folder of logs, e.g. scripts/genuine-history.sh's)")
	}
	var logs [][]byte
	size := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || size > 200<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		logs = append(logs, data)
		size += len(data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	benchScan(b, logs, size)
}
