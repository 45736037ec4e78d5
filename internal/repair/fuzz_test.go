package repair_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/session"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// FuzzRepair mutates real sessions (the fuzzer's byte changes, then one fault of the fault set at
// a place it picks) and holds the repairs to the invariants of docs/spec.md §6.
// seedMax bounds a seed taken from the corpus.
const seedMax = 16 << 10

func FuzzRepair(f *testing.F) {
	for _, rel := range []string{
		"dagster-io__erk/session/26efdcc5-de34-4028-a984-9a094a9fa95b.jsonl",
		"d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
		"lpfeif1__claude-code-jsonl-editor/sample.jsonl",
	} {
		if b, err := os.ReadFile(filepath.Join(testcorpus.Root(), rel)); err == nil {
			// The head of the log, in whole lines: the fuzzer stalled on seeds of 80-125 KB (161
			// execs in 40 s); TestFaultsOnCorpus applies every fault to the whole logs.
			if len(b) > seedMax {
				b = b[:bytes.LastIndexByte(b[:seedMax], '\n')+1]
			}
			for k := range faults {
				f.Add(b, uint8(k), uint16(30000))
			}
		}
	}
	f.Add([]byte(`{"type":"user","uuid":"a","parentUuid":null,"message":{"role":"user","content":"x"}}`+"\n"), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, log []byte, kind uint8, at uint16) {
		if len(log) > 1<<20 {
			return
		}
		if bad := faults[int(kind)%len(faults)].apply(append([]byte(nil), log...), float64(at)/65536); bad != nil {
			log = bad
		}
		s := layout.SessionOf(session.NewFile("/fuzz/0b7c1e2a-5f3d-4c1b-9e8a-2d4f6a8b0c1e.jsonl", log))
		verify(t, "fuzzed log", s)
	})
}
