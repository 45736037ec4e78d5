package history

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// The Linux walk (fstatat relative to each folder, the folders under a root on every core) finds
// what the portable walk (filepath.WalkDir) finds: the same logs in the same order, the same lstat
// of each, the same listings and the same errors, on a tree with links, a FIFO, a folder named
// *.jsonl, folders nested, a root that is a link and roots inside each other.
func TestWalkDirIsWalkNamed(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "projects")
	write := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		write(fmt.Sprintf("-p%02d/s%d.jsonl", i, i))
		write(fmt.Sprintf("-p%02d/s%d/subagents/agent-a%d.jsonl", i, i, i))
		write(fmt.Sprintf("-p%02d/s%d/subagents/agent-a%d.meta.json", i, i, i))
	}
	write("top.jsonl")
	write("a-file.txt")
	write("-p03/deep/er/still/log.jsonl")
	write("-p03/zz.jsonl")
	write("-p04/name with spaces & ünïcode.jsonl")
	os.MkdirAll(filepath.Join(root, "-p05", "dir.jsonl"), 0o755)
	os.MkdirAll(filepath.Join(root, "-empty"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(root, "-p06", "fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "o.jsonl"), []byte("o\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "-p07", "out"))
	os.Symlink(filepath.Join(outside, "o.jsonl"), filepath.Join(root, "-p07", "link.jsonl"))
	os.Symlink("s8.jsonl", filepath.Join(root, "-p08", "rel.jsonl"))
	os.Symlink(outside, filepath.Join(root, "linked-project"))
	named := filepath.Join(base, "named")
	os.Symlink(root, named)
	if os.Geteuid() != 0 { // root reads a folder whatever its mode
		os.MkdirAll(filepath.Join(root, "-p09", "locked"), 0o755)
		write("-p09/locked/hidden.jsonl")
		os.Chmod(filepath.Join(root, "-p09", "locked"), 0o300)
		defer os.Chmod(filepath.Join(root, "-p09", "locked"), 0o755)
	}
	for _, roots := range [][]string{{root}, {named}, {root, filepath.Join(root, "-p03")}, {filepath.Join(root, "-p00")}, {filepath.Join(root, "-p03", "deep")}} {
		walkBoth := func(dir func(root, abs string, w *walked, files []string, errs []error) ([]string, []error)) ([]string, *walked, []error) {
			w := &walked{infos: map[string]fs.FileInfo{}, dirs: map[string]*listing{}}
			var files []string
			var errs []error
			for _, r := range roots {
				files, errs = dir(r, r, w, files, errs)
			}
			return files, w, errs
		}
		files, w, errs := walkBoth(walkDir)
		wantFiles, want, wantErrs := walkBoth(walkNamed)
		if len(files) == 0 || !reflect.DeepEqual(files, wantFiles) {
			t.Errorf("%v: logs\n%q\nwant (WalkDir's)\n%q", roots, files, wantFiles)
		}
		if fmt.Sprint(errs) != fmt.Sprint(wantErrs) {
			t.Errorf("%v: errors %v, want %v", roots, errs, wantErrs)
		}
		if len(w.infos) != len(want.infos) {
			t.Errorf("%v: %d infos, want %d", roots, len(w.infos), len(want.infos))
		}
		for p, wi := range want.infos {
			fi := w.infos[p]
			if fi == nil || fi.Name() != wi.Name() || fi.Size() != wi.Size() || fi.Mode() != wi.Mode() || !fi.ModTime().Equal(wi.ModTime()) || fi.IsDir() != wi.IsDir() ||
				!reflect.DeepEqual(fi.Sys(), wi.Sys()) {
				t.Errorf("%v: info of %s %+v, want the lstat %+v", roots, p, fi, wi)
			}
		}
		if len(w.dirs) != len(want.dirs) {
			t.Errorf("%v: %d folders listed, want %d", roots, len(w.dirs), len(want.dirs))
		}
		for d, wl := range want.dirs {
			l := w.dirs[d]
			if l == nil || l.whole != wl.whole || len(l.entries) != len(wl.entries) {
				t.Errorf("%v: listing of %s %+v, want %+v", roots, d, l, wl)
				continue
			}
			for i, e := range l.entries {
				if we := wl.entries[i]; e.Name() != we.Name() || e.Type() != we.Type() {
					t.Errorf("%v: %s entry %d %s %v, want %s %v", roots, d, i, e.Name(), e.Type(), we.Name(), we.Type())
				}
			}
		}
	}
}
