package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `check DIR` lists each folder once: 2 000 tiny logs in one folder take about what `sessions` takes
// (both read every log); before, each log's discovery listed the folder again (1 000 logs 2.5–3.1 s,
// 2 000 13 s, 4 000 46 s). A ratio, not a time: it holds on a loaded machine.
func TestCheckDirListsEachFolderOnce(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "-home-dev-app")
	os.MkdirAll(dir, 0o755)
	for i := range 2000 {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(`{"type":"user","uuid":"u`+id+`","sessionId":"`+id+`","message":{"role":"user","content":"hi"}}`+"\n"), 0o644)
	}
	best := func(args ...string) time.Duration {
		b := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			_, errs, code := run(t, args...)
			if code != ExitOK {
				t.Fatalf("%v: exit %d %s", args, code, errs)
			}
			b = min(b, time.Since(start))
		}
		return b
	}
	check, sessions := best("check", root), best("sessions", root)
	t.Logf("check %v, sessions %v", check, sessions)
	if check > 3*sessions {
		t.Errorf("check DIR took %v, over 3 × sessions' %v", check, sessions)
	}
	if out, _, _ := run(t, "check", "--format", "json", root); !strings.Contains(out, `"sessions": 2000`) && !strings.Contains(out, `"sessions":2000`) {
		t.Errorf("not 2000 sessions: %.300s", out)
	}
}
