package cli

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/catalog/catalogtest"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
)

// The history cache (docs/spec.md §14) as `ccdag sessions` uses it. A row the cache answers is
// told apart by a mark written into its cached title (markCached): where the mark shows, the row
// came from the cache; where the log changed, the row must be the one --no-cache computes.

func sessionsOut(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := run(t, append([]string{"sessions"}, args...)...)
	if code != ExitOK || errs != "" {
		t.Fatalf("sessions %v: exit %d: %s", args, code, errs)
	}
	return out
}

const mark = "FROM-THE-CACHE"

// markCached puts the mark in the cached title of every session, keeping each entry's stamp.
func markCached(t *testing.T) int { return catalogtest.MarkTitles(t, mark) }

func cachedKeys(t *testing.T) []string {
	t.Helper()
	c := catalogtest.OpenCache(t)
	defer c.Close()
	keys, _ := c.Keys()
	var rows []string
	for _, k := range keys {
		if !strings.HasPrefix(k, "tail:") { // a log's version, not a row
			rows = append(rows, k)
		}
	}
	return rows
}

// rowLine is the row of the JSON output whose main log is named name, as JSON.
func rowLine(t *testing.T, out, name string) string {
	t.Helper()
	var doc struct{ Sessions []json.RawMessage }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Sessions {
		var row sessionRow
		json.Unmarshal(r, &row)
		if filepath.Base(row.Path) == name {
			return string(r)
		}
	}
	t.Fatalf("no row of %s in\n%s", name, out)
	return ""
}

func TestSessionsCache(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
			dir := writeHistory(t)
			fresh := sessionsOut(t, "--no-cache", "--format", format, dir)
			if keys := cachedKeys(t); len(keys) != 0 {
				t.Fatalf("--no-cache wrote the cache: %v", keys)
			}
			cold := sessionsOut(t, "--format", format, dir)
			warm := sessionsOut(t, "--format", format, dir)
			if cold != fresh || warm != fresh {
				t.Fatalf("cold or warm output is not --no-cache's:\n%s\n%s\n%s", fresh, cold, warm)
			}
			if n := markCached(t); n != 2 {
				t.Fatalf("%d sessions cached, want 2", n)
			}
			if out := sessionsOut(t, "--format", format, dir); strings.Count(out, mark) != 2 {
				t.Fatalf("unchanged logs not answered from the cache:\n%s", out)
			}
		})
	}
}

// Each change to a log makes its session's row computed again, and only that row.
func TestSessionsCacheChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		session string // whose row must be computed again
		change  func(t *testing.T, proj string)
	}{
		{"grown", "s-old.jsonl", func(t *testing.T, proj string) {
			appendLog(t, filepath.Join(proj, "s-old.jsonl"), `{"type":"assistant","uuid":"o2","parentUuid":"o1","sessionId":"s-old","timestamp":"2026-01-01T11:00:00Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":4,"output_tokens":2}}}`+"\n")
		}},
		{"sub-agent log grown", "s-new.jsonl", func(t *testing.T, proj string) {
			appendLog(t, filepath.Join(proj, "s-new", "subagents", "agent-a1.jsonl"), `{"type":"user","uuid":"g3","parentUuid":"g2","sessionId":"s-new","isSidechain":true,"message":{"role":"user","content":"more"}}`+"\n")
		}},
		{"shrunk", "s-new.jsonl", func(t *testing.T, proj string) {
			p := filepath.Join(proj, "s-new.jsonl")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:strings.IndexByte(string(b), '\n')+1], 0o644)
		}},
		{"rewritten, same size and time", "s-old.jsonl", func(t *testing.T, proj string) {
			p := filepath.Join(proj, "s-old.jsonl")
			fi, _ := os.Stat(p)
			b, _ := os.ReadFile(p)
			time.Sleep(10 * time.Millisecond) // the change time moves on
			os.WriteFile(p, []byte(strings.Replace(string(b), "Fix the widget parser", "Fix the gadget parser", 1)), 0o644)
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
		{"replaced by a rename", "s-old.jsonl", func(t *testing.T, proj string) {
			p := filepath.Join(proj, "s-old.jsonl")
			fi, _ := os.Stat(p)
			b, _ := os.ReadFile(p)
			tmp := filepath.Join(proj, "tmp")
			os.WriteFile(tmp, []byte(strings.Replace(string(b), "widget", "gadget", 1)), 0o644)
			os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
			os.Rename(tmp, p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
			dir := writeHistory(t)
			proj := filepath.Join(dir, "-home-dev-app")
			sessionsOut(t, dir)
			markCached(t)
			tc.change(t, proj)
			out := sessionsOut(t, "--format", "json", dir)
			fresh := sessionsOut(t, "--no-cache", "--format", "json", dir)
			if got, want := rowLine(t, out, tc.session), rowLine(t, fresh, tc.session); got != want {
				t.Errorf("the changed session's row is not computed again:\n got %s\nwant %s", got, want)
			}
			for _, other := range []string{"s-old.jsonl", "s-new.jsonl"} {
				if other != tc.session && !strings.Contains(rowLine(t, out, other), mark) {
					t.Errorf("the unchanged session %s was read again", other)
				}
			}
			// and the new row is now cached: the next run answers it unread
			if again := sessionsOut(t, "--format", "json", dir); again != out {
				t.Errorf("second run after the change differs:\n%s\n%s", out, again)
			}
		})
	}
}

func appendLog(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// A session whose logs are gone leaves the output and the cache.
func TestSessionsCacheGone(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	dir := writeHistory(t)
	sessionsOut(t, dir)
	old := filepath.Join(dir, "-home-dev-app", "s-old.jsonl")
	if keys := cachedKeys(t); len(keys) != 2 {
		t.Fatalf("cached %v", keys)
	}
	os.Remove(old)
	out := sessionsOut(t, dir)
	if strings.Contains(out, "s-old") || out != sessionsOut(t, "--no-cache", dir) {
		t.Errorf("a gone session listed:\n%s", out)
	}
	keys := cachedKeys(t)
	if len(keys) != 1 || strings.Contains(keys[0], "s-old") {
		t.Errorf("cache still holds %v", keys)
	}
}

// A file at the cache's path that is not the cache — garbage, another program's SQLite database —
// changes nothing in the output and is replaced by a cache.
func TestSessionsCacheNotOurs(t *testing.T) {
	for name, content := range map[string]string{
		"garbage": strings.Repeat("garbage ", 1000),
		// an SQLite header and nothing sensible after it
		"sqlite header": "SQLite format 3\x00" + strings.Repeat("\xff", 4080),
	} {
		t.Run(name, func(t *testing.T) {
			cdir := t.TempDir()
			t.Setenv("CCDAG_CACHE_DIR", cdir)
			dir := writeHistory(t)
			os.WriteFile(filepath.Join(cdir, cache.FileName), []byte(content), 0o600)
			fresh := sessionsOut(t, "--no-cache", "--format", "json", dir)
			if got := sessionsOut(t, "--format", "json", dir); got != fresh {
				t.Errorf("output with a foreign cache file:\n%s\nwant\n%s", got, fresh)
			}
			if keys := cachedKeys(t); len(keys) != 2 {
				t.Errorf("cache not rebuilt: %v", keys)
			}
		})
	}
}

// A cached row whose bytes were damaged on disk (SQLite keeps no checksum of its pages) is not
// trusted: the output is --no-cache's, whether the damage breaks the row's JSON or only changes a
// figure, and the row is written again whole (answered from the cache by the next run).
func TestSessionsCacheDamagedRowReadAgain(t *testing.T) {
	for _, tc := range []struct{ name, from, to string }{
		{"not UTF-8", `"title": "Fix the widget parser"`, "\"title\": \"Fix the \xff\xfedget parser\""},
		{"not JSON", `"title": "Fix the widget parser"`, `"title": "Fix the w"dget parser"`},
		{"another figure", "\n   \"records\": 1,", "\n   \"records\": 7,"}, // the row's own, three spaces in
	} {
		for _, format := range []string{"json", "text"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				cdir := t.TempDir()
				t.Setenv("CCDAG_CACHE_DIR", cdir)
				dir := writeHistory(t)
				fresh := sessionsOut(t, "--no-cache", "--format", format, dir)
				sessionsOut(t, "--format", format, dir)
				damageInPlace(t, filepath.Join(cdir, cache.FileName), tc.from, tc.to)
				if got := sessionsOut(t, "--format", format, dir); got != fresh {
					t.Fatalf("output with a damaged row:\n%s\nwant --no-cache's\n%s", got, fresh)
				}
				if n := markCached(t); n != 2 {
					t.Fatalf("%d rows cached, want 2", n)
				}
				if out := sessionsOut(t, "--format", format, dir); strings.Count(out, mark) != 2 {
					t.Errorf("the damaged row was not written again:\n%s", out)
				}
			})
		}
	}
}

// damageInPlace overwrites the one occurrence of from in the closed database at path with to, of
// the same length, where it is (no page rewritten otherwise: what a bad disk or a stray write does).
func damageInPlace(t *testing.T, path, from, to string) {
	t.Helper()
	if len(from) != len(to) {
		t.Fatalf("%q and %q differ in length", from, to)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Fatalf("the log of writes holds %d bytes: the rows are not all in the database", fi.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(from)); n != 1 {
		t.Fatalf("%q occurs %d times in the cache, want once", from, n)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(to), int64(bytes.Index(b, []byte(from)))); err != nil {
		t.Fatal(err)
	}
}

// Another price table prices the rows otherwise: the cache (rows by the built-in table) is neither
// read nor written.
func TestSessionsCachePrices(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	dir := writeHistory(t)
	sessionsOut(t, dir)
	markCached(t)
	table := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(table, []byte(`{"claude-x":{"input_cost_per_token":0.000001,"output_cost_per_token":0.000002}}`), 0o600)
	if out := sessionsOut(t, "--prices", table, dir); strings.Contains(out, mark) {
		t.Errorf("rows of another price table answered from the cache:\n%s", out)
	}
}

// The resume figure depends on the Claude Code assumed to resume (the newest version under the
// config folder): a log of a newer version appearing anywhere under it makes the cached rows
// computed again, as --no-cache computes them.
func TestSessionsCacheLoaderChange(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	dir := writeHistory(t) // <config>/projects
	old := filepath.Join(dir, "-home-dev-app", "s-old.jsonl")
	b, _ := os.ReadFile(old)
	os.WriteFile(old, []byte(strings.Replace(string(b), `"sessionId"`, `"version":"2.1.10","sessionId"`, 1)), 0o644)
	runProcess(t, "sessions", "--format", "json", dir)
	markCached(t)
	if out := runProcess(t, "sessions", "--format", "json", dir); strings.Count(out, mark) != 2 {
		t.Fatalf("not answered from the cache:\n%s", out)
	}
	writeLogFile(t, filepath.Join(dir, "-home-dev-other", "s-newer.jsonl"),
		`{"type":"user","uuid":"v1","sessionId":"s-newer","version":"2.1.120","message":{"role":"user","content":"hi"}}`+"\n")
	out := runProcess(t, "sessions", "--format", "json", dir)
	fresh := runProcess(t, "sessions", "--no-cache", "--format", "json", dir)
	if strings.Contains(out, mark) || out != fresh {
		t.Errorf("rows kept across a change of the loader:\n%s\nwant\n%s", out, fresh)
	}
	if !strings.Contains(out, `"version": "2.1.120"`) {
		t.Errorf("the loader is not the newest version:\n%s", out)
	}
}

// The loader of a log outside any config folder may be the installed Claude Code or the default
// config folder's newest log (docs/spec.md §15), and a row says which ("from"): a `claude` on PATH
// appearing with the very version the config folder's logs have makes the cached rows computed
// again, as --no-cache computes them, though the loader's version is the same.
func TestSessionsCacheLoaderSource(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for a fake claude")
	}
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	writeLogFile(t, filepath.Join(cfg, "projects", "p", "a.jsonl"),
		`{"type":"user","uuid":"c1","sessionId":"a","version":"3.0.0","message":{"role":"user","content":"hi"}}`+"\n")
	logs := filepath.Join(t.TempDir(), "logs") // outside any config folder
	writeLogFile(t, filepath.Join(logs, "s.jsonl"),
		`{"type":"user","uuid":"u1","sessionId":"s","version":"2.1.10","timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"+
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","version":"2.1.10","timestamp":"2026-01-01T10:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hello"}]}}`+"\n")
	bin := t.TempDir()
	t.Setenv("PATH", bin) // no claude yet
	if out := runProcess(t, "sessions", "--format", "json", logs); !strings.Contains(out, `"from": "newest log in the default config folder"`) {
		t.Fatalf("without claude on PATH:\n%s", out)
	}
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nprintf '3.0.0 (Claude Code)\\n'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := runProcess(t, "sessions", "--format", "json", logs)
	fresh := runProcess(t, "sessions", "--no-cache", "--format", "json", logs)
	if out != fresh {
		t.Errorf("a row kept across a change of the loader's source:\n%s\nwant\n%s", out, fresh)
	}
	if !strings.Contains(fresh, `"from": "installed"`) {
		t.Errorf("the loader is not the installed Claude Code:\n%s", fresh)
	}
}

func writeLogFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A process killed with SIGKILL inside a write to the cache leaves nothing of that write: the
// next `ccdag sessions` prints exactly what --no-cache prints. The killed writer puts marked rows,
// stamped as the logs are now, in a transaction it never commits.
func TestSessionsCacheKilledWriter(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	dir := writeHistory(t)
	sessionsOut(t, "--format", "json", dir)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CCDAG_TEST_CACHE_WRITER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "paused" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("writer said %q", line)
	}
	// While it holds the write lock, a run still answers right (its own write waits, then gives up
	// or goes through: the rows are right either way).
	fresh := sessionsOut(t, "--no-cache", "--format", "json", dir)
	cmd.Process.Kill()
	cmd.Wait()
	if got := sessionsOut(t, "--format", "json", dir); got != fresh || strings.Contains(got, mark) {
		t.Errorf("after the kill:\n%s\nwant\n%s", got, fresh)
	}
}

// cacheWriter marks every row of the cache inside a transaction, says "paused" and waits to be
// killed.
func cacheWriter() (int, bool) {
	if os.Getenv("CCDAG_TEST_CACHE_WRITER") == "" {
		return 0, false
	}
	dir, _ := cache.Dir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, cache.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		fmt.Println(err)
		return 1, true
	}
	tx, err := db.Begin()
	if err == nil {
		_, err = tx.Exec(`UPDATE entries SET data = replace(data, '"title":"', '"title":"` + mark + ` ') WHERE key NOT LIKE 'tail:%'`)
	}
	if err != nil {
		fmt.Println(err)
		return 1, true
	}
	fmt.Println("paused")
	time.Sleep(time.Hour)
	return 0, true
}

func init() { helpers = append(helpers, cacheWriter) }

// Two `ccdag sessions` processes on a cold cache at once: both print what --no-cache prints, and
// the cache they both wrote answers the next run.
func TestSessionsCacheTwoProcesses(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	dir := writeHistory(t)
	fresh := sessionsOut(t, "--no-cache", "--format", "json", dir)
	outs := make([]string, 4)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			var err error
			if outs[i], err = processOut("sessions", "--format", "json", dir); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, out := range outs {
		if out != fresh {
			t.Errorf("process %d:\n%s\nwant\n%s", i, out, fresh)
		}
	}
	if n := markCached(t); n != 2 {
		t.Fatalf("%d rows cached, want 2", n)
	}
	if out := sessionsOut(t, "--format", "json", dir); strings.Count(out, mark) != 2 {
		t.Errorf("the cache the processes wrote does not answer:\n%s", out)
	}
}

// A warm JSON listing writes the rows as the cache holds them, with the deletion day and overdue
// flag set in the stored bytes (settings.json's cleanupPeriodDays), and its paths written shortened
// into them where they show so (run from inside the history: relative): either way it prints what
// --no-cache prints, and the rows came from the cache.
func TestSessionsCacheWarmJSONAsStored(t *testing.T) {
	for _, inside := range []bool{false, true} {
		t.Run(map[bool]string{false: "elsewhere", true: "inside"}[inside], func(t *testing.T) {
			t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
			dir := writeHistory(t)
			cfg := filepath.Dir(dir)
			t.Setenv("CLAUDE_CONFIG_DIR", cfg)
			if err := os.WriteFile(filepath.Join(cfg, "settings.json"), []byte(`{"cleanupPeriodDays": 1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if inside {
				t.Chdir(filepath.Join(dir, "-home-dev-app"))
			} else {
				away, err := os.MkdirTemp("", "ccdag-away-") // not above the history: paths show absolute
				if err != nil {
					t.Fatal(err)
				}
				defer os.RemoveAll(away)
				t.Chdir(away)
			}
			here := func(args ...string) string { // in this folder (run's is the repository's root)
				t.Helper()
				var out, errb bytes.Buffer
				if code := Main(append([]string{"sessions", "--format", "json"}, args...), Env{Stdout: &out, Stderr: &errb}); code != ExitOK || errb.Len() > 0 {
					t.Fatalf("sessions %v: exit %d: %s", args, code, errb.String())
				}
				return out.String()
			}
			fresh := here("--no-cache", dir)
			if cold, warm := here(dir), here(dir); cold != fresh || warm != fresh {
				t.Fatalf("cold or warm output is not --no-cache's:\n%s\n%s\n%s", fresh, cold, warm)
			}
			old, young := rowLine(t, fresh, "s-old.jsonl"), rowLine(t, fresh, "s-new.jsonl")
			if !strings.Contains(old, `"overdue": true`) || !strings.Contains(young, `"overdue": false`) || strings.Contains(old+young, `"deletes": ""`) {
				t.Fatalf("deletion days not set:\n%s\n%s", old, young)
			}
			if inside == strings.Contains(fresh, `"path": "/`) {
				t.Fatalf("paths not shown as expected (inside %v):\n%s", inside, fresh)
			}
			markCached(t)
			out := here(dir)
			if strings.Count(out, mark) != 2 || strings.ReplaceAll(out, mark+" ", "") != fresh {
				t.Fatalf("warm rows not the cache's, or not --no-cache's but for the mark:\n%s\n%s", out, fresh)
			}
		})
	}
}

// A grown log is read again scanning only its new lines for secrets (catalog's scans.go: the
// scan of the old ones is kept in the cache): the row is --no-cache's, counting a secret of the
// old part and one of the appended part. A mark put in the kept scan (a hit on a line that holds
// none) shows where it answers: after a growth, the old lines (the mark counted); after a rewrite
// in place (same file, larger, other old bytes), nowhere (read whole). A torn last line is scanned
// with its continuation.
func TestSessionsCacheGrownScan(t *testing.T) {
	t.Setenv("CCDAG_CACHE_DIR", t.TempDir())
	ps := secretstest.PlantSession(t)
	added := secretstest.Plants(301)
	name := filepath.Base(ps.Main)
	// row is the main log's row now and --no-cache's, and its secret count.
	row := func() (got, fresh string, secrets int) {
		t.Helper()
		got = rowLine(t, sessionsOut(t, "--format", "json", ps.Dir), name)
		fresh = rowLine(t, sessionsOut(t, "--no-cache", "--format", "json", ps.Dir), name)
		var r struct{ Secrets int }
		json.Unmarshal([]byte(got), &r)
		return got, fresh, r.Secrets
	}
	rec := func(uuid, text string) string {
		b, _ := json.Marshal(text)
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"ab51623b-c26d-45f5-b98e-f9d0cfa17018","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":` + string(b) + `}}` + "\n"
	}
	_, _, before := row() // cold: rows and scans kept
	if before == 0 {
		t.Fatal("no planted secret counted")
	}

	appendLog(t, ps.Main, rec("g1", "AWS_ACCESS_KEY_ID="+added[0].Secret))
	got, fresh, n := row()
	if got != fresh || n != before+1 {
		t.Fatalf("grown by a secret: %d secrets (want %d), row\n%s\nwant --no-cache's\n%s", n, before+1, got, fresh)
	}

	markScan(t, ps.Main)
	appendLog(t, ps.Main, rec("g2", "plain"))
	if _, _, n := row(); n != before+2 {
		t.Errorf("grown after the mark: %d secrets, want %d: the old lines were scanned again", n, before+2)
	}

	// In place: a planted secret of the old part overwritten (same length), then a record added.
	text, _ := os.ReadFile(ps.Main)
	at := strings.Index(string(text), ps.Plants[1].Secret) // github-pat
	if at < 0 {
		t.Fatal("no github-pat planted in the main log")
	}
	f, err := os.OpenFile(ps.Main, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(strings.Repeat("x", len(ps.Plants[1].Secret))), int64(at))
	f.Close()
	appendLog(t, ps.Main, rec("g3", "plain again"))
	if got, fresh, _ := row(); got != fresh {
		t.Errorf("rewritten in place and grown: row\n%s\nwant --no-cache's\n%s", got, fresh)
	}

	// Torn: half a record holding a secret, then the rest.
	_, _, before = row()
	last := rec("g4", "GITHUB_TOKEN="+added[1].Secret)
	cut := strings.Index(last, added[1].Secret) + 12
	appendLog(t, ps.Main, last[:cut])
	if got, fresh, _ := row(); got != fresh {
		t.Errorf("torn: row\n%s\nwant --no-cache's\n%s", got, fresh)
	}
	appendLog(t, ps.Main, last[cut:])
	if got, fresh, n := row(); got != fresh || n != before+1 {
		t.Errorf("torn line completed: %d secrets (want %d), row\n%s\nwant --no-cache's\n%s", n, before+1, got, fresh)
	}
}

// markScan adds a hit to the kept scan of log (an extra of its session's entry, keyed by the main
// log) on a line before its end that holds none.
func markScan(t *testing.T, log string) {
	t.Helper()
	c := catalogtest.OpenCache(t)
	defer c.Close()
	got, err := c.Extras([]string{log})
	if err != nil || got[log].Data == nil {
		t.Fatalf("no kept scan of %s (%v)", log, err)
	}
	e := got[log]
	var kept struct {
		Logs []map[string]any `json:"logs"`
	}
	d := json.NewDecoder(bytes.NewReader(e.Data))
	d.UseNumber() // the hash is a uint64: exact
	if err := d.Decode(&kept); err != nil {
		t.Fatal(err)
	}
	for _, l := range kept.Logs {
		if l["path"] != log {
			continue
		}
		hits, _ := l["hits"].([]any)
		has := map[string]bool{}
		for _, h := range hits {
			has[string(h.(map[string]any)["l"].(json.Number))] = true
		}
		line := 0
		for has[strconv.Itoa(line)] {
			line++
		}
		if lines, _ := l["lines"].(json.Number).Int64(); int64(line) >= lines {
			t.Fatal("no line without a hit")
		}
		l["hits"] = append(hits, map[string]any{"l": line, "s": 1, "e": 9, "r": "kept-mark"})
		e.Data, _ = json.Marshal(kept)
		if err := c.PutExtras(nil, []cache.Entry{e}, nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("the kept scan has no %s", log)
}
