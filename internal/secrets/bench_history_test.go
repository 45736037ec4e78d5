package secrets

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/testutil"
	"github.com/zricethezav/gitleaks/v8/config"
)

// BenchmarkHistory scans every line of the logs under $CCDAG_HISTORY (a genuine history, as
// scripts/genuine-history.sh builds; up to 200 MB of it), reporting CPU time per pass: the scan's
// cost on genuine text at a scale the corpus does not reach.
//
//	CCDAG_HISTORY=/tmp/bd/genuine go test ./internal/secrets -run '^$' -bench History -benchtime 10x -cpu 1
//
// Its sub-benchmarks:
//   - scan: the scan as `check` runs it (Scanner.Line, each pass with an empty memo);
//   - keywords: only the scan's first step, the rules' keywords found in every byte the memo
//     does not skip (the bodies of strings of memoMin bytes or more seen before), nothing done
//     at them: a floor under a scan that gates gitleaks' rules by their keywords, as gitleaks
//     does (docs/PERFORMANCE.md, "Sixth look");
//   - keywords-of-generic-api-key: the same with that rule's ten words only.
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
	b.Run("scan", func(b *testing.B) { benchScan(b, logs, size) })
	b.Run("keywords", func(b *testing.B) { benchKeywords(b, Default(), logs, size) })
	b.Run("keywords-of-generic-api-key", func(b *testing.B) {
		// gitleaks' commonest rule alone: the words any exact scan finds wherever they stand,
		// since the rule's expression holds them
		cfg := config.DefaultConfig
		i := strings.Index(cfg, `id = "generic-api-key"`)
		start := strings.LastIndex(cfg[:i], "[[rules]]")
		end := strings.Index(cfg[i:], "[[rules]]")
		sc, err := New("title = \"generic-api-key\"\n" + cfg[start:i+end])
		if err != nil {
			b.Fatal(err)
		}
		benchKeywords(b, sc, logs, size)
	})
}

// benchKeywords finds sc's keywords in every byte of logs' lines but the bodies of long strings
// seen before (the memo's repeats: cut out of a copy of the line beforehand).
func benchKeywords(b *testing.B, sc *Scanner, logs [][]byte, size int) {
	var lines [][]byte
	seen := map[string]bool{}
	looked := 0
	for _, log := range logs {
		var line []byte
		last := 0
		for s := range jsonStrings(log) {
			start := cap(log) - cap(s) // s's offset in log
			if len(s) >= memoMin && seen[string(s)] {
				line = append(line, log[last:start]...)
				last = start + len(s)
				continue
			}
			if len(s) >= memoMin {
				seen[string(s)] = true
			}
		}
		line = append(line, log[last:]...)
		for rest := line; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			lines = append(lines, rest[:i])
			looked += i
			rest = rest[min(i+1, len(rest)):]
		}
	}
	places := 0
	runtime.GC()
	b.SetBytes(int64(size))
	b.ResetTimer()
	c0 := testutil.CPUTime()
	for range b.N {
		places = 0
		for _, l := range lines {
			forKeywords(sc, l, func(int, int) bool { places++; return true })
		}
	}
	b.ReportMetric(float64(testutil.CPUTime()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(places), "keywords")
	b.ReportMetric(float64(looked)/float64(size), "looked/byte")
}

// jsonStrings yields the bodies of the strings of a log's lines (keys too), raw: a JSON string
// holds no unescaped quote, so a quote not after an escaping backslash opens or closes one.
func jsonStrings(log []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		in, start := false, 0
		for i := 0; i < len(log); i++ {
			switch c := log[i]; {
			case c == '\\' && in:
				i++
			case c == '"':
				if in && !yield(log[start:i]) {
					return
				}
				in, start = !in, i+1
			case c == '\n':
				in = false // a cut line: the next starts outside a string
			}
		}
	}
}
