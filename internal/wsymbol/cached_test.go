package wsymbol

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones TestCachedDayFollowsTheZone loads, where the system has none

	"go.uber.org/zap"

	"github.com/ccdag/ccdag/internal/cache"
)

func begin(context.Context, string, int64) Progress { return noProgress{} }

// built returns an index of roots after its first build, with c as its cache.
func built(t *testing.T, roots []string, c *cache.Cache) *Index {
	t.Helper()
	x := New(roots, time.Hour, zap.NewNop(), begin)
	x.Cache = c
	x.build(context.Background())
	return x
}

func all(x *Index) []string {
	var out []string
	for _, s := range x.Query("", 100000) {
		out = append(out, fmt.Sprintf("%s|%d|%s|%s|%d", s.Name, s.Kind, s.Path, s.Container, s.Line))
	}
	slices.Sort(out)
	return out
}

// A second index over the same logs takes each unchanged log's symbols from the cache (a mark
// written into the cache shows), reads a grown one again, drops a gone one; its answers are those
// of an index built without the cache.
func TestIndexFromCache(t *testing.T) {
	root := filepath.Join(t.TempDir(), "projects")
	write := func(p string, lines ...string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	prompt := func(uuid, text string) string {
		return fmt.Sprintf(`{"type":"user","uuid":%q,"sessionId":"s","message":{"role":"user","content":%q}}`, uuid, text)
	}
	a := filepath.Join(root, "p1", "a.jsonl")
	b := filepath.Join(root, "p2", "b.jsonl")
	gone := filepath.Join(root, "p2", "gone.jsonl")
	write(a, prompt("a1", "Fix the widget parser"),
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/src/widget.go"}}]}}`)
	write(b, prompt("b1", "Ship the gadget"))
	write(gone, prompt("g1", "soon gone"))
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roots := []string{root}
	first := built(t, roots, c)
	if want := all(built(t, roots, nil)); !slices.Equal(all(first), want) || len(want) != 4 {
		t.Fatalf("the first build differs from one without the cache:\n%v\n%v", all(first), want)
	}
	// Mark every cached name (same length, so offsets hold).
	entries, _ := c.All()
	var put []cache.Entry
	for k, e := range entries {
		if strings.HasPrefix(k, cacheKey) {
			e.Data = []byte(strings.NewReplacer("Fix", "FIX", "Ship", "SHIP").Replace(string(e.Data)))
			put = append(put, e)
		}
	}
	if len(put) != 3 {
		t.Fatalf("%d logs cached, want 3", len(put))
	}
	c.Put(put, nil)
	if got := all(built(t, roots, c)); !strings.Contains(strings.Join(got, "\n"), "FIX the widget") || !strings.Contains(strings.Join(got, "\n"), "SHIP the gadget") {
		t.Fatalf("unchanged logs read again: %v", got)
	}
	// b grows, gone goes: b is read again (its mark gone, its new prompt there), a still cached.
	f, _ := os.OpenFile(b, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(prompt("b2", "and the sprocket") + "\n")
	f.Close()
	os.Remove(gone)
	got := strings.Join(all(built(t, roots, c)), "\n")
	if !strings.Contains(got, "FIX the widget") || strings.Contains(got, "SHIP") || !strings.Contains(got, "and the sprocket") || strings.Contains(got, "soon gone") {
		t.Errorf("after a change:\n%s", got)
	}
	if entries, _ := c.All(); entries[cacheKey+gone].Key != "" {
		t.Error("a gone log's symbols stay in the cache")
	}
	// A damaged entry is not trusted: the log is read.
	entries, _ = c.All()
	e := entries[cacheKey+a]
	e.Data = []byte(`{"size":1,"lines":1,"names":"","syms":"AAAAAAAAAAAA"}`)
	c.Put([]cache.Entry{e}, nil)
	if got := all(built(t, roots, c)); !slices.Equal(got, all(built(t, roots, nil))) {
		t.Errorf("a damaged entry was used:\n%v", got)
	}
}

// A symbol's day is the local day of its session's first prompt in the zone the index runs in,
// whether its log was read or its symbols came from the cache: the cache holds the prompt's
// instant, not its day, so no zone change can leave a stale day. Mexico City and Regina are both
// UTC−6 all year now (so a key made of the zone's current offset, as before, was the same), but in
// July 2022 Mexico City kept summer time: 05:30 UTC was 00:30 on the 1st there, 23:30 on the 30th
// in Regina.
func TestCachedDayFollowsTheZone(t *testing.T) {
	mexico, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		t.Fatal(err)
	}
	regina, err := time.LoadLocation("America/Regina")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	_, offMexico := now.In(mexico).Zone()
	_, offRegina := now.In(regina).Zone()
	if offMexico != offRegina {
		t.Fatalf("the zones' offsets differ today (%d, %d s): this test wants two of the same offset", offMexico, offRegina)
	}
	local := time.Local
	t.Cleanup(func() { time.Local = local })

	root := filepath.Join(t.TempDir(), "projects")
	p := filepath.Join(root, "p1", "a.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"type":"user","uuid":"a1","sessionId":"s","timestamp":"2022-07-01T05:30:00.000Z","message":{"role":"user","content":"Fix the widget parser"}}`+"\n"), 0o644)
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roots := []string{root}
	time.Local = mexico
	if got := strings.Join(all(built(t, roots, c)), "\n"); !strings.Contains(got, "· 2022-07-01 ·") {
		t.Fatalf("in Mexico City: %s", got)
	}
	time.Local = regina
	want := all(built(t, roots, nil))
	if got := all(built(t, roots, c)); !slices.Equal(got, want) {
		t.Errorf("in Regina, from the cache:\n%v\nread:\n%v", got, want)
	}
	if !strings.Contains(strings.Join(want, "\n"), "· 2022-06-30 ·") {
		t.Errorf("in Regina: %v", want)
	}
}

// BenchmarkBuildFromCache: the index's first build over CCDAG_HISTORY (the folder holding
// projects/) into an empty cache (cold-s, once), then from the warm cache (each op).
func BenchmarkBuildFromCache(b *testing.B) {
	dir := os.Getenv("CCDAG_HISTORY")
	if dir == "" {
		b.Skip("CCDAG_HISTORY is not set (the folder holding projects/)")
	}
	c, err := cache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	roots := []string{filepath.Join(dir, "projects")}
	build := func() *Index {
		x := New(roots, time.Hour, zap.NewNop(), begin)
		x.Cache = c
		x.build(context.Background())
		return x
	}
	start := time.Now()
	n := len(build().Query("", 1<<30))
	cold := time.Since(start)
	b.ResetTimer()
	for b.Loop() {
		if got := len(build().Query("", 1<<30)); got != n {
			b.Fatalf("%d symbols from the cache, %d read", got, n)
		}
	}
	b.ReportMetric(cold.Seconds(), "cold-s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "warm-s")
	b.ReportMetric(float64(n), "symbols")
}

// Every field of File is either stored in the cache (storedFile) or made again from the log's path
// and stat (decodeFile): a field added to File fails here until cached.go carries it.
func TestStoredFileCoversFile(t *testing.T) {
	handled := map[string]string{
		"path": "path", "container": "path", "mod": "stat", "ino": "stat",
		"size": "stored", "lines": "stored", "names": "stored", "syms": "stored", "title": "stored", "first": "stored", "date": "made from first",
		"seen": "made from syms", "over": "never stored",
	}
	ft := reflect.TypeFor[File]()
	for i := range ft.NumField() {
		if name := ft.Field(i).Name; handled[name] == "" {
			t.Errorf("File.%s is not in the cache's entry: add it to storedFile, encodeFile and decodeFile", name)
		}
	}
}
