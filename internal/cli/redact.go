package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccdag/ccdag/internal/layout"
	"github.com/ccdag/ccdag/internal/repair"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/textsafe"
)

// redacted is one file's text with its secrets replaced (docs/spec.md §11), and what tells of it
// without the secrets: per hit its line and rule, and the original with each secret masked (the
// "-" side of the dry run's diff).
type redacted struct {
	rf   *repair.File // Old: the original, New: redacted, Out/Changed per line
	show *repair.File // the same with Old masked, for the diff
	hits []redactHit
}

type redactHit struct {
	line, col int // 0-based line, 1-based byte column
	rule      string
}

// redactLog redacts a log (or any JSON Lines text) line by line.
func redactLog(path string, old []byte) *redacted {
	sc := secrets.Default()
	r := &redacted{rf: &repair.File{Path: path, Old: old}}
	lines := repair.Lines(old)
	var newText, masked []byte
	r.rf.Out = make([][][]byte, len(lines))
	r.rf.Changed = make([]bool, len(lines))
	var hits []secrets.Hit
	for i, l := range lines {
		body := bytes.TrimSuffix(l, []byte("\n"))
		hits = sc.Line(body, hits[:0])
		if len(hits) == 0 {
			r.rf.Out[i] = [][]byte{l}
			newText = append(newText, l...)
			masked = append(masked, l...)
			continue
		}
		for _, h := range hits {
			r.hits = append(r.hits, redactHit{line: i, col: int(h.Start) + 1, rule: h.Rule})
		}
		nl := append(secrets.RedactLine(body, hits), l[len(body):]...)
		r.rf.Out[i] = [][]byte{nl}
		r.rf.Changed[i] = true
		newText = append(newText, nl...)
		masked = append(masked, maskLine(body, hits)...)
		masked = append(masked, l[len(body):]...)
	}
	r.rf.New = newText
	show := *r.rf
	show.Old = masked
	r.show = &show
	return r
}

// maskLine is line with each secret replaced by `[SECRET:<rule>]`: where the secret was, never it.
func maskLine(line []byte, hits []secrets.Hit) []byte {
	out := make([]byte, 0, len(line))
	at := int32(0)
	for _, h := range hits {
		out = append(out, line[at:h.Start]...)
		out = append(out, "[SECRET:"+h.Rule+"]"...)
		at = h.End
	}
	return append(out, line[at:]...)
}

func runRedact(args []string, env Env) int {
	fset := newFlagSet("redact", env)
	write := fset.Bool("write", false, "write the redacted files (a backup of each first); without it, print a diff with the secrets masked")
	force := fset.Bool("force", false, "with --write: also write a file modified in the last 60 s (a live session)")
	outDir := fset.String("o", "", "write a redacted copy of each whole session (logs, sub-agent logs and meta, tool results) under this folder; the originals are untouched")
	paths, err := parseInterleaved(fset, args)
	if err != nil {
		return usageError(env, err)
	}
	if len(paths) == 0 {
		return usageError(env, fmt.Errorf("redact needs at least one PATH (a session log, a sub-agent log or a directory)"))
	}
	if *write && *outDir != "" {
		return usageError(env, fmt.Errorf("redact: --write changes the logs in place, -o writes copies: give one"))
	}
	run := startRewrite(paths, env, *write, *force)
	if run == nil {
		return ExitUsage
	}
	defer run.out.Flush()
	nHits, nFiles := 0, 0
	leftHits, leftFiles := 0, 0 // in the named sessions' files that were not named
	keptHits, keptFiles := 0, 0 // in files named that could not be written (live, read-only, …)
	unreadFiles := 0            // files named that could not be read: what they hold is not known
	for _, found := range run.sessions {
		if *outDir != "" {
			n, err := copyRedacted(found, *outDir, env)
			nHits += n
			if err != nil {
				errorf(env.Stderr, "ccdag: session %s: %v\n", found.ID, err)
				run.code = ExitUsage
			}
			continue
		}
		for _, p := range found.Paths() {
			dp := displayPath(p)
			b, fi, err := readStable(p, found.Root(p), 0)
			if err != nil {
				if run.named(p) {
					errorf(env.Stderr, "ccdag: cannot read %s: %v; nothing written\n", dp, unwrapPathErr(err))
					unreadFiles++
					run.code = ExitUsage
				}
				continue
			}
			r := redactLog(p, b)
			if len(r.hits) == 0 {
				continue
			}
			if !run.named(p) { // as fix names them: only the files named are changed
				errorf(env.Stderr, "ccdag: %s (of the same session) holds %d secret(s); name it, or the session's folder, to redact it\n", dp, len(r.hits))
				leftHits += len(r.hits)
				leftFiles++
				continue
			}
			for _, h := range r.hits {
				errorf(env.Stderr, "%s:%d:%d: secret (%s)\n", dp, h.line+1, h.col, h.rule)
			}
			if run.put(r.rf, r.show, fi, dp, "redacted") {
				nHits += len(r.hits)
				nFiles++
			} else { // refused (said above): its secrets remain, which the summary must say
				keptHits += len(r.hits)
				keptFiles++
			}
		}
	}
	run.out.Flush()
	switch {
	case *outDir != "":
		errorf(env.Stderr, "ccdag redact: %d secret(s) redacted in the copies under %s\n", nHits, *outDir)
	case nHits == 0 && keptHits == 0 && leftHits == 0 && unreadFiles == 0:
		errorf(env.Stderr, "ccdag redact: no secret found")
	case nHits == 0 && keptHits == 0 && unreadFiles == 0:
		errorf(env.Stderr, "ccdag redact: no secret in the files named")
	case nHits == 0 && keptHits == 0:
		// Only files that could not be read: what they hold is not known (said below).
		if leftHits > 0 {
			errorf(env.Stderr, "ccdag redact: no secret in the files named that could be read")
		}
	case *write:
		if nHits > 0 {
			errorf(env.Stderr, "ccdag redact: %d secret(s) redacted in %d file(s); the .bak beside each still holds them: delete it once you have looked\n", nHits, nFiles)
		}
		if keptHits > 0 {
			errorf(env.Stderr, "ccdag redact: %d secret(s) in %d file(s) remain, not redacted: nothing written to them (why is said above)\n", keptHits, keptFiles)
		}
	default:
		errorf(env.Stderr, "ccdag redact: %d secret(s) in %d file(s); dry run, nothing written (--write to redact, -o DIR for a redacted copy)\n", nHits, nFiles)
	}
	if unreadFiles > 0 { // never "no secret found" of a file that was not read (exit 2, set above)
		errorf(env.Stderr, "ccdag redact: %d file(s) named could not be read (why is said above): not redacted, nothing written to them\n", unreadFiles)
	}
	if leftHits > 0 {
		errorf(env.Stderr, "ccdag redact: %d secret(s) remain in %d other file(s) of the session(s), not named (listed above)\n", leftHits, leftFiles)
		if run.code == ExitOK {
			run.code = ExitFindings
		}
	}
	return run.code
}

// copyRedacted writes a redacted copy of a whole session under dir/<project folder>/, keeping the
// layout below the project folder: main log, sub-agent logs, their meta.json, the session's
// tool-results/. It never overwrites a file. It returns how many secrets it redacted.
func copyRedacted(found layout.Found, dir string, env Env) (int, error) {
	dest := filepath.Join(dir, filepath.Base(found.Dir))
	absDest, err := filepath.Abs(dest)
	if err != nil {
		return 0, err
	}
	if absDir, _ := filepath.Abs(found.Dir); absDest == absDir {
		return 0, errors.New("-o names the session's own folder: the copies would replace the logs")
	}
	n := 0
	put := func(src string, data []byte) error {
		rel, err := filepath.Rel(found.Dir, src)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is outside the session's folder", src)
		}
		to := filepath.Join(absDest, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		if err := writeNew(osFS{}, to, 0o600, nil, data); err != nil {
			return fmt.Errorf("writing %s: %w", textsafe.Printable(to), unwrapPathErr(err))
		}
		return nil
	}
	jsonFiles := found.Paths()
	for _, a := range found.Agents {
		if a.Meta != "" {
			jsonFiles = append(jsonFiles, a.Meta)
		}
	}
	for _, p := range jsonFiles {
		b, _, err := readStable(p, found.Dir, 0)
		if err != nil {
			return n, err
		}
		r := redactLog(p, b)
		n += len(r.hits)
		for _, h := range r.hits {
			errorf(env.Stderr, "%s:%d:%d: secret (%s)\n", displayPath(p), h.line+1, h.col, h.rule)
		}
		if err := put(p, r.rf.New); err != nil {
			return n, err
		}
	}
	// Tool results Claude Code kept beside the log: plain text, redacted as text.
	tr := filepath.Join(found.Dir, found.ID, "tool-results")
	ents, err := os.ReadDir(tr)
	if err != nil {
		return n, nil // none
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue // no links or folders followed out of the session
		}
		p := filepath.Join(tr, e.Name())
		b, _, err := readStable(p, found.Dir, 0)
		if err != nil {
			return n, err
		}
		hits := secrets.Default().Text(string(b))
		n += len(hits)
		for _, h := range hits {
			errorf(env.Stderr, "%s: secret (%s) at byte %d\n", displayPath(p), h.Rule, h.Start)
		}
		if err := put(p, secrets.RedactLine(b, hits)); err != nil {
			return n, err
		}
	}
	return n, nil
}
