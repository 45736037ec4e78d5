package resume

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// The installed Claude Code (docs/spec.md §15): the loader of a log outside any config folder is
// the `claude` on PATH, asked `claude --version` once per binary (its path, size and modification
// time: an update is a new binary). This is the one program ccdag runs (docs/SECURITY.md): found by
// exec.LookPath, which takes no name from a relative PATH entry (".", ""), with no input, its
// output read up to 4 KiB, stopped after installedTimeout.

// installedTimeout bounds `claude --version` (it prints at once; a hung one costs this once).
const installedTimeout = 5 * time.Second

var installed struct {
	sync.Mutex
	m map[binaryKey]string
}

type binaryKey struct {
	path string
	size int64
	mod  time.Time
}

// InstalledVersion returns the version the `claude` on PATH reports, "" when there is none or its
// answer holds no valid version (ValidVersion).
func InstalledVersion() string {
	p, err := exec.LookPath("claude")
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	k := binaryKey{p, fi.Size(), fi.ModTime()}
	installed.Lock()
	defer installed.Unlock() // one asking at a time: concurrent callers wait for the one answer
	if v, ok := installed.m[k]; ok {
		return v
	}
	v := askVersion(p)
	if installed.m == nil {
		installed.m = map[binaryKey]string{}
	}
	installed.m[k] = v
	return v
}

// askVersion runs `bin --version` and reads the version from its first word ("2.1.19 (Claude Code)").
func askVersion(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), installedTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	var out limited
	cmd.Stdout = &out
	cmd.WaitDelay = time.Second // a child holding the pipe open does not hold us
	if cmd.Run() != nil && out.Len() == 0 {
		return ""
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	fields := bytes.Fields(line)
	if len(fields) == 0 || !ValidVersion(string(fields[0])) {
		return ""
	}
	return string(fields[0])
}

// limited keeps the first 4 KiB written to it and drops the rest.
type limited struct{ bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := 4<<10 - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
