package catalog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/resume"
	"github.com/ccdag/ccdag/internal/tokens"
	"github.com/ccdag/ccdag/internal/version"
)

// Rows in the history cache (internal/cache, docs/spec.md §14): a row is stored as computed with
// its logs' paths as they are (absolute), before the view writes them its way (Display) and adds
// what does not come from the logs (deletes, uri). A blob is two parts: a line of the fields the
// row's JSON leaves out (json:"-"), then the row's JSON as an element of `ccdag sessions --format
// json`'s list (Element), so that a warm listing writes the stored bytes instead of decoding and
// encoding each row again (LookRawIn, Lookup.Element). A row read back is the row computed
// (TestStoredRowRoundTrips holds every field).

type stored struct {
	Mod        int64       `json:"mod"` // first: read without decoding (Lookup.Element)
	TokenCost  tokens.Cost `json:"tokenCost"`
	Messages   int64       `json:"messages"`
	ResumeEra  resume.Era  `json:"resumeEra,omitempty"`
	ResumeDrop bool        `json:"resumeDropsCalls,omitempty"`
}

// elemPrefix and elemIndent: the list is {"sessions": [ ... ]} indented a space a level, so a row's
// lines are two spaces in and its fields three.
const (
	elemPrefix = "  "
	elemIndent = " "
)

// Element is r's JSON as an element of the list `ccdag sessions --format json` writes (List):
// json.MarshalIndent's bytes for it there, without the first line's indentation.
func Element(r Row) ([]byte, error) { return json.MarshalIndent(r, elemPrefix, elemIndent) }

// List writes the rows' elements as `{"sessions": [...]}` indented a space a level, the bytes
// json.MarshalIndent writes for the rows (TestListIsMarshalIndent).
func List(w io.Writer, elems [][]byte) error {
	return ListEach(w, len(elems), func(i int, bw *bufio.Writer) { bw.Write(elems[i]) })
}

// ListEach is List of n elements, each written by elem into bw.
func ListEach(w io.Writer, n int, elem func(i int, bw *bufio.Writer)) error {
	if n == 0 {
		_, err := io.WriteString(w, "{\n \"sessions\": []\n}\n")
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\n \"sessions\": [\n")
	for i := range n {
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.WriteString(elemPrefix)
		elem(i, bw)
	}
	bw.WriteString("\n ]\n}\n")
	return bw.Flush()
}

// Encode is a row as the cache stores it.
func Encode(r Row) ([]byte, error) {
	s := stored{Mod: r.Mod, TokenCost: r.Tokens.Cost, Messages: r.Tokens.Messages}
	if r.Resume != nil {
		s.ResumeEra, s.ResumeDrop = r.Resume.Era, r.Resume.DropsCalls
	}
	head, err := json.Marshal(s) // compact: no newline in it
	if err != nil {
		return nil, err
	}
	elem, err := Element(r)
	if err != nil {
		return nil, err
	}
	return append(append(head, '\n'), elem...), nil
}

// split cuts a blob into its line of extra fields and the row's element.
func split(b []byte) (head, elem []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 || !bytes.HasPrefix(b, []byte(`{"mod":`)) {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// Decode reads a row Encode wrote.
func Decode(b []byte) (Row, error) {
	head, elem, ok := split(b)
	if !ok {
		return Row{}, errors.New("not a row")
	}
	var s stored
	if err := json.Unmarshal(head, &s); err != nil {
		return Row{}, err
	}
	var r Row
	if err := json.Unmarshal(elem, &r); err != nil {
		return Row{}, err
	}
	if r.ID == "" && r.Path == "" {
		return Row{}, errors.New("not a row")
	}
	r.Mod, r.Tokens.Cost, r.Tokens.Messages = s.Mod, s.TokenCost, s.Messages
	if r.Resume != nil {
		r.Resume.Era, r.Resume.DropsCalls = s.ResumeEra, s.ResumeDrop
	}
	return r, nil
}

// A row's fields in its element: keys cannot occur inside a JSON string (its quotes are escaped),
// and the row's own fields are the ones three spaces in.
var (
	keyPath    = []byte(`"path": "`)
	keyEnd     = []byte("\n   \"end\": \"")
	keyDeletes = []byte("\n   \"deletes\": ")
	keyOverdue = []byte(",\n   \"overdue\": ")
)

// stringAt is the JSON string starting at b[0] (after its opening quote) when it has no escape.
func stringAt(b []byte) (string, bool) {
	s, ok := plainAt(b)
	return string(s), ok
}

// plainAt is stringAt's bytes.
func plainAt(b []byte) ([]byte, bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 || bytes.IndexByte(b[:i], '\\') >= 0 {
		return nil, false
	}
	return b[:i], true
}

// Display writes the row's paths as a view shows them (the row is copied, the cached one intact).
func (r Row) Display(display func(string) string) Row {
	r.Path = display(r.Path)
	if r.Resume != nil {
		res := *r.Resume
		if res.BrokenAt != nil {
			b := *res.BrokenAt
			b.Path = display(b.Path)
			res.BrokenAt = &b
		}
		if res.Bridged != nil {
			res.Bridged = append(res.Bridged[:0:0], res.Bridged...)
			for i := range res.Bridged {
				res.Bridged[i].Path = display(res.Bridged[i].Path)
			}
		}
		r.Resume = &res
	}
	return r
}

// Usable reports whether rows made now may come from and go to the cache: only under the built-in
// price table (the cache holds rows priced by it).
func Usable() bool { return prices.IsBuiltin() }

// Lookup is what the cache held of a list of sessions.
type Lookup struct {
	c      *cache.Cache
	Rows   []Row    // Rows[i] is found[i]'s row where Hit[i] (LookRawIn: see Row)
	Hit    []bool   // answered by the cache
	raw    [][]byte // LookRawIn: the blobs of the hits, undecoded
	stamps []cache.Stamp
	keys   []string
	tails  []*tailSet // log versions (resume's loader), per project folder
	unread []string   // the projects folders whose versions the loader remembered (none read): entries kept
	drop   []string
	over   []bool // a log of found[i] is past the caller's size limit: neither answered nor stored

	build  string
	extras func() map[string]cache.Entry // the kept scans of the sessions not hit (read once, on first need)
	scans  []*Scans                      // Scans(i)'s, to store
}

// tailKey starts the key of the log versions (resume.ReadTails) of a project folder's logs,
// tailKey + <config>/projects/<folder>: one entry of the cache for them all, not one a log (half the
// entries a warm listing reads), nor one a config folder (a grown log's listing wrote again the
// versions of all 1 709 logs of the genuine history, 414 KB; its folder's are 70 KB); a row's key is
// its main log's path.
const tailKey = "tail:"

// tailSet is a project folder's log versions: as stored (had, under this build: appendTail's list,
// read where it is, no map or string made of it) and as the loader's newest version read them now
// (now; changed: to store, encoded then).
type tailSet struct {
	key     string
	had     []byte
	hadN    int            // items in had
	at      int            // where in had the next log's item is looked for: logs are read in the order stored
	index   map[string]int // had's items by path (their offsets), made when a log is not where expected
	now     []tailRef
	changed bool
}

type tailItem struct{ path, stamp, version string }

// tailRef is a log's version now: had[lo:hi], as stored (hi > 0), else t.
type tailRef struct {
	lo, hi int
	t      tailItem
}

// appendTail encodes one log's version: its path, its stamp and the version, each length-first.
func appendTail(b []byte, t tailItem) []byte {
	for _, s := range []string{t.path, t.stamp, t.version} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// countTails counts the items of appendTail's list b; -1 when it is not one (then every version is
// read again).
func countTails(b []byte) int {
	n := 0
	for at := 0; at < len(b); n++ {
		for range 3 {
			l, w := binary.Uvarint(b[at:])
			if w <= 0 || l > uint64(len(b)-at-w) {
				return -1
			}
			at += w + int(l)
		}
	}
	return n
}

// readTail reads the item at b[at:] of a list countTails counted: its path, stamp and version and
// where the next item starts.
func readTail(b []byte, at int) (f [3][]byte, next int) {
	for k := range f {
		l, w := binary.Uvarint(b[at:])
		f[k], at = b[at+w:at+w+int(l)], at+w+int(l)
	}
	return f, at
}

// find is the stored item of the log at path: had[lo:hi], its stamp and version.
func (ts *tailSet) find(path string) (lo, hi int, stamp, version []byte, ok bool) {
	if ts.had == nil {
		return 0, 0, nil, nil, false
	}
	if ts.at < len(ts.had) {
		if f, next := readTail(ts.had, ts.at); string(f[0]) == path {
			lo, ts.at = ts.at, next
			return lo, next, f[1], f[2], true
		}
	}
	if ts.index == nil {
		ts.index = make(map[string]int, ts.hadN)
		for at := 0; at < len(ts.had); {
			f, next := readTail(ts.had, at)
			ts.index[string(f[0])] = at
			at = next
		}
	}
	if lo, ok = ts.index[path]; !ok {
		return 0, 0, nil, nil, false
	}
	f, next := readTail(ts.had, lo)
	ts.at = next
	return lo, next, f[1], f[2], true
}

// Look finds the rows of found that the cache holds for their logs as they are now. c may be nil
// (no cache: nothing is a hit). roots are the folders found was read from: a cached session under
// them that is no longer found is dropped by Store. max > 0 is the caller's file-size limit (the
// server's, docs/spec.md §15): a session with a log past it is never answered from the cache, where
// a reader without the limit stored its row, nor stored (read within the limit, it lacks that log).
func Look(c *cache.Cache, found []history.Session, roots []string, max int64) *Lookup {
	return look(c, Read(c), found, roots, false, max)
}

// Entries is what Look reads of a cache: Read's answer.
type Entries struct {
	all map[string]cache.Entry
	err error
}

// Read reads the entries Look needs (the rows and log versions, not the workspace symbols'
// (internal/wsymbol)), so that it can be done while the sessions are found (LookRawIn). c may be nil.
func Read(c *cache.Cache) Entries {
	if c == nil {
		return Entries{}
	}
	all, err := c.Without(wsymKey)
	return Entries{all, err}
}

// wsymKey starts the keys of the workspace symbols' entries (internal/wsymbol), which Read leaves.
const wsymKey = "wsym:"

// OpenRead opens the cache in dir and reads it as Read does, the read being the check of the file
// that opening it makes (cache.OpenWithout): one scan of the table.
func OpenRead(dir string) (*cache.Cache, Entries, error) {
	c, all, err := cache.OpenWithout(dir, wsymKey)
	return c, Entries{all: all}, err
}

// LookRawIn is Look, with the cache's entries read already (Read(c)), without decoding the rows
// found: Rows[i] is not set where Hit[i]; Row decodes one, Element gives its stored JSON (a warm
// `ccdag sessions --format json` writes it as it is).
func LookRawIn(c *cache.Cache, e Entries, found []history.Session, roots []string) *Lookup {
	return look(c, e, found, roots, true, 0)
}

func look(c *cache.Cache, entries Entries, found []history.Session, roots []string, raw bool, max int64) *Lookup {
	l := &Lookup{c: c, Rows: make([]Row, len(found)), Hit: make([]bool, len(found)), stamps: make([]cache.Stamp, len(found)), keys: make([]string, len(found))}
	if c == nil {
		return l
	}
	all, err := entries.all, entries.err
	if err != nil {
		return l // unreadable: everything is computed
	}
	build := cache.Build(version.Version)
	l.build = build
	l.scans = make([]*Scans, len(found))
	l.extras = sync.OnceValue(func() map[string]cache.Entry {
		var keys []string
		for i, hit := range l.Hit {
			if !hit {
				keys = append(keys, l.keys[i])
			}
		}
		m, _ := c.Extras(keys) // unreadable: every line is scanned
		return m
	})
	// The walk that found the sessions looked at each log: its answer is the log's stamp (a log
	// it did not see is looked at here).
	inAll := 0 // entries of all that are found's rows or the project folders' log versions
	lstat := os.Lstat
	var listed layout.Listed // and its listing of the folders: the loader's newest version lists them
	if len(found) > 0 {
		listed = found[0].Listed
		lstat = func(p string) (os.FileInfo, error) {
			if fi, ok := found[0].Info(p); ok {
				return fi, nil
			}
			return os.Lstat(p)
		}
	}
	// The logs' versions as the loader's decision reads them, from the cache when a log is
	// unchanged (in the order listed, as they are stored), the others read on every core.
	// Stamps are made in buf and compared as bytes: a string of one only for what is stored.
	var buf []byte
	tailsOf := func(cfg string) func([]resume.Log) []string {
		projects := filepath.Join(cfg, "projects")
		l.unread = append(l.unread, projects) // until a version is read: its entries are kept as they are
		sets := map[string]*tailSet{}
		return func(logs []resume.Log) []string {
			vs := make([]string, len(logs))
			type miss struct {
				log int
				ts  *tailSet
				now int // its place in ts.now, -1: not stored (no stamp)
			}
			var misses []miss
			for i, lg := range logs {
				path, root := lg.Path, lg.Dir
				ts := sets[root]
				if ts == nil {
					if len(sets) == 0 {
						l.unread = slices.DeleteFunc(l.unread, func(p string) bool { return p == projects })
					}
					ts = &tailSet{key: tailKey + root}
					if e, ok := all[ts.key]; ok && string(e.Stamp) == build {
						if n := countTails(e.Data); n >= 0 {
							ts.had, ts.hadN = e.Data, n
						}
						inAll++
					}
					sets[root] = ts
					l.tails = append(l.tails, ts)
				}
				var err error
				buf, err = cache.AppendStamp(buf[:0], []string{path}, "", lstat)
				if err != nil {
					ts.changed = true
					misses = append(misses, miss{i, ts, -1})
					continue
				}
				if lo, hi, stamp, v, ok := ts.find(path); ok && string(stamp) == string(buf) {
					ts.now = append(ts.now, tailRef{lo: lo, hi: hi})
					vs[i] = string(v)
					continue
				}
				misses = append(misses, miss{i, ts, len(ts.now)})
				ts.now, ts.changed = append(ts.now, tailRef{t: tailItem{path: path, stamp: string(buf)}}), true
			}
			read := make([]resume.Log, len(misses))
			for k, m := range misses {
				read[k] = logs[m.log]
			}
			for k, v := range resume.ReadTails(read) {
				m := misses[k]
				vs[m.log] = v
				if m.now >= 0 {
					m.ts.now[m.now].t.version = v
				}
			}
			return vs
		}
	}
	ctxs := map[string]string{} // config folder → a stamp's context: the build and the loader, decided once
	for i, h := range found {
		paths := h.Paths()
		l.keys[i] = paths[0]
		if max > 0 && pastLimit(paths, max, lstat) {
			if l.over == nil {
				l.over = make([]bool, len(found))
			}
			l.over[i] = true // no stamp: not stored
			if _, ok := all[l.keys[i]]; ok {
				inAll++ // kept for a reader without the limit
			}
			continue
		}
		cfg := resume.ConfigDir(paths[0])
		ctx, ok := ctxs[cfg]
		if !ok {
			// The resume figure depends on the loader assumed, which depends on other logs than
			// the session's (resume.LoaderOf): it is part of the stamp, its version and where it
			// comes from (a row shows both: outside a config folder, the installed Claude Code and
			// the default config folder's newest log may say the same version). The newest version
			// under the config folder is remembered for the rows computed next (resume.Compute).
			resume.NewestVersionWith(cfg, listed, tailsOf(cfg))
			ld := resume.LoaderOf(paths[0], "", "")
			ctx = build + "\x00" + ld.Version + "\x00" + ld.From
			ctxs[cfg] = ctx
		}
		var err error
		if buf, err = cache.AppendStamp(buf[:0], paths, ctx, lstat); err != nil {
			continue
		}
		e, ok := all[l.keys[i]]
		if !ok {
			l.stamps[i] = cache.Stamp(buf)
			continue
		}
		inAll++
		if string(e.Stamp) != string(buf) {
			l.stamps[i] = cache.Stamp(buf)
			continue
		}
		l.stamps[i] = e.Stamp
		if raw {
			if l.raw == nil {
				l.raw = make([][]byte, len(found))
			}
			if _, elem, ok := split(e.Data); ok && firstPath(elem) == l.keys[i] {
				l.raw[i], l.Hit[i] = e.Data, true
			}
		} else if r, err := Decode(e.Data); err == nil && r.Path == l.keys[i] {
			l.Rows[i], l.Hit[i] = r, true
		}
	}
	if len(roots) > 0 && inAll < len(all) { // else every entry is one of found's or a project folder's
		l.drop = gone(all, l.keys, l.tails, l.unread, roots)
	}
	return l
}

// pastLimit reports whether a log at paths is larger than max bytes (lstat: the walk's look; a link
// is looked through, as the read would open it).
func pastLimit(paths []string, max int64, lstat func(string) (os.FileInfo, error)) bool {
	for _, p := range paths {
		fi, err := lstat(p)
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			fi, err = os.Stat(p)
		}
		if err == nil && fi.Size() > max {
			return true
		}
	}
	return false
}

// firstPath is the row's own path in its element (its first "path"), "" when not found as a plain string.
func firstPath(elem []byte) string {
	i := bytes.Index(elem, keyPath)
	if i < 0 {
		return ""
	}
	p, _ := stringAt(elem[i+len(keyPath):])
	return p
}

// Row is found[i]'s row where Hit[i]: from Rows, or (LookRawIn) decoded now; false when the cached
// blob does not decode (then the row must be computed).
func (l *Lookup) Row(i int) (Row, bool) {
	if l.raw == nil || l.raw[i] == nil {
		return l.Rows[i], l.Hit[i]
	}
	r, err := Decode(l.raw[i])
	if err != nil || r.Path != l.keys[i] {
		return Row{}, false
	}
	return r, true
}

// Element is found[i]'s cached row (LookRawIn, Hit[i]) as a list element (Element) with its paths as
// display shows them, and its sort keys: the end timestamp and Mod. false: use Row (not a raw hit,
// a path display shows otherwise than as its stored tail, or a key was not plain).
//
// A path display shortens (the working folder holds the logs: ~/.claude/projects/… listed from the
// home folder) is written shortened into a copy of the element: its shown form is a tail of the
// stored one, whose bytes JSON writes as they are, so the copy is what Element(r.Display(display))
// would write, without decoding the row (2.5× a warm listing's time).
func (l *Lookup) Element(i int, display func(string) string) (elem []byte, end string, mod int64, ok bool) {
	if l.raw == nil || l.raw[i] == nil {
		return nil, "", 0, false
	}
	head, elem, _ := split(l.raw[i])
	var out []byte // the copy with shortened paths, once one is
	last := 0      // elem's bytes up to here are in out
	for at := 0; ; {
		// keyPath but its first quote, the commonest byte of JSON, which bytes.Index looks for first
		k := bytes.Index(elem[at:], keyPath[1:])
		if k < 0 {
			break
		}
		k += at
		if k == at || elem[k-1] != '"' { // (k == at: the byte before is the last one looked at, not a quote)
			at = k + 1
			continue
		}
		at = k + len(keyPath) - 1
		b, plain := plainAt(elem[at:])
		if !plain {
			return nil, "", 0, false
		}
		p := l.keys[i] // the row's own path (look checked it is): no string made of it
		if string(b) != p {
			p = string(b)
		}
		shown := display(p)
		if shown == p {
			continue
		}
		if shown == "" || !strings.HasSuffix(p, shown) {
			return nil, "", 0, false
		}
		out = append(append(out, elem[last:at]...), shown...)
		last = at + len(b)
	}
	if out != nil {
		elem = append(out, elem[last:]...)
	}
	k := bytes.Index(elem, keyEnd)
	if k < 0 {
		return nil, "", 0, false
	}
	if end, ok = stringAt(elem[k+len(keyEnd):]); !ok {
		return nil, "", 0, false
	}
	num := head[len(`{"mod":`):]
	if c := bytes.IndexByte(num, ','); c >= 0 {
		num = num[:c]
	}
	mod, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		return nil, "", 0, false
	}
	return elem, end, mod, true
}

// DeletesAt is where elem (Element) gets its deletes day and overdue flag set as Row.SetDeletes sets
// them: elem[:at], mid and elem[end:] are its bytes then (a listing writes them as they are, no copy
// of the element made); false when they are not where Element writes them.
func DeletesAt(elem []byte, when, now time.Time) (at, end int, mid []byte, ok bool) {
	i := bytes.Index(elem, keyDeletes)
	if i < 0 {
		return 0, 0, nil, false
	}
	j := bytes.Index(elem[i:], keyOverdue)
	if j < 0 {
		return 0, 0, nil, false
	}
	rest := i + j + len(keyOverdue)
	switch {
	case bytes.HasPrefix(elem[rest:], []byte("true")):
		end = rest + 4
	case bytes.HasPrefix(elem[rest:], []byte("false")):
		end = rest + 5
	default:
		return 0, 0, nil, false
	}
	var r Row
	r.SetDeletes(when, now)
	mid = make([]byte, 0, len(r.Deletes)+len(keyOverdue)+7)
	if plainDay(r.Deletes) {
		mid = append(append(append(mid, '"'), r.Deletes...), '"') // json.Marshal's bytes for it
	} else {
		day, err := json.Marshal(r.Deletes)
		if err != nil {
			return 0, 0, nil, false
		}
		mid = append(mid, day...)
	}
	mid = strconv.AppendBool(append(mid, keyOverdue...), r.Overdue)
	return i + len(keyDeletes), end, mid, true
}

// plainDay: s is digits and dashes (a day as retention.Day writes it), which JSON writes as they are.
func plainDay(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '-' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Scans is the secret scan of found[i]'s logs for RowWith (Options.Scans) when its row is
// computed: the lines the cache kept the scan of are not scanned again (scans.go). nil without a
// cache. Safe to call for different sessions at once.
func (l *Lookup) Scans(i int) *Scans {
	if l.c == nil || l.extras == nil || l.over != nil && l.over[i] {
		return nil
	}
	var data []byte
	if e, ok := l.extras()[l.keys[i]]; ok && string(e.Stamp) == l.build {
		data = e.Data // the scan of another build is not this one's (its rules may differ)
	}
	sc := newScans(data)
	l.scans[i] = sc
	return sc
}

// Store writes the rows computed (ok[i]: rows[i] is found[i]'s, computed with its logs as Look
// stamped them), their logs' scans (Scans) and the log versions read, and drops the sessions
// gone, in one transaction. Errors
// are the cache's only: the rows are right either way.
func (l *Lookup) Store(rows []Row, ok []bool) error {
	if l.c == nil {
		return nil
	}
	var put []cache.Entry
	build := cache.Build(version.Version)
	for _, ts := range l.tails {
		// Not read (the loader's answer remembered) or as stored: nothing to write.
		if len(ts.now) > 0 && (ts.changed || len(ts.now) != ts.hadN) {
			var b []byte
			for _, r := range ts.now {
				if r.hi > 0 {
					b = append(b, ts.had[r.lo:r.hi]...)
				} else {
					b = appendTail(b, r.t)
				}
			}
			put = append(put, cache.Entry{Key: ts.key, Stamp: cache.Stamp(build), Data: b})
		}
	}
	for i := range rows {
		if !ok[i] || l.Hit[i] || l.stamps[i] == "" {
			continue
		}
		b, err := Encode(rows[i])
		if err != nil {
			return err
		}
		put = append(put, cache.Entry{Key: l.keys[i], Stamp: l.stamps[i], Data: b})
	}
	var extras []cache.Entry
	for i, sc := range l.scans {
		if sc == nil || !ok[i] {
			continue
		}
		if sc.changed {
			b, err := json.Marshal(sc.keep)
			if err != nil {
				return err
			}
			extras = append(extras, cache.Entry{Key: l.keys[i], Stamp: cache.Stamp(l.build), Data: b})
		}
	}
	return l.c.PutExtras(put, extras, l.drop)
}

// Close closes the cache (nothing without one).
func (l *Lookup) Close() error {
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// gone returns the cached keys under roots of sessions not among keys and of log versions not
// among tails (the versions of a project folder no longer listed, those of a whole config folder and
// those a log each, as ccdag stored them before), but the versions under the folders unread.
func gone(all map[string]cache.Entry, keys []string, tails []*tailSet, unread, roots []string) []string {
	have := make(map[string]bool, len(keys)+len(tails))
	for _, k := range keys {
		have[k] = true
	}
	for _, ts := range tails {
		have[ts.key] = true
	}
	var out []string
	for k := range all {
		p, isTail := strings.CutPrefix(k, tailKey)
		if !isTail {
			p = k
		} else if history.Under(p, unread) {
			continue
		}
		if !have[k] && history.Under(p, roots) {
			out = append(out, k)
		}
	}
	return out
}
