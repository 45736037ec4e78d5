package layout

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMapFileReadsTheBytes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 10, mapMin - 1, mapMin, 3 << 20} {
		p := filepath.Join(dir, "x.jsonl")
		want := bytes.Repeat([]byte("{}\n"), size/3+1)[:size]
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := MapFile(p, filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Data, want) {
			t.Errorf("size %d: bytes differ", size)
		}
		if size >= mapMin && runtime.GOOS == "linux" && !m.mapped {
			t.Errorf("size %d: not mapped", size)
		}
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestMapFileRefusesNonRegular(t *testing.T) {
	if _, err := MapFile("/dev/zero", ""); err == nil {
		t.Error("mapped /dev/zero")
	}
	if _, err := MapFile(t.TempDir(), ""); err == nil {
		t.Error("mapped a folder")
	}
}

// A file truncated while mapped must not crash the process: the access to a lost page faults, and
// Guard turns the fault into ErrShrunk.
func TestMappedFileThatShrinksDoesNotCrash(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapping is tested on linux")
	}
	p := filepath.Join(t.TempDir(), "live.jsonl")
	if err := os.WriteFile(p, bytes.Repeat([]byte("{\"type\":\"user\"}\n"), 1<<16), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := MapFile(p, filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !m.mapped {
		t.Fatal("not mapped")
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var sum int
	err = Guard(func() {
		for i := 0; i < len(m.Data); i += 4096 {
			sum += int(m.Data[i])
		}
	})
	if !errors.Is(err, ErrShrunk) {
		t.Fatalf("Guard = %v, want ErrShrunk", err)
	}
	// Other panics are not swallowed.
	defer func() {
		if recover() == nil {
			t.Error("a plain panic was swallowed")
		}
	}()
	_ = Guard(func() { panic("boom") })
}
