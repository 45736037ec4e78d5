package catalog

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/session"
)

// The secret scan of a session's logs kept in the history cache (docs/spec.md §14, "a grown
// log"): a session computed again because a log of it grew re-parses every log (cheap) but scans
// only the lines it did not scan before. The cache keeps, per log, how far it was scanned (up to
// its last newline: a torn last line is scanned again with its continuation), a hash of those
// bytes, how many lines and records they hold, and the hits found in them as positions (line,
// byte range, rule: never the secret). A log whose first bytes no longer hash the same (rewritten
// in place, replaced, shrunk) is scanned whole. The state is an extra of the session's entry
// (cache.Extras, key: the main log), which a warm listing never reads.

// logScan is what the cache keeps of one log's scan.
type logScan struct {
	Path  string    `json:"path"`
	Len   int       `json:"len"`   // bytes scanned: the log up to and with its last newline
	Lines int       `json:"lines"` // lines in them
	Recs  int       `json:"recs"`  // records among those lines: every one was scanned
	Hash  uint64    `json:"hash"`  // xxhash64 of the bytes
	Hits  []lineHit `json:"hits,omitempty"`
}

// lineHit is a secret found: where, and by which rule.
type lineHit struct {
	Line  int    `json:"l"`
	Start int32  `json:"s"`
	End   int32  `json:"e"`
	Rule  string `json:"r"`
}

// scanEntry is the extra kept per session: its logs' scans.
type scanEntry struct {
	Logs []logScan `json:"logs"`
}

// Scans is the secret scan of one session's logs as RowWith runs it (Options.Scans; made by
// Lookup.Scans): the lines the cache's kept scan holds are answered from it, the others scanned,
// and what this read scanned is kept (Lookup.Store). Not safe for concurrent use (one session is
// checked on one goroutine).
type Scans struct {
	kept    map[string]*logScan
	files   map[*session.File]*fileScan
	scanned int // lines scanned by this read (tests: the old lines are not)

	// finish's: what to keep, and whether it differs from what was kept.
	keep    scanEntry
	changed bool
}

// fileScan is one log's scan in this read.
type fileScan struct {
	f                *session.File
	known            *logScan // the kept scan of the log's first lines, when it holds
	knownHits        map[int][]secrets.Hit
	cut, lines, recs int    // this read's: bytes up to the last newline, their lines and records
	hash             uint64 // xxhash64 of text[:cut], taken before any line is scanned
	answered         []uint64
	nAnswered        int                   // records before lines answered (scanned or known)
	hits             map[int][]secrets.Hit // lines before lines scanned now, with hits
}

// scanLine is the scan of a line (a variable: a test changes the log while it is scanned).
var scanLine = func(line []byte) []secrets.Hit { return secrets.Default().Line(line, nil) }

// newScans reads a session's extra (nil or not decodable: nothing kept).
func newScans(data []byte) *Scans {
	sc := &Scans{kept: map[string]*logScan{}, files: map[*session.File]*fileScan{}}
	var e scanEntry
	if data != nil && json.Unmarshal(data, &e) == nil {
		for i := range e.Logs {
			sc.kept[e.Logs[i].Path] = &e.Logs[i]
		}
	}
	return sc
}

// hits is check.Options.Scan: record r's secrets, from the kept scan where it holds r's line.
func (sc *Scans) hits(r *session.Rec) []secrets.Hit {
	fs := sc.file(r.File)
	if r.Line < fs.lines {
		if w, b := r.Line/64, uint64(1)<<(r.Line%64); fs.answered[w]&b == 0 {
			fs.answered[w] |= b
			fs.nAnswered++
		}
	}
	if fs.known != nil && r.Line < fs.known.Lines {
		return fs.knownHits[r.Line]
	}
	h := scanLine(r.LineBytes())
	sc.scanned++
	if r.Line < fs.lines && len(h) > 0 {
		fs.hits[r.Line] = h
	}
	return h
}

// file is f's scan in this read, set up on its first record: the bytes up to its last newline
// hashed (before any of its lines is scanned), and the kept scan taken when its bytes hash the
// same and its lines hold as many records now.
func (sc *Scans) file(f *session.File) *fileScan {
	if fs := sc.files[f]; fs != nil {
		return fs
	}
	text := f.Text()
	fs := &fileScan{f: f, hits: map[int][]secrets.Hit{}}
	// The lines up to the last newline, from the file's line index (not counted again).
	if fs.lines = f.LineCount(); fs.lines > 0 && text[len(text)-1] != '\n' {
		fs.lines--
	}
	fs.cut = f.LineStart(fs.lines)
	fs.answered = make([]uint64, (fs.lines+63)/64)
	var d xxhash.Digest
	d.Reset()
	done := 0
	if k := sc.kept[f.Path]; k != nil && k.Len > 0 && k.Len <= fs.cut && k.Lines <= fs.lines {
		d.Write(text[:k.Len])
		done = k.Len
		if d.Sum64() == k.Hash && recsBefore(f, k.Lines) == k.Recs {
			fs.known = k
			fs.knownHits = map[int][]secrets.Hit{}
			for _, h := range k.Hits {
				fs.knownHits[h.Line] = append(fs.knownHits[h.Line], secrets.Hit{Start: h.Start, End: h.End, Rule: h.Rule})
			}
		}
	}
	d.Write(text[done:fs.cut])
	fs.hash = d.Sum64()
	fs.recs = recsBefore(f, fs.lines)
	sc.files[f] = fs
	return fs
}

// recsBefore counts f's records on lines before n.
func recsBefore(f *session.File, n int) int {
	c := 0
	f.Recs(func(r *session.Rec) bool {
		if r.Line >= n {
			return false
		}
		c++
		return true
	})
	return c
}

// finish sets what to keep of this read's scans, and whether it differs from what was kept,
// while the session's logs are still there to read (RowWith, once it checked them), and lets go
// of the session. A log is kept only when every record before its last newline was answered and
// its bytes hash now as they did before the scan (a log rewritten while it was read keeps
// nothing).
func (sc *Scans) finish() {
	var e scanEntry
	changed := false
	for _, fs := range sc.files {
		if fs.nAnswered != fs.recs || xxhash.Sum64(fs.f.Text()[:fs.cut]) != fs.hash {
			changed = true
			continue
		}
		ls := logScan{Path: fs.f.Path, Len: fs.cut, Lines: fs.lines, Recs: fs.recs, Hash: fs.hash}
		if fs.known != nil {
			ls.Hits = append(ls.Hits, fs.known.Hits...)
		}
		for line, hs := range fs.hits {
			for _, h := range hs {
				ls.Hits = append(ls.Hits, lineHit{Line: line, Start: h.Start, End: h.End, Rule: h.Rule})
			}
		}
		slices.SortStableFunc(ls.Hits, func(a, b lineHit) int { return a.Line - b.Line })
		if k := sc.kept[ls.Path]; k == nil || k.Len != ls.Len || k.Hash != ls.Hash {
			changed = true
		}
		e.Logs = append(e.Logs, ls)
	}
	slices.SortFunc(e.Logs, func(a, b logScan) int { return strings.Compare(a.Path, b.Path) })
	if len(e.Logs) != len(sc.kept) {
		changed = true
	}
	sc.keep, sc.changed, sc.files = e, changed, nil
}
