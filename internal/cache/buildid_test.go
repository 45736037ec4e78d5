package cache

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two builds of one version, size and modification time (-buildvcs=false development builds,
// packagers that fix times) do not share entries: the key holds the Go build ID. Without one found,
// the key is the size and time as before.
func TestBuildKeyHoldsBuildID(t *testing.T) {
	a, b, none := exeKey(100, 7, "aaa/bbb"), exeKey(100, 7, "aaa/ccc"), exeKey(100, 7, "")
	if a == b || a == none {
		t.Errorf("keys of different build IDs: %q %q %q", a, b, none)
	}
	if none != "100 7" {
		t.Errorf("key without a build ID: %q, want size and time", none)
	}
}

// The raw build ID (the text's first bytes but on ELF) is found anywhere in the bytes read.
func TestBuildIDRaw(t *testing.T) {
	junk := strings.Repeat("\x00\x90junk", 300)
	for _, tc := range []struct{ name, head, want string }{
		{"found", junk + "\xff Go build ID: \"abc/def-_1\"\n \xff" + junk, "abc/def-_1"},
		{"at the start", "\xff Go build ID: \"x/y\"\n \xff", "x/y"},
		{"none", junk, ""},
		{"no end", junk + "\xff Go build ID: \"abc/def", ""},
		{"not a quoted string", "\xff Go build ID: \"a\\q\"\n \xff", ""},
	} {
		if got := idOf([]byte(tc.head)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// In an ELF file the build ID is the Go note of a PT_NOTE segment (after a GNU note here), in
// either byte order and class.
func TestBuildIDELF(t *testing.T) {
	for _, tc := range []struct {
		name string
		is64 bool
		bo   binary.ByteOrder
	}{{"64-bit little-endian", true, binary.LittleEndian}, {"32-bit big-endian", false, binary.BigEndian}} {
		t.Run(tc.name, func(t *testing.T) {
			head := fakeELF(tc.is64, tc.bo, "Go\x00\x00", 4, "abc/defgh")
			if got := idOf(head); got != "abc/defgh" {
				t.Errorf("%q, want abc/defgh", got)
			}
			if got := idOf(fakeELF(tc.is64, tc.bo, "Go\x00\x00", 3, "abc/defgh")); got != "" {
				t.Errorf("a note of another type read as the build ID: %q", got)
			}
			if got := idOf(head[:len(head)-1024-2]); got != "" { // the note's end not read
				t.Errorf("cut short: %q", got)
			}
		})
	}
}

// fakeELF is an ELF header, a program header table of a PT_LOAD and a PT_NOTE, and the note
// segment: a GNU build ID note, then a note of name and type holding desc.
func fakeELF(is64 bool, bo binary.ByteOrder, name string, typ uint32, desc string) []byte {
	note := func(b []byte, name string, typ uint32, desc string) []byte {
		var w [12]byte
		bo.PutUint32(w[:], uint32(len(name)))
		bo.PutUint32(w[4:], uint32(len(desc)))
		bo.PutUint32(w[8:], typ)
		b = append(b, w[:]...)
		b = append(b, name...)
		b = append(b, make([]byte, (4-len(name)%4)%4)...)
		b = append(b, desc...)
		return append(b, make([]byte, (4-len(desc)%4)%4)...)
	}
	notes := note(nil, "GNU\x00", 3, "0123456789abcdef0123")
	notes = note(notes, name, typ, desc)
	ehsize, phsize := 52, 32
	if is64 {
		ehsize, phsize = 64, 56
	}
	noteOff := ehsize + 2*phsize
	head := make([]byte, noteOff, 4096)
	copy(head, "\x7fELF")
	head[4], head[5], head[6] = 1, 1, 1
	if is64 {
		head[4] = 2
	}
	if bo == binary.BigEndian {
		head[5] = 2
	}
	bo.PutUint32(head[20:], 1) // e_version: EV_CURRENT
	ph := func(at int, typ uint32, off, n uint64) {
		bo.PutUint32(head[at:], typ)
		if is64 {
			bo.PutUint64(head[at+8:], off)
			bo.PutUint64(head[at+32:], n)
		} else {
			bo.PutUint32(head[at+4:], uint32(off))
			bo.PutUint32(head[at+16:], uint32(n))
		}
	}
	if is64 {
		bo.PutUint64(head[32:], uint64(ehsize))
		bo.PutUint16(head[54:], uint16(phsize))
		bo.PutUint16(head[56:], 2)
	} else {
		bo.PutUint32(head[28:], uint32(ehsize))
		bo.PutUint16(head[42:], uint16(phsize))
		bo.PutUint16(head[44:], 2)
	}
	ph(ehsize, 1, 0, 4096) // PT_LOAD
	ph(ehsize+phsize, 4, uint64(noteOff), uint64(len(notes)))
	head = append(head, notes...)
	return append(head, make([]byte, 1024)...)
}

// The running test binary's own build ID is found in its first 32 KiB (on ELF, the one debug/elf
// reads from its note section), and it is in the key.
func TestOwnBuildIDFound(t *testing.T) {
	_, b, id := ownExecutable(t)
	if id == "" || !strings.Contains(id, "/") {
		t.Fatalf("build ID %q", id)
	}
	if f, err := elf.NewFile(bytes.NewReader(b)); err == nil {
		s := f.Section(".note.go.buildid")
		if s == nil {
			t.Fatal("no .note.go.buildid section")
		}
		data, _ := s.Data()
		if n := f.ByteOrder.Uint32(data[4:]); len(data) < 16+int(n) || string(data[16:16+n]) != id {
			t.Errorf("build ID %q, the note section holds %q", id, data)
		}
	}
	if !strings.HasSuffix(Build("v"), " "+id) {
		t.Errorf("Build: %q, want the build ID %q at its end", Build("v"), id)
	}
}

// Two executables alike in version, size and modification time but for their build ID (the test
// binary, and a copy with another ID written over its own) name themselves otherwise.
func TestBuildsAlikeButForTheirIDDiffer(t *testing.T) {
	exe, b, id := ownExecutable(t)
	if id == "" {
		t.Fatal("no build ID in the test binary")
	}
	other := strings.Map(func(r rune) rune { // same length, another ID
		if r == '/' {
			return r
		}
		return 'A' + (r+1)%26
	}, id)
	if other == id {
		t.Fatalf("no other ID made of %q", id)
	}
	dir := t.TempDir()
	when := time.Now().Add(-time.Hour)
	var names []string
	for i, body := range [][]byte{b, bytes.ReplaceAll(b, []byte(id), []byte(other))} {
		p := filepath.Join(dir, []string{"a", "b"}[i]+filepath.Ext(exe))
		if err := os.WriteFile(p, body, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, when, when)
		cmd := exec.Command(p, "-test.run=^$")
		cmd.Env = append(os.Environ(), "CCDAG_CACHE_TEST_ROLE=build")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		names = append(names, string(out))
	}
	if names[0] == names[1] {
		t.Errorf("both builds are %q", names[0])
	}
	if !strings.HasSuffix(names[0], " "+id) || !strings.HasSuffix(names[1], " "+other) {
		t.Errorf("builds %q and %q, want their IDs %q and %q at the end", names[0], names[1], id, other)
	}
}

// ownExecutable returns the test binary's path, its bytes and the build ID read from its first
// 32 KiB, as Build reads it.
func ownExecutable(t *testing.T) (string, []byte, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	return exe, b, buildID(bytes.NewReader(b), b[:min(len(b), 32<<10)])
}

// idOf is buildID of a file whose bytes are all in b.
func idOf(b []byte) string { return buildID(bytes.NewReader(b), b) }
