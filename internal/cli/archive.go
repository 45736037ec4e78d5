package cli

import (
	"fmt"

	"github.com/ccdag/ccdag/internal/archive"
	"github.com/ccdag/ccdag/internal/history"
)

// runArchive copies every session's files under the folders named (the config folder's projects/
// when none is) into DEST, in the same layout (docs/spec.md §11).
func runArchive(args []string, env Env) int {
	fset := newFlagSet("archive", env)
	pos, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if len(pos) == 0 {
		return usageError(env, fmt.Errorf("archive needs a DEST folder"))
	}
	dest, dirs := pos[0], pos[1:]
	if len(dirs) == 0 {
		d, err := history.DefaultDir()
		if err != nil {
			return usageError(env, err)
		}
		dirs = []string{d}
	}
	res, err := archive.Run(dest, dirs)
	if err != nil {
		errorf(env.Stderr, "ccdag: archive: %v; nothing copied\n", err)
		return ExitUsage
	}
	changed := false
	for _, p := range res.Problems {
		errorf(env.Stderr, "ccdag: %s: %s\n", displayPath(p.Path), p.Why)
		changed = changed || p.Changed
	}
	errorf(env.Stderr, "ccdag archive: %d new file(s), %d grown, %d already archived; %d byte(s) copied into %s\n",
		res.New, res.Grown, res.Same, res.Bytes, dest)
	switch {
	case len(res.Problems) > 0 && !changed:
		return ExitUsage
	case changed:
		return ExitFindings
	}
	return ExitOK
}
