package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// keepXattrs gives dst exactly the extended attributes of src (ACLs are system.posix_acl_*
// attributes here; a default ACL of the folder gave dst one the log may not have). Both are
// named through /proc/self/fd, so what is changed is the open file, never a link swapped in. An
// attribute that cannot be carried over refuses the fix, with its name.
func keepXattrs(dst, src *os.File) error {
	sp, dp := fdPath(src), fdPath(dst)
	want, err := xattrs(sp)
	if err != nil {
		if errors.Is(err, syscall.ENOTSUP) {
			return nil // the file system has none
		}
		return fmt.Errorf("cannot list its extended attributes: %w", err)
	}
	have, err := xattrs(dp)
	if err != nil && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("cannot list the new file's extended attributes: %w", err)
	}
	for name := range have {
		if _, ok := want[name]; !ok {
			if err := syscall.Removexattr(dp, name); err != nil {
				return fmt.Errorf("cannot remove the extended attribute %s the new file got from its folder: %w", strconv.Quote(name), err)
			}
		}
	}
	for name, v := range want {
		if hv, ok := have[name]; ok && bytes.Equal(hv, v) {
			continue
		}
		if err := syscall.Setxattr(dp, name, v, 0); err != nil {
			return fmt.Errorf("cannot carry over its extended attribute %s: %w", strconv.Quote(name), err)
		}
	}
	return nil
}

func fdPath(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// xattrs reads every extended attribute of path.
func xattrs(path string) (map[string][]byte, error) {
	n, err := syscall.Listxattr(path, nil)
	if err != nil || n == 0 {
		return nil, err
	}
	buf := make([]byte, n+256) // room for one added meanwhile
	if n, err = syscall.Listxattr(path, buf); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, name := range bytes.Split(buf[:n], []byte{0}) {
		if len(name) == 0 {
			continue
		}
		sz, err := syscall.Getxattr(path, string(name), nil)
		if err != nil {
			return nil, err
		}
		v := make([]byte, sz)
		if sz, err = syscall.Getxattr(path, string(name), v); err != nil {
			return nil, err
		}
		out[string(name)] = v[:sz]
	}
	return out, nil
}
