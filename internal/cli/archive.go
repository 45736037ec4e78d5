package cli

import (
	"errors"
	"fmt"

	"github.com/ccdag/ccdag/internal/archive"
	"github.com/ccdag/ccdag/internal/history"
)

// runArchive copies every session's files under the folders and logs named (the config folder's
// projects/ when none is) into DEST, in the same layout (docs/spec.md §11, §15).
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
	if errors.Is(err, archive.ErrBusy) {
		errorf(env.Stderr, "ccdag: archive: %v (%s); nothing copied: run it again when the other is done\n", err, dest)
		return ExitUsage
	}
	if err != nil {
		errorf(env.Stderr, "ccdag: archive: %v; nothing copied\n", err)
		return ExitUsage
	}
	for _, n := range res.Notes {
		errorf(env.Stderr, "ccdag: %s: %s\n", displayPath(n.Path), n.What)
	}
	changed := false
	for _, p := range res.Problems {
		errorf(env.Stderr, "ccdag: %s: %s\n", displayPath(p.Path), p.Why)
		changed = changed || p.Changed
	}
	versions := ""
	if res.Versions > 0 {
		versions = fmt.Sprintf(", %d new version(s) of rewritten logs", res.Versions)
	}
	errorf(env.Stderr, "ccdag archive: %d new file(s), %d grown%s, %d already archived; %d byte(s) copied into %s\n",
		res.New, res.Grown, versions, res.Same, res.Bytes, dest)
	switch {
	case len(res.Problems) > 0 && !changed:
		return ExitUsage
	case changed:
		return ExitFindings
	}
	return ExitOK
}
