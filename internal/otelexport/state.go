package otelexport

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/otelmap"
)

// The --state file: per session, the ids of the spans a backend accepted. A span id names the same
// span in every export (otelmap derives it from the log), so "sent" is exact: a log that grew
// sends the spans it did not have, and a span held back as pending (a call in flight, a message
// still streaming) is sent once final.

const (
	stateFormat  = "ccdag-otel-state"
	StateVersion = 1
	// MaxStateBytes bounds what LoadState reads (docs/spec.md §15): a state costs 19 bytes a span,
	// so 256 MiB is some 14 million spans, and a sparse or runaway file is refused, not read into
	// memory.
	MaxStateBytes = 256 << 20
)

// ErrState is a state file that cannot be used: corrupt, or of another format or version.
var ErrState = errors.New("unusable state file")

// State is what was sent.
type State struct {
	path     string
	sessions map[string]map[otelmap.SpanID]struct{}
}

type stateFile struct {
	Format   string              `json:"format"`
	Version  int                 `json:"version"`
	SemConv  string              `json:"semconv"`
	Sessions map[string][]string `json:"sessions"` // session id -> sorted hex span ids
}

// LoadState reads path; a missing file is an empty state. A corrupt file, one of another version
// or one past MaxStateBytes is an error wrapping ErrState unless reset (start over: an empty state,
// the file overwritten on Save, not read). A path that is not a regular file (a FIFO, a device, a
// folder) is an error, reset or not: it is opened as layout.Open opens a file (never waiting on a
// FIFO) and never read without bound (/dev/zero). A state that Save could not write (its folder
// missing or read-only) is an error too: found out after the run, every run would send the whole
// history again.
func LoadState(path string, reset bool) (*State, error) {
	st := &State{path: path, sessions: map[string]map[otelmap.SpanID]struct{}{}}
	if reset {
		fi, err := os.Stat(path) // a link to a state is followed, as layout.Open follows a named one
		if errors.Is(err, fs.ErrNotExist) {
			return st, st.writable()
		}
		if err != nil {
			return nil, fmt.Errorf("state file %s: %w", path, unwrapPath(err))
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("state file %s: not a regular file", path)
		}
		return st, st.writable()
	}
	b, err := layout.ReadFileMax(path, "", MaxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return st, st.writable()
	}
	if tl := (*layout.TooLargeError)(nil); errors.As(err, &tl) {
		return nil, fmt.Errorf("%w %s: %d bytes, more than the %d MiB a state may hold", ErrState, path, tl.Size, MaxStateBytes>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, unwrapPath(err))
	}
	if err := st.writable(); err != nil {
		return nil, err
	}
	var f stateFile
	bad := func(why string) (*State, error) {
		return nil, fmt.Errorf("%w %s: %s", ErrState, path, why)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return bad("not JSON: " + err.Error())
	}
	if f.Format != stateFormat {
		return bad(fmt.Sprintf("not a ccdag export state (format %q)", f.Format))
	}
	if f.Version != StateVersion || f.SemConv != otelmap.SemConv {
		return bad(fmt.Sprintf("written by another version (state version %d, semconv %s; this ccdag writes %d, %s)",
			f.Version, f.SemConv, StateVersion, otelmap.SemConv))
	}
	for sid, ids := range f.Sessions {
		m := make(map[otelmap.SpanID]struct{}, len(ids))
		for _, h := range ids {
			var id otelmap.SpanID
			if n, err := hex.Decode(id[:], []byte(h)); err != nil || n != len(id) || len(h) != 2*len(id) {
				return bad(fmt.Sprintf("session %q: %q is not a span id", sid, h))
			}
			m[id] = struct{}{}
		}
		st.sessions[sid] = m
	}
	return st, nil
}

// writable checks that Save can write the state: it creates and removes the temporary file Save
// would rename into place.
func (s *State) writable() error {
	tmp, err := s.temp()
	if err != nil {
		return fmt.Errorf("state file %s cannot be written: %w", s.path, unwrapPath(err))
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// temp creates the temporary file beside the state that Save renames over it.
func (s *State) temp() (*os.File, error) {
	return os.CreateTemp(filepath.Dir(s.path), "."+strings.TrimPrefix(filepath.Base(s.path), ".")+".*.tmp")
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Sent reports whether a span of a session was accepted before.
func (s *State) Sent(session string, id otelmap.SpanID) bool {
	_, ok := s.sessions[session][id]
	return ok
}

// Mark records a span as accepted.
func (s *State) Mark(session string, id otelmap.SpanID) {
	m := s.sessions[session]
	if m == nil {
		m = map[otelmap.SpanID]struct{}{}
		s.sessions[session] = m
	}
	m[id] = struct{}{}
}

// Save writes the state atomically (a temporary file renamed over it).
func (s *State) Save() error {
	f := stateFile{Format: stateFormat, Version: StateVersion, SemConv: otelmap.SemConv, Sessions: map[string][]string{}}
	for sid, m := range s.sessions {
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, id.String())
		}
		slices.Sort(ids)
		f.Sessions[sid] = ids
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp, err := s.temp()
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
