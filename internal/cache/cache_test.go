package cache

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary be a cache writer in a process of its own (CCDAG_CACHE_TEST_ROLE).
func TestMain(m *testing.M) {
	switch os.Getenv("CCDAG_CACHE_TEST_ROLE") {
	case "":
		os.Exit(m.Run())
	case "pause":
		os.Exit(pauseWriter(os.Getenv("CCDAG_CACHE_TEST_DIR")))
	case "writer":
		os.Exit(writer(os.Getenv("CCDAG_CACHE_TEST_DIR"), os.Getenv("CCDAG_CACHE_TEST_NAME")))
	case "build":
		fmt.Print(Build("dev"))
		os.Exit(0)
	}
	os.Exit(2)
}

func entries(prefix string, n int, data string) []Entry {
	var out []Entry
	for i := range n {
		k := fmt.Sprintf("%s%04d", prefix, i)
		out = append(out, Entry{Key: k, Stamp: Stamp("stamp " + k), Data: []byte(data + " " + k)})
	}
	return out
}

// pauseWriter commits 50 "a" entries, then writes 50 "b" entries and stops half-way inside the
// transaction, saying so on stdout, until it is killed.
func pauseWriter(dir string) int {
	c, err := Open(dir)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	if err := c.Put(entries("a", 50, "first"), nil); err != nil {
		fmt.Println("error", err)
		return 1
	}
	testHook = func() {
		fmt.Println("paused")
		time.Sleep(time.Hour)
	}
	c.Put(entries("b", 50, "second"), []string{"a0000"})
	return 0
}

// writer writes 20 transactions of 10 entries of its own and 10 shared keys.
func writer(dir, name string) int {
	c, err := Open(dir)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer c.Close()
	for i := range 20 {
		es := append(entries(fmt.Sprintf("%s-%02d-", name, i), 10, name), entries("shared-", 10, name)...)
		if err := c.Put(es, nil); err != nil {
			fmt.Println("error", err)
			return 1
		}
		if _, err := c.All(); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
	return 0
}

func helper(t *testing.T, role, dir, name string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CCDAG_CACHE_TEST_ROLE="+role, "CCDAG_CACHE_TEST_DIR="+dir, "CCDAG_CACHE_TEST_NAME="+name)
	return cmd
}

// A process killed with SIGKILL inside a transaction leaves the cache as the last commit left it:
// every entry of the first transaction, none of the second, the deletion undone.
func TestKilledMidWrite(t *testing.T) {
	dir := t.TempDir()
	cmd := helper(t, "pause", dir, "")
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
		t.Fatalf("writer said %q, want paused", line)
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys, err := c.Keys()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 50 {
		t.Fatalf("%d entries after the kill, want the 50 committed: %v", len(keys), keys)
	}
	want := entries("a", 50, "first")
	got, err := c.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range want {
		if g := got[e.Key]; g.Stamp != e.Stamp || string(g.Data) != string(e.Data) {
			t.Errorf("%s: got %q %q, want %q %q", e.Key, g.Stamp, g.Data, e.Stamp, e.Data)
		}
	}
	if bad, _ := filepath.Glob(filepath.Join(dir, FileName+".bad-*")); len(bad) > 0 {
		t.Errorf("the cache was taken for damaged: %v", bad)
	}
}

// Three processes writing at once, each in its own transactions and all on shared keys: every
// entry is there, whole, and the database passes SQLite's integrity check.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	names := []string{"p1", "p2", "p3"}
	var wg sync.WaitGroup
	outs := make([][]byte, len(names))
	errs := make([]error, len(names))
	for i, n := range names {
		wg.Go(func() { outs[i], errs[i] = helper(t, "writer", dir, n).CombinedOutput() })
	}
	wg.Wait()
	for i := range names {
		if errs[i] != nil {
			t.Fatalf("writer %s: %v\n%s", names[i], errs[i], outs[i])
		}
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys, _ := c.Keys()
	if want := 3*20*10 + 10; len(keys) != want {
		t.Fatalf("%d entries, want %d", len(keys), want)
	}
	got, _ := c.All()
	for k, e := range got {
		name := string(e.Data[:2])
		if !strings.HasPrefix(k, "shared-") && !strings.HasPrefix(k, name+"-") || string(e.Data) != name+" "+k || string(e.Stamp) != "stamp "+k {
			t.Errorf("entry %s torn: %q %q", k, e.Stamp, e.Data)
		}
	}
	var ok string
	if err := c.db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q %v", ok, err)
	}
}

// A file at the cache's path that is not this cache is moved aside and a new cache made.
func TestNotOursRebuilt(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("not a database\n", 500)), 0o600)
		}},
		{"empty file", func(t *testing.T, path string) { os.WriteFile(path, nil, 0o600) }},
		{"foreign sqlite", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE entries (key TEXT, stamp TEXT, data BLOB); INSERT INTO entries VALUES ('k', 'stamp k', 'theirs')"); err != nil {
				t.Fatal(err)
			}
		}},
		{"our ids, another table", func(t *testing.T, path string) { // no keys' index to check
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{"CREATE TABLE entries (key TEXT, stamp TEXT, data BLOB)", "INSERT INTO entries VALUES ('k', 's', 'x')",
				fmt.Sprintf("PRAGMA application_id = %d", appID), fmt.Sprintf("PRAGMA user_version = %d", schema)} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"other schema", func(t *testing.T, path string) {
			c, err := open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Put([]Entry{{Key: "k", Stamp: "stamp k", Data: []byte("old")}}, nil)
			c.db.Exec("PRAGMA user_version = 99")
			c.Close()
		}},
		{"damaged pages", func(t *testing.T, path string) {
			c, err := open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Put(entries("k", 2000, strings.Repeat("x", 200)), nil)
			c.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
			var size int
			c.db.QueryRow("PRAGMA page_size").Scan(&size)
			c.Close()
			b, _ := os.ReadFile(path)
			for i := size; i < len(b); i++ { // every page but the header's
				b[i] ^= 0x5a
			}
			os.WriteFile(path, b, 0o600)
		}},
		{"one damaged page at the end", func(t *testing.T, path string) { // found only by reading it all
			c, err := open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Put(entries("k", 2000, strings.Repeat("x", 200)), nil)
			c.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
			var size int
			c.db.QueryRow("PRAGMA page_size").Scan(&size)
			c.Close()
			b, _ := os.ReadFile(path)
			for i := len(b) - size; i < len(b); i++ {
				b[i] ^= 0x5a
			}
			os.WriteFile(path, b, 0o600)
		}},
		{"one damaged page of the keys' index", func(t *testing.T, path string) { // not read by a scan of the table
			c, err := open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Put(entries("k", 2000, strings.Repeat("x", 200)), nil)
			c.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
			var page int
			if err := c.db.QueryRow("SELECT max(pageno) FROM dbstat WHERE name = 'sqlite_autoindex_entries_1' AND pagetype = 'leaf'").Scan(&page); err != nil {
				t.Skipf("no dbstat: %v", err)
			}
			var size int
			c.db.QueryRow("PRAGMA page_size").Scan(&size)
			c.Close()
			b, _ := os.ReadFile(path)
			for i := (page - 1) * size; i < page*size; i++ {
				b[i] = 0
			}
			os.WriteFile(path, b, 0o600)
		}},
	} {
		for _, opener := range []string{"Open", "OpenWithout"} {
			t.Run(tc.name+"/"+opener, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, FileName)
				tc.make(t, path)
				var c *Cache
				var err error
				if opener == "Open" {
					c, err = Open(dir)
				} else {
					var all map[string]Entry
					c, all, err = OpenWithout(dir, "wsym:")
					if err == nil && (all == nil || len(all) != 0) {
						t.Errorf("OpenWithout read %d entries of a cache rebuilt", len(all))
					}
				}
				if err != nil {
					t.Fatalf("not rebuilt: %v", err)
				}
				defer c.Close()
				keys, err := c.Keys()
				if err != nil || len(keys) != 0 {
					t.Fatalf("rebuilt cache holds %d keys (%v), want nothing", len(keys), err)
				}
				if err := c.Put([]Entry{{Key: "k", Stamp: "s", Data: []byte("ours")}}, nil); err != nil {
					t.Fatal(err)
				}
				want := 1
				if tc.name == "empty file" {
					want = 0 // SQLite's empty database: made into the cache in place
				}
				if bad, _ := filepath.Glob(path + ".bad-*"); len(bad) != want {
					t.Errorf("the old file was not kept aside: %v", bad)
				}
			})
		}
	}
}

// A row whose bytes were damaged on disk, in a way SQLite cannot see (its pages have no checksum),
// is not read back: a listing leaves it out (the caller computes it again), Extras does not find
// it, the rest is read whole and nothing is moved aside; written again, it is read back.
func TestDamagedRowLeftOut(t *testing.T) {
	for _, damage := range []string{"data", "stamp", "key"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			es := entries("row-", 20, "x")
			if err := c.PutExtras(es, entries("row-", 20, "extra"), nil); err != nil {
				t.Fatal(err)
			}
			c.Close()
			path := filepath.Join(dir, FileName)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// row-0007's in both tables, its "7" made "6": another well-formed row but for its sum (a
			// row is its key, stamp and data in a row: "row-0007", "stamp row-0007", "x… row-0007")
			for _, data := range []string{"x row-0007", "extra row-0007"} {
				row := "row-0007stamp row-0007" + data
				i := bytes.Index(b, []byte(row))
				if i < 0 {
					t.Fatalf("%q not in the file", row)
				}
				i += map[string]int{"key": len("row-000"), "stamp": len("row-0007stamp row-000"), "data": len(row) - 1}[damage]
				b[i] ^= '7' ^ '6'
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			c, err = Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			all, err := c.All()
			if err != nil {
				t.Fatal(err)
			}
			_, withoutAll, err := OpenWithout(dir, "none:")
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []map[string]Entry{all, withoutAll} {
				if len(got) != len(es)-1 {
					t.Errorf("%d rows read, want all but the damaged one", len(got))
				}
				for _, e := range es {
					g, ok := got[e.Key]
					if ok != (e.Key != "row-0007") || ok && (g.Stamp != e.Stamp || string(g.Data) != string(e.Data)) {
						t.Errorf("%s: read %v %q %q", e.Key, ok, g.Stamp, g.Data)
					}
				}
			}
			// Extras finds a key through the keys' index: with the table's copy of the key damaged,
			// what it reads (the index's key, the row's stamp and data) is whole, and may be returned.
			x, err := c.Extras([]string{"row-0006", "row-0007", "row-0008"})
			if err != nil || len(x) != 3 && damage == "key" || len(x) != 2 && damage != "key" {
				t.Errorf("extras of a damaged row found: %v (%v)", x, err)
			}
			for k, e := range x {
				if e.Key != k || e.Stamp != Stamp("stamp "+k) || string(e.Data) != "extra "+k {
					t.Errorf("extra %s read as %q %q %q", k, e.Key, e.Stamp, e.Data)
				}
			}
			if bad, _ := filepath.Glob(path + ".bad-*"); len(bad) != 0 {
				t.Errorf("a cache with one damaged row moved aside: %v", bad)
			}
			if damage == "key" {
				// Written again, the row is found by the index and updated, its key as it was: a row
				// computed every run (found by neither a listing nor a write), never a damaged one used.
				return
			}
			if err := c.PutExtras(es[7:8], entries("row-", 8, "extra")[7:], nil); err != nil {
				t.Fatal(err)
			}
			all, _ = c.All()
			x, _ = c.Extras([]string{"row-0007"})
			if string(all["row-0007"].Data) != string(es[7].Data) || string(x["row-0007"].Data) != "extra row-0007" {
				t.Errorf("written again, read back %q and %q", all["row-0007"].Data, x["row-0007"].Data)
			}
		})
	}
}

// Any folder name works, and the cache is made in it: its path is a file name in SQLite's URI,
// where %, ? and # would otherwise decode, end the name or start a fragment (another file opened:
// another program's database beside the folder switched to WAL), and a leading // is not a host.
// Each name is below a folder of plain name (a test's temporary folder is named after the test).
func TestCacheInAnyFolderName(t *testing.T) {
	for label, name := range map[string]string{
		"hash": "victim.db#x", "question mark": "vic?x", "query": "q?mode=ro&x=1#frag", "percent": "pct%41",
		"escaped question mark": "a%3Fb", "lone percent": "%", "space": "sp ace", "double slash": "slashes",
	} {
		t.Run(label, func(t *testing.T) {
			if runtime.GOOS == "windows" && strings.Contains(name, "?") {
				t.Skip("no ? in a Windows file name")
			}
			parent, err := os.MkdirTemp("", "ccdag-cache-name-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(parent)
			victim := filepath.Join(parent, "victim.db") // another program's database beside the folder
			db, err := sql.Open("sqlite", victim)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("CREATE TABLE theirs (x); INSERT INTO theirs VALUES (1)"); err != nil {
				t.Fatal(err)
			}
			db.Close()
			before, _ := os.ReadFile(victim)
			dir := filepath.Join(parent, name)
			if label == "double slash" && runtime.GOOS != "windows" {
				dir = "/" + dir // "//tmp/…": a path on Linux and macOS, a host in a URI
			}
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Put(entries("k", 3, "x"), nil); err != nil {
				t.Fatal(err)
			}
			c.Close()
			if after, _ := os.ReadFile(victim); string(after) != string(before) {
				t.Error("the database beside the folder was changed")
			}
			var made []string
			filepath.WalkDir(parent, func(p string, _ os.DirEntry, _ error) error {
				if rel, _ := filepath.Rel(parent, p); rel != "." {
					made = append(made, rel)
				}
				return nil
			})
			slices.Sort(made)
			want := []string{name, filepath.Join(name, FileName), filepath.Join(name, FileName+"-shm"), filepath.Join(name, FileName+"-wal"), "victim.db"}
			slices.Sort(want)
			if !slices.Equal(made, want) {
				t.Errorf("files there: %q, want %q", made, want)
			}
			c, err = Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if all, err := c.All(); err != nil || len(all) != 3 {
				t.Errorf("read back %d entries (%v), want 3", len(all), err)
			}
		})
	}
}

// The cache is its owner's only (docs/SECURITY.md: 0600 files in a 0700 folder) when it is made
// anew after a file that was not the cache was moved aside, as when first made; the copy moved
// aside is not more readable than that either.
func TestRebuiltCacheIsOwnersOnly(t *testing.T) {
	groupReadableUmask(t)
	for _, first := range []string{"garbage", "another schema"} {
		t.Run(first, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if first == "garbage" {
				os.WriteFile(path, []byte(strings.Repeat("junk\n", 100)), 0o644)
			} else {
				c, err := Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				c.db.Exec("PRAGMA user_version = 99")
				c.Close()
				os.Chmod(path, 0o644) // as a program that made it so would have
			}
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Put(entries("k", 3, "x"), nil); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			bad, _ := filepath.Glob(path + ".bad-*")
			if len(bad) != 1 {
				t.Fatalf("moved aside: %v, want one", bad)
			}
			for _, p := range []string{path, path + "-wal", path + "-shm", bad[0]} {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
					t.Errorf("%s: %v (%v), want no access for group and others", filepath.Base(p), fi.Mode(), err)
				}
			}
		})
	}
}

// Copies moved aside do not pile up: two ccdag builds of different schemas taking turns on one
// folder each moved a whole cache aside a run. Moving one aside removes those before it (with any
// -wal and -shm of theirs), and so does making an older schema anew in place (what a newer build
// does on its turn); the one kept is the newest.
func TestOneCopyAside(t *testing.T) {
	aside := func(t *testing.T, dir string) []string {
		t.Helper()
		var names []string
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if strings.HasPrefix(e.Name(), FileName+".bad-") {
				names = append(names, e.Name())
			}
		}
		return names
	}
	older := func(t *testing.T, dir string) { // copies earlier runs left
		for _, n := range []string{"bad-100", "bad-100-wal", "bad-100-shm", "bad-200", "bad-300-journal"} {
			os.WriteFile(filepath.Join(dir, FileName+"."+n), []byte("old"), 0o600)
		}
	}
	t.Run("taking turns", func(t *testing.T) {
		dir := t.TempDir()
		older(t, dir)
		for turn := range 4 {
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			c.Put(entries("k", 1, strconv.Itoa(turn)), nil)
			c.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", schema+1)) // the other build's turn
			c.Close()
		}
		got := aside(t, dir)
		if len(got) != 1 || slices.Contains([]string{"100", "200", "300-journal"}, strings.TrimPrefix(got[0], FileName+".bad-")) {
			t.Fatalf("aside after 4 turns: %v, want the newest copy only", got)
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, got[0]))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var data string
		if err := db.QueryRow("SELECT data FROM entries WHERE key = 'k0000'").Scan(&data); err != nil || data != "2 k0000" {
			t.Errorf("the copy kept is not the last one moved aside: %q (%v)", data, err)
		}
	})
	t.Run("older schema made anew", func(t *testing.T) {
		dir := t.TempDir()
		older(t, dir)
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		c.db.Exec("PRAGMA user_version = 3")
		c.Close()
		if c, err = Open(dir); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if got := aside(t, dir); !slices.Equal(got, []string{FileName + ".bad-300-journal"}) {
			t.Errorf("aside: %v, want the newest copy only", got)
		}
	})
}

// A process that failed to open a damaged file which another process moved aside meanwhile (and
// replaced by a new cache) opens the new one: it does not move that aside in turn, nor say the
// cache is not used (SQLite's disk I/O errors on a file moved while it opened it).
func TestReplacedWhileOpenedIsOpened(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	os.WriteFile(path, []byte(strings.Repeat("junk\n", 100)), 0o600)
	openFailedHook = func() { // the other process, between this one's failure and what it does about it
		openFailedHook = nil
		if err := os.Rename(path, path+".bad-1"); err != nil {
			t.Fatal(err)
		}
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		c.Put(entries("theirs", 2, "x"), nil)
		c.Close()
	}
	t.Cleanup(func() { openFailedHook = nil })
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if all, err := c.All(); err != nil || len(all) != 2 {
		t.Errorf("the other process's cache not opened: %v (%v)", all, err)
	}
	if bad, _ := filepath.Glob(path + ".bad-*"); !slices.Equal(bad, []string{path + ".bad-1"}) {
		t.Errorf("moved aside: %v, want only the damaged file", bad)
	}
}

// A stamp changes with anything that changes a log's content: an append, a truncation, a
// rewrite of the same size with its modification time put back, a file renamed over it.
func TestStampOf(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	os.WriteFile(p, []byte("one\n"), 0o600)
	stamp := func() Stamp {
		t.Helper()
		s, err := StampOf([]string{p}, "ctx")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s0 := stamp()
	if stamp() != s0 {
		t.Fatal("the stamp of an unchanged log changed")
	}
	if s, _ := StampOf([]string{p}, "other"); s == s0 {
		t.Error("the context is not in the stamp")
	}
	fi, _ := os.Stat(p)
	time.Sleep(10 * time.Millisecond) // change times have at least this resolution
	os.WriteFile(p, []byte("two\n"), 0o600)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	s1 := stamp()
	if s1 == s0 {
		t.Error("a rewrite of the same size, modification time put back, kept the stamp")
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("three\n")
	f.Close()
	s2 := stamp()
	if s2 == s1 {
		t.Error("an append kept the stamp")
	}
	os.Truncate(p, 2)
	if stamp() == s2 {
		t.Error("a truncation kept the stamp")
	}
	if _, err := StampOf([]string{filepath.Join(dir, "gone.jsonl")}, "ctx"); err == nil {
		t.Error("a missing log has a stamp")
	}
	if !strings.Contains(string(s0), strconv.Itoa(len("one\n"))) {
		t.Errorf("no size in the stamp: %q", s0)
	}
}

// Prefixed and Without split the entries by the start of their keys; All has them all.
func TestPrefixes(t *testing.T) {
	c := openTemp(t)
	c.Put([]Entry{{Key: "wsym:/a", Stamp: "s", Data: []byte("1")}, {Key: "wsym:/b", Stamp: "s", Data: []byte("2")},
		{Key: "/a", Stamp: "s", Data: []byte("3")}, {Key: "tail:/a", Stamp: "s", Data: []byte("4")}, {Key: "wsym", Stamp: "s", Data: []byte("5")}}, nil)
	keys := func(m map[string]Entry, err error) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return strings.Join(ks, " ")
	}
	if got := keys(c.Prefixed("wsym:")); got != "wsym:/a wsym:/b" {
		t.Errorf("Prefixed: %s", got)
	}
	if got := keys(c.Without("wsym:")); got != "/a tail:/a wsym" {
		t.Errorf("Without: %s", got)
	}
	if got := keys(c.All()); got != "/a tail:/a wsym wsym:/a wsym:/b" {
		t.Errorf("All: %s", got)
	}
}

// Extras are read by key only: no listing shows them, Put's drop deletes them with the entry of
// the same key, and a key never written is not found.
func TestExtras(t *testing.T) {
	c := openTemp(t)
	if err := c.PutExtras([]Entry{{Key: "/a", Stamp: "s", Data: []byte("row a")}, {Key: "/b", Stamp: "s", Data: []byte("row b")}},
		[]Entry{{Key: "/a", Stamp: "x", Data: []byte("extra a")}, {Key: "/b", Stamp: "x", Data: []byte("extra b")}}, nil); err != nil {
		t.Fatal(err)
	}
	all, _ := c.All()
	if len(all) != 2 || string(all["/a"].Data) != "row a" {
		t.Errorf("All: %v", all)
	}
	got, err := c.Extras([]string{"/a", "/b", "/none"})
	if err != nil || len(got) != 2 || string(got["/a"].Data) != "extra a" || got["/b"].Stamp != "x" {
		t.Fatalf("Extras: %v (%v)", got, err)
	}
	if err := c.Put(nil, []string{"/a"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Extras([]string{"/a", "/b"}); len(got) != 1 || got["/b"].Key != "/b" {
		t.Errorf("after dropping /a: %v", got)
	}
	if all, _ := c.All(); len(all) != 1 {
		t.Errorf("after dropping /a, All: %v", all)
	}
}

// A cache an older ccdag made (schema 1: a table WITHOUT ROWID; 3: rows without a checksum) is
// made anew in place: its entries dropped, nothing moved aside, and rows of ~1.5 KB then fit their
// pages (no overflow).
func TestOlderSchemaMadeAnew(t *testing.T) {
	for ver, layout := range map[int][]string{
		1: {"CREATE TABLE entries (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID"},
		3: {"CREATE TABLE entries (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, data BLOB NOT NULL)",
			"CREATE TABLE extras (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, data BLOB NOT NULL)"},
	} {
		t.Run(strconv.Itoa(ver), func(t *testing.T) { olderSchemaMadeAnew(t, ver, layout) })
	}
}

func olderSchemaMadeAnew(t *testing.T, ver int, layout []string) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(layout,
		"INSERT INTO entries VALUES ('k', 's', 'old')",
		fmt.Sprintf("PRAGMA application_id = %d", appID),
		fmt.Sprintf("PRAGMA user_version = %d", ver),
	) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	c, all, err := OpenWithout(dir, "wsym:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(all) != 0 {
		t.Errorf("entries of the older layout kept: %v", all)
	}
	if bad, _ := filepath.Glob(path + ".bad-*"); len(bad) != 0 {
		t.Errorf("an older cache of ours moved aside: %v", bad)
	}
	if _, ver, err := ids(c.db); err != nil || ver != schema {
		t.Errorf("schema %d (%v), want %d", ver, err, schema)
	}
	c.Put(entries("k", 200, strings.Repeat("x", 1500)), nil)
	var overflow int
	c.db.QueryRow("SELECT count(*) FROM dbstat WHERE name = 'entries' AND pagetype = 'overflow'").Scan(&overflow)
	var pages int
	if err := c.db.QueryRow("SELECT count(*) FROM dbstat WHERE name = 'entries'").Scan(&pages); err != nil {
		t.Skipf("no dbstat: %v", err)
	}
	if overflow != 0 {
		t.Errorf("%d of %d pages of 200 rows of 1.5 KB are overflow pages", overflow, pages)
	}
}

// A new cache has 64 KiB pages (set before WAL fixes them): a warm listing reads few pages.
func TestNewCacheHasLargePages(t *testing.T) {
	c := openTemp(t)
	var size int
	var mode string
	c.db.QueryRow("PRAGMA page_size").Scan(&size)
	c.db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if size != 65536 || mode != "wal" {
		t.Errorf("page size %d, journal mode %q; want 65536, wal", size, mode)
	}
}

// The database keeps its -wal and -shm files when the last connection closes (a warm listing then
// makes and deletes no file), the log of writes cut to nothing once in the database, so the cache
// on disk is the database's size; what was written is read back whole by the next process.
func TestPersistentWAL(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := entries("k", 300, strings.Repeat("x", 10<<10)) // 3 MB through the log of writes
	if err := c.Put(want, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, FileName+"-wal")); err != nil || fi.Size() < 1<<20 {
		t.Fatalf("the log of writes while open: %v %v", fi, err)
	}
	c.Close()
	for _, name := range []string{FileName + "-wal", FileName + "-shm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s gone after the last connection closed: %v", name, err)
		} else if name == FileName+"-wal" && fi.Size() != 0 {
			t.Errorf("%s holds %d bytes after the last connection closed, want 0", name, fi.Size())
		}
	}
	helper(t, "writer", dir, "p").Run() // another process reads and writes it meanwhile
	c, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range want {
		if g := got[e.Key]; g.Stamp != e.Stamp || string(g.Data) != string(e.Data) {
			t.Fatalf("%s: got %q, want %q", e.Key, g.Stamp, e.Stamp)
		}
	}
	if len(got) <= len(want) {
		t.Errorf("%d entries, want the other process's beside the %d", len(got), len(want))
	}
}

// A listing's scan reads through a page cache of a few pages (each page is read once), and the
// connection's page cache is SQLite's again after it, for the writes that follow.
func TestScanPageCachePutBack(t *testing.T) {
	c := openTemp(t)
	if err := c.Put(entries("k", 50, strings.Repeat("x", 4<<10)), nil); err != nil {
		t.Fatal(err)
	}
	if all, err := c.Without("wsym:"); err != nil || len(all) != 50 {
		t.Fatalf("%d entries, %v", len(all), err)
	}
	var size int
	if err := c.db.QueryRow("PRAGMA cache_size").Scan(&size); err != nil || size != -2000 {
		t.Errorf("page cache after a scan: %d (%v), want SQLite's -2000", size, err)
	}
}

// An entry written again under its key is updated where it is (its row and the key's index entry
// stay: a grown log's listing writes a third of the pages REPLACE's delete and insert did), with
// the new stamp and data.
func TestPutUpdatesInPlace(t *testing.T) {
	c := openTemp(t)
	rowid := func(table, key string) (id int64) {
		if err := c.db.QueryRow("SELECT rowid FROM "+table+" WHERE key = ?", key).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	if err := c.PutExtras(entries("k", 3, "one"), entries("k", 3, "x1"), nil); err != nil {
		t.Fatal(err)
	}
	before, beforeX := rowid("entries", "k0001"), rowid("extras", "k0001")
	again := []Entry{{Key: "k0001", Stamp: "new", Data: []byte("two")}}
	if err := c.PutExtras(again, []Entry{{Key: "k0001", Stamp: "new", Data: []byte("x2")}}, nil); err != nil {
		t.Fatal(err)
	}
	if rowid("entries", "k0001") != before || rowid("extras", "k0001") != beforeX {
		t.Error("the entry was deleted and inserted again, not updated")
	}
	all, _ := c.All()
	x, _ := c.Extras([]string{"k0001"})
	if e := all["k0001"]; e.Stamp != "new" || string(e.Data) != "two" || len(all) != 3 || string(x["k0001"].Data) != "x2" {
		t.Errorf("after the update: %+v, extras %+v", all, x)
	}
}

// openTemp opens a new cache in a folder of the test's, closed when the test ends.
func openTemp(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
