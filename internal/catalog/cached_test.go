package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/resume"
)

// fill sets every exported field reachable from v to a value other than its zero (pointers
// made, one element in slices), but fields holding a session's records: a cached row holds only
// figures (resume.Result.Figures).
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || strings.Contains(f.Type.String(), "session.") {
				continue
			}
			fill(v.Field(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n)
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// A row read back from the cache is the row stored, every field of it, those its JSON leaves out
// (json:"-": Mod, the tokens' cost, ...) included: a new field that does not survive fails here.
func TestStoredRowRoundTrips(t *testing.T) {
	var r Row
	n := 0
	fill(reflect.ValueOf(&r).Elem(), &n)
	r.Resume = r.Resume.Figures() // what RowOf keeps of a resume
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip lost fields:\n got %+v\nwant %+v", got, r)
	}
	if _, err := Decode([]byte(`{"other":1}`)); err == nil {
		t.Error("a blob that is not a row decoded")
	}
}

// The JSON list a warm `ccdag sessions --format json` writes from the stored elements is the bytes
// json.MarshalIndent writes for the rows (as a listing that decodes and encodes every row did),
// with deletes set in the stored bytes as Row.SetDeletes sets them.
func TestListIsMarshalIndent(t *testing.T) {
	var full Row
	n := 0
	fill(reflect.ValueOf(&full).Elem(), &n)
	full.Resume = full.Resume.Figures()
	full.Title = "a <title> & \"quotes\"\n\t\u2028 ünïcode"
	full.Deletes, full.Overdue = "", false
	plain := Row{ID: "p", Path: "/h/p.jsonl", End: "2026-01-02T03:04:05Z"}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, rows := range [][]Row{nil, {plain}, {full, plain, full}} {
		var elems [][]byte
		want := append([]Row{}, rows...)
		for i, r := range rows {
			e, err := Element(r)
			if err != nil {
				t.Fatal(err)
			}
			if i >= 1 { // deletes written into the stored bytes: overdue, then not
				when := now.Add(time.Duration(i-1) * 48 * time.Hour)
				if e, err = func() ([]byte, error) {
					at, end, mid, ok := DeletesAt(e, when, now)
					if !ok {
						return nil, errors.New("deletes not found")
					}
					return append(append(append([]byte{}, e[:at]...), mid...), e[end:]...), nil
				}(); err != nil {
					t.Fatal(err)
				}
				want[i].SetDeletes(when, now)
			}
			elems = append(elems, e)
		}
		if want == nil {
			want = []Row{}
		}
		b, _ := json.MarshalIndent(struct {
			Sessions []Row `json:"sessions"`
		}{want}, "", " ")
		var got bytes.Buffer
		if err := List(&got, elems); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(b)+"\n" {
			t.Errorf("%d rows:\n got %s\nwant %s\n", len(rows), got.String(), b)
		}
	}
}

// A raw hit gives its stored element only when the paths in it show as they are; otherwise (the
// working folder holds the logs) the caller decodes the row and shows its paths its way.
func TestElementOnlyWhenPathsShowAsStored(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"s1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	found, _ := history.Sessions([]string{dir})
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := Row{ID: "s1", Path: p, End: "2026-01-02T03:04:05Z", Mod: 42, Resume: &resume.Result{BrokenAt: &resume.Place{Path: filepath.Join(dir, "x.jsonl")}}}
	Look(c, found, []string{dir}, 0).Store([]Row{r}, []bool{true})
	lk := LookRawIn(c, Read(c), found, []string{dir})
	if !lk.Hit[0] {
		t.Fatal("stored row not found")
	}
	same := func(s string) string { return s }
	e, end, mod, ok := lk.Element(0, same)
	want, _ := Element(r)
	if !ok || !bytes.Equal(e, want) || end != r.End || mod != 42 {
		t.Errorf("Element = %q %q %d %v; want %q", e, end, mod, ok, want)
	}
	for _, shown := range []string{p, filepath.Join(dir, "x.jsonl")} {
		display := func(s string) string {
			if s == shown {
				return "rel"
			}
			return s
		}
		if _, _, _, ok := lk.Element(0, display); ok {
			t.Errorf("Element given although %s shows otherwise", shown)
		}
	}
	// Listed from a folder holding the logs (~/.claude/projects/… from the home folder), the paths
	// show as their tails: the element is the stored one with them written shortened, what the
	// decoded row shown that way gives.
	parent := filepath.Dir(dir)
	for _, shorten := range []func(string) string{
		func(s string) string { rel, _ := filepath.Rel(parent, s); return rel },
		func(s string) string { // the row's own path only
			if s == p {
				return filepath.Base(s)
			}
			return s
		},
	} {
		e, end, mod, ok := lk.Element(0, shorten)
		want, _ := Element(r.Display(shorten))
		if !ok || !bytes.Equal(e, want) || end != r.End || mod != 42 {
			t.Errorf("Element shortened = %q %q %d %v; want %q", e, end, mod, ok, want)
		}
	}
	if e, _, _, _ := lk.Element(0, same); !bytes.Equal(e, want) {
		t.Errorf("the stored element changed by a shortened copy: %q", e)
	}
	if got, ok := lk.Row(0); !ok || !reflect.DeepEqual(got, r) {
		t.Errorf("Row = %+v %v; want %+v", got, ok, r)
	}
}

// The versions of a project folder's logs (what the resume loader's newest version reads of each)
// are one entry of the cache, not one a log (a warm listing reads half the entries), nor one for the
// whole config folder (a grown log writes again its folder's only). Each is kept with its log's
// stamp; the entries a log each, and the one of a whole config folder, that an older ccdag stored
// are dropped.
func TestLogVersionsAreOneEntryAFolder(t *testing.T) {
	cfg := t.TempDir()
	projects := filepath.Join(cfg, "projects")
	var logs []string
	versions := map[string]string{}
	for i, v := range []string{"2.1.3", "2.1.40", "1.0.9"} {
		folder := []string{"-p", "-p", "-q"}[i]
		p := filepath.Join(projects, folder, "s"+string(rune('a'+i))+".jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(`{"type":"user","uuid":"u","sessionId":"s","version":"`+v+`"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, p)
		versions[p] = v
	}
	found, _ := history.Sessions([]string{projects})
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Put([]cache.Entry{{Key: tailKey + logs[0], Stamp: "old", Data: []byte("2.0.0")}, {Key: tailKey + projects, Stamp: "old", Data: []byte("x")}}, nil)
	if err := Look(c, found, []string{projects}, 0).Store(make([]Row, len(found)), make([]bool, len(found))); err != nil {
		t.Fatal(err)
	}
	all, _ := c.Prefixed(tailKey)
	if len(all) != 2 {
		t.Fatalf("log versions stored under %v, want one key a project folder", keysOf(all))
	}
	got := map[string]tailItem{}
	for _, folder := range []string{"-p", "-q"} {
		e, ok := all[tailKey+filepath.Join(projects, folder)]
		if !ok {
			t.Fatalf("log versions stored under %v, want %s", keysOf(all), tailKey+filepath.Join(projects, folder))
		}
		for k, v := range decodeTails(e.Data) {
			got[k] = v
		}
		if decodeTails(e.Data[:len(e.Data)-1]) != nil { // cut short: not a list, every version read again
			t.Error("a cut list decoded")
		}
	}
	for _, p := range logs {
		st, _ := cache.StampOf([]string{p}, "")
		if t1, ok := got[p]; !ok || t1.stamp != string(st) || t1.version != versions[p] {
			t.Errorf("%s: stored %+v, %v", p, t1, ok)
		}
	}
	if len(got) != len(logs) {
		t.Errorf("%d versions stored, want %d", len(got), len(logs))
	}
	// Listed again by the same process (a server), the loader remembers its answer and reads no
	// version: the stored ones are kept.
	if err := Look(c, found, []string{projects}, 0).Store(make([]Row, len(found)), make([]bool, len(found))); err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Prefixed(tailKey); len(again) != 2 {
		t.Errorf("log versions after a second listing: %v", keysOf(again))
	}
}

// decodeTails reads appendTail's list into a map by path; nil when it is not one.
func decodeTails(b []byte) map[string]tailItem {
	if countTails(b) < 0 {
		return nil
	}
	m := map[string]tailItem{}
	for at := 0; at < len(b); {
		f, next := readTail(b, at)
		m[string(f[0])] = tailItem{string(f[0]), string(f[1]), string(f[2])}
		at = next
	}
	return m
}

// A stored version is found where the logs are read in the order stored (the loader's), and
// where they are not: a log added or gone between, or read in another order.
func TestTailSetFind(t *testing.T) {
	var b []byte
	for _, p := range []string{"/p/a.jsonl", "/p/b.jsonl", "/p/c.jsonl", "/p/d.jsonl"} {
		b = appendTail(b, tailItem{p, "st " + p, "v " + p})
	}
	ts := &tailSet{had: b, hadN: countTails(b)}
	if ts.hadN != 4 {
		t.Fatalf("%d items", ts.hadN)
	}
	for _, p := range []string{"/p/a.jsonl", "/p/new.jsonl", "/p/c.jsonl", "/p/d.jsonl", "/p/b.jsonl", "/p/gone.jsonl"} {
		lo, hi, stamp, v, ok := ts.find(p)
		want := p != "/p/new.jsonl" && p != "/p/gone.jsonl"
		if ok != want || ok && (string(stamp) != "st "+p || string(v) != "v "+p || string(appendTail(nil, tailItem{p, "st " + p, "v " + p})) != string(b[lo:hi])) {
			t.Errorf("find(%s) = %d %d %q %q %v", p, lo, hi, stamp, v, ok)
		}
	}
}

func keysOf(m map[string]cache.Entry) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
