package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ccdag/ccdag/internal/parallel"
)

// walkDir is walkNamed's walk (the same logs, listings, infos and errors, in the same order:
// TestWalkDirIsWalkNamed) with fewer system calls and on every core: a folder is opened relative
// to its parent's handle (O_NOFOLLOW: a link inside the folder named is an entry, never followed),
// its logs are looked at relative to it (fstatat of a short name: no lookup of the whole path, no
// path cleaned), and the folders under abs are walked on a goroutine a core, each whole by one,
// their results put together in the walk's order. A warm `ccdag sessions` spent a fifth of its time
// in the walk of 1 709 logs (docs/PERFORMANCE.md, "The history cache").
func walkDir(root, abs string, w *walked, files []string, errs []error) ([]string, []error) {
	var top walkPart
	dir, fd, es := top.list(unix.AT_FDCWD, abs, abs, true) // the folder named may be a link: the person named it
	if dir == nil {
		top.into(w)
		return files, append(errs, top.errs...)
	}
	defer dir.Close()
	var subs []int // the entries that are folders, each walked by one goroutine
	logs := make([]int, len(es))
	for i, e := range es {
		if e.IsDir() {
			subs = append(subs, i)
		} else {
			logs[i] = top.log(fd, abs, e)
		}
	}
	parts := make([]walkPart, len(subs))
	parallel.Each(len(subs), func(k int) {
		name := es[subs[k]].Name()
		parts[k].walk(fd, name, join(abs, name))
	})
	// In the walk's order: the folder's own error, then its entries, a folder's whole walk in its
	// place.
	top.into(w)
	errs = append(errs, top.errs...)
	k := 0
	for i := range es {
		switch {
		case k < len(subs) && subs[k] == i:
			parts[k].into(w)
			files, errs = append(files, parts[k].files...), append(errs, parts[k].errs...)
			k++
		case logs[i] > 0:
			files = append(files, top.files[logs[i]-1])
		}
	}
	return files, errs
}

// walkPart is what the walk of a folder (and everything under it) found, kept apart until it is put
// into the walk's shared maps (into).
type walkPart struct {
	files []string
	infos []*statInfo
	dirs  []string
	lists []*listing
	errs  []error
}

// into puts the part's infos and listings into w, after those of the parts walked before it (a
// folder walked twice, by roots inside each other, is listed anew, as walkNamed lists it).
func (p *walkPart) into(w *walked) {
	for i, f := range p.files {
		w.infos[f] = p.infos[i]
	}
	for i, d := range p.dirs {
		w.dirs[d] = p.lists[i]
	}
}

// walk walks the folder name of the folder open as parent, whose path is path, and everything under it.
func (p *walkPart) walk(parent int, name, path string) {
	dir, fd, es := p.list(parent, name, path, false)
	if dir == nil {
		return
	}
	defer dir.Close()
	for _, e := range es {
		if e.IsDir() {
			p.walk(fd, e.Name(), join(path, e.Name()))
		} else {
			p.log(fd, path, e)
		}
	}
}

// list opens the folder name of the folder open as parent (AT_FDCWD: name is the path of the folder
// named, which may be a link) and reads its entries, sorted by name, recording its listing; the
// folder is given open (and its descriptor, to look at its entries) unless it could not be opened,
// or read whole but for the folder named (top), whose entries read before the error are walked (as
// filepath.WalkDir does).
func (p *walkPart) list(parent int, name, path string, top bool) (*os.File, int, []fs.DirEntry) {
	l := &listing{whole: true}
	p.dirs, p.lists = append(p.dirs, path), append(p.lists, l)
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if parent != unix.AT_FDCWD {
		flags |= unix.O_NOFOLLOW
	}
	var fd int
	err := retry(func() (err error) { fd, err = unix.Openat(parent, name, flags, 0); return err })
	var dir *os.File
	var es []fs.DirEntry
	if err == nil {
		dir = os.NewFile(uintptr(fd), path)
		es, err = dir.ReadDir(-1)
		slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	if err != nil {
		l.whole = false
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		p.errs = append(p.errs, fmt.Errorf("cannot read %s: %w", path, err))
		if dir != nil && !top {
			dir.Close()
			dir = nil
		}
		if dir == nil {
			return nil, 0, nil
		}
	}
	l.entries = es
	return dir, fd, es
}

// log looks at the entry e of the folder open as fd, whose path is dir, when it is a log (a regular
// file named *.jsonl: links, devices and other files are not read), and returns how many logs the
// part holds then (0: not a log, or vanished since the folder was listed).
func (p *walkPart) log(fd int, dir string, e fs.DirEntry) int {
	if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
		return 0
	}
	info := &statInfo{name: e.Name()}
	if !lstatAt(fd, e.Name(), &info.sys) {
		return 0
	}
	p.files, p.infos = append(p.files, join(dir, e.Name())), append(p.infos, info)
	return len(p.files)
}

// join is filepath.Join(dir, name) for a clean dir and a name of a folder's entry, without cleaning.
func join(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// lstatAt is fstatat(fd, name, AT_SYMLINK_NOFOLLOW) into st.
func lstatAt(fd int, name string, st *syscall.Stat_t) bool {
	var u unix.Stat_t
	if retry(func() error { return unix.Fstatat(fd, name, &u, unix.AT_SYMLINK_NOFOLLOW) }) != nil {
		return false
	}
	*st = syscall.Stat_t{Dev: u.Dev, Ino: u.Ino, Nlink: u.Nlink, Mode: u.Mode, Uid: u.Uid, Gid: u.Gid, Rdev: u.Rdev,
		Size: u.Size, Blksize: u.Blksize, Blocks: u.Blocks, Atim: syscall.Timespec(u.Atim), Mtim: syscall.Timespec(u.Mtim), Ctim: syscall.Timespec(u.Ctim)}
	return true
}

// retry runs f again while it is interrupted by a signal (EINTR), as package os does.
func retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// statInfo is a log's lstat as os.Lstat gives it (the same Name, Size, Mode, ModTime, IsDir and
// Sys, a *syscall.Stat_t), read by fstatat; os.SameFile does not take it (compare Sys's Dev and Ino).
type statInfo struct {
	name string
	sys  syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.sys.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.sys.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.sys }

// Mode is os's (os/stat_linux.go).
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.sys.Mode & 0o777)
	switch s.sys.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.sys.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.sys.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.sys.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
