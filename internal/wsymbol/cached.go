package wsymbol

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/cache"
	"github.com/ccdag/ccdag/internal/history"
	"github.com/ccdag/ccdag/internal/textsafe"
	"github.com/ccdag/ccdag/internal/version"
)

// The index in the history cache (docs/spec.md §14): the first build takes each unchanged log's
// symbols from the cache and stores those of the logs it read, so that a server started on a
// history it knows reads none of it. An entry holds what File holds (names already redacted and
// cut: no log text), stamped with the log's size, times and identity and ccdag's build. The day a
// container shows is local: the entry holds the first prompt's instant and the day is made from it
// when read, in the zone of the reader, so an entry holds whatever the zone (a key of the zone's
// current offset left a day stale where two zones of one offset today differed in the past).

// cacheKey is the key of a log's symbols in the cache.
const cacheKey = "wsym:"

type storedFile struct {
	Size  int64  `json:"size"`
	Lines int    `json:"lines"`
	Names []byte `json:"names"`
	Syms  []byte `json:"syms"` // symSize bytes each: off, line (uint32), n, kind
	Title string `json:"title,omitempty"`
	First string `json:"first,omitempty"` // the first prompt's instant (RFC 3339, UTC): its local day is shown
}

const symSize = 10

func encodeFile(f *File) ([]byte, error) {
	s := storedFile{Size: f.size, Lines: f.lines, Names: f.names, Title: f.title, Syms: make([]byte, 0, len(f.syms)*symSize)}
	if !f.first.IsZero() {
		s.First = f.first.UTC().Format(time.RFC3339Nano)
	}
	for _, y := range f.syms {
		s.Syms = binary.LittleEndian.AppendUint32(s.Syms, y.off)
		s.Syms = binary.LittleEndian.AppendUint32(s.Syms, y.line)
		s.Syms = append(s.Syms, y.n, y.kind)
	}
	return json.Marshal(s)
}

// decodeFile makes the File of path (its stat fi) from an entry; an entry that does not hold
// together is an error (the log is then read).
func decodeFile(path string, fi os.FileInfo, b []byte) (*File, error) {
	var s storedFile
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	if len(s.Syms)%symSize != 0 || s.Size < 0 || s.Size > fi.Size() || s.Lines < 0 {
		return nil, errors.New("not a log's symbols")
	}
	f := &File{path: path, container: textsafe.Printable(projectOf(path)), mod: fi.ModTime(), ino: fileIno(fi),
		size: s.Size, lines: s.Lines, names: s.Names, title: s.Title, seen: map[string]struct{}{}}
	if s.First != "" {
		if f.first, f.date = instant(s.First); f.date == "" {
			return nil, errors.New("not a log's symbols")
		}
	}
	for b := s.Syms; len(b) > 0; b = b[symSize:] {
		y := sym{off: binary.LittleEndian.Uint32(b), line: binary.LittleEndian.Uint32(b[4:]), n: b[8], kind: b[9]}
		if int(y.off)+int(y.n) > len(f.names) || y.kind < uint8(Turn) || y.kind > uint8(ToolCall) || int(y.line) >= s.Lines {
			return nil, errors.New("not a log's symbols")
		}
		f.syms = append(f.syms, y)
		f.seen[string(rune('0'+y.kind))+string(f.names[y.off:y.off+uint32(y.n)])] = struct{}{}
	}
	return f, nil
}

// fromCache returns, for each of files, the File the cache holds for the log as it is now (nil:
// none), and the stamps taken.
func (x *Index) fromCache(files []string) (got []*File, stamps []cache.Stamp, all map[string]cache.Entry) {
	got = make([]*File, len(files))
	stamps = make([]cache.Stamp, len(files))
	if x.Cache == nil {
		return got, stamps, nil
	}
	all, err := x.Cache.Prefixed(cacheKey)
	if err != nil {
		return got, stamps, nil
	}
	// No time zone in it: an entry holds an instant, its local day made when read (encodeFile).
	// "wsymbol2": entries of "wsymbol" held the day.
	ctx := "wsymbol2 " + cache.Build(version.Version)
	for i, p := range files {
		fi, err := os.Lstat(p)
		if err != nil || x.overLimit(fi.Size()) { // past the limit: not read, not even from the cache
			continue
		}
		st, err := cache.StampOf([]string{p}, ctx)
		if err != nil {
			continue
		}
		stamps[i] = st
		if e, ok := all[cacheKey+p]; ok && e.Stamp == st {
			if f, err := decodeFile(p, fi, e.Data); err == nil {
				got[i] = f
			}
		}
	}
	return got, stamps, all
}

// toCache stores the Files read (read[i], stamped stamps[i]) and drops the entries of logs under
// the roots that are gone.
func (x *Index) toCache(files []string, read []*File, stamps []cache.Stamp, all map[string]cache.Entry) {
	if x.Cache == nil {
		return
	}
	var put []cache.Entry
	for i, f := range read {
		if f == nil || f.over || stamps[i] == "" {
			continue
		}
		if b, err := encodeFile(f); err == nil {
			put = append(put, cache.Entry{Key: cacheKey + files[i], Stamp: stamps[i], Data: b})
		}
	}
	have := make(map[string]bool, len(files))
	for _, p := range files {
		have[p] = true
	}
	var drop []string
	for k := range all {
		if p, ok := strings.CutPrefix(k, cacheKey); ok && !have[p] && history.Under(p, x.roots) {
			drop = append(drop, k)
		}
	}
	if err := x.Cache.Put(put, drop); err != nil {
		x.log.Info("workspace symbols: history cache not written")
	}
}
