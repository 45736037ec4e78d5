package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary may be a log writer in a process of its own (liveWriter).
func init() {
	helpers = append(helpers, func() (int, bool) {
		if mode := os.Getenv("CCDAG_TEST_WRITER"); mode != "" {
			return writeLines(mode, os.Getenv("CCDAG_TEST_LOG")), true
		}
		return 0, false
	})
}

// writeLines appends numbered lines to log until its stop file appears, then prints how many it
// wrote. "keep" keeps one descriptor open, as Claude Code does; "perline" opens, appends and
// closes for each line.
func writeLines(mode, log string) int {
	var keep *os.File
	if mode == "keep" {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		keep = f
	}
	n := 0
	for ; ; n++ {
		if _, err := os.Stat(log + ".stop"); err == nil {
			break
		}
		// an orphan: every fix has something to repair (the line's parent), its text kept
		line := fmt.Sprintf(`{"type":"user","uuid":"w-%d","parentUuid":"gone-%d","message":{"role":"user","content":"wline-%d."}}`+"\n", n, n, n)
		f := keep
		if f == nil {
			var err error
			if f, err = os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		if _, err := f.Write([]byte(line)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if keep == nil {
			f.Close()
		}
		time.Sleep(15 * time.Millisecond)
	}
	fmt.Println(n)
	return 0
}

// No line a live writer appends before, during or after `fix --write --force` is lost, whether it
// keeps its descriptor open (the fix is refused while it does, naming it) or opens the log per
// line (what it appended meanwhile is carried over). Before, the first lost every line written
// after the rename (to the old, unlinked file), the second now and then the line between the last
// look and the rename (issue 20).
func TestFixNeverLosesALiveWritersLine(t *testing.T) {
	for _, mode := range []string{"keep", "perline"} {
		t.Run(mode, func(t *testing.T) {
			p := copyLog(t, "unmatched-tool-use.jsonl", 0o644)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "CCDAG_TEST_WRITER="+mode, "CCDAG_TEST_LOG="+p)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("wline-3.")) || time.Now().After(deadline) {
					break
				}
			}
			written, refused := 0, 0
			for i := 0; i < 4; i++ {
				time.Sleep(50 * time.Millisecond)
				_, errs, code := fixMain("--write", "--force", p)
				switch {
				case strings.Contains(errs, "written to 1 file"):
					written++
				case strings.Contains(errs, "open for writing"):
					refused++
					if mode == "keep" && !strings.Contains(errs, "process "+strconv.Itoa(cmd.Process.Pid)) {
						t.Errorf("the refusal does not name the writer: %s", errs)
					}
				default:
					t.Logf("fix: exit %d: %s", code, errs)
				}
			}
			time.Sleep(50 * time.Millisecond)
			os.WriteFile(p+".stop", nil, 0o644)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("writer: %v %s", err, errb.String())
			}
			n, _ := strconv.Atoi(strings.TrimSpace(out.String()))
			log, _ := os.ReadFile(p)
			var lost []int
			for i := 0; i < n; i++ {
				if c := bytes.Count(log, []byte(fmt.Sprintf("wline-%d.", i))); c != 1 {
					lost = append(lost, i)
				}
			}
			t.Logf("%s: %d lines written, fix wrote %d times, refused %d times", mode, n, written, refused)
			if n == 0 || len(lost) > 0 {
				t.Errorf("%d of %d lines lost or doubled: %v", len(lost), n, lost[:min(len(lost), 20)])
			}
			if mode == "keep" && refused == 0 {
				t.Error("never refused while a writer held the log open")
			}
			if mode == "perline" && written == 0 {
				t.Error("never written beside a writer that opens the log per line")
			}
		})
	}
}

// The repaired log and its backup keep the log's owner, group, mode and extended attributes (an
// ACL among them); a hard-linked log is refused. Before, a log of nobody:nogroup 0660 fixed by root
// became root's, and its attributes were dropped (issue 20).
func TestFixKeepsOwnerModeAndAttributes(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("giving a file to another user needs root")
		}
		t.Skip("SKIP: giving a file to another user needs root")
	}
	p := copyLog(t, "unmatched-tool-use.jsonl", 0o660)
	os.Chmod(filepath.Dir(p), 0o777)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	attrs := map[string][]byte{"user.ccdag": []byte("kept")}
	// An ACL granting uid 1 read and write (version 2; user_obj rw, user 1 rw, group_obj rw, mask rw, other none).
	acl := []byte{2, 0, 0, 0}
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{1, 6, 0xffffffff}, {2, 6, 1}, {4, 6, 0xffffffff}, {0x10, 6, 0xffffffff}, {0x20, 0, 0xffffffff}} {
		acl = append(acl, byte(e.tag), byte(e.tag>>8), byte(e.perm), byte(e.perm>>8), byte(e.id), byte(e.id>>8), byte(e.id>>16), byte(e.id>>24))
	}
	attrs["system.posix_acl_access"] = acl
	for k, v := range attrs {
		if err := syscall.Setxattr(p, k, v, 0); err != nil {
			if k == "user.ccdag" {
				t.Skipf("SKIP: no extended attributes here: %v", err)
			}
			t.Logf("no ACLs here (%v): checking user attributes only", err)
			delete(attrs, k)
		}
	}
	before, _ := os.Stat(p)
	if _, errs, code := fixMain("--write", p); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, q := range append(backups(t, p), p) {
		fi, err := os.Stat(q)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != 65534 || st.Gid != 65534 || fi.Mode() != before.Mode() {
			t.Errorf("%s: %d:%d %v, want 65534:65534 %v", filepath.Base(q), st.Uid, st.Gid, fi.Mode(), before.Mode())
		}
		got, err := xattrs(q)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range attrs {
			if !bytes.Equal(got[k], v) {
				t.Errorf("%s: attribute %s = %q, want %q", filepath.Base(q), k, got[k], v)
			}
		}
	}

	q := copyLog(t, "unmatched-tool-use.jsonl", 0o644)
	orig, _ := os.ReadFile(q)
	if err := os.Link(q, q+".other"); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := fixMain("--write", q); code != ExitUsage || !strings.Contains(errs, "2 hard links") || !strings.Contains(errs, "nothing written") {
		t.Errorf("hard-linked: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(q); !bytes.Equal(b, orig) {
		t.Error("the hard-linked log changed")
	}
}

// A user who may write the log but may not give a file to its owner (not root) is refused, saying
// why, rather than leave a log its owner's Claude Code cannot append to.
func TestFixRefusesWhenTheOwnerCannotBeKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIP: needs root to run as another user")
	}
	p := copyLog(t, "unmatched-tool-use.jsonl", 0o666)
	bin := filepath.Join(t.TempDir(), "ccdag")
	for _, d := range []string{filepath.Dir(p), filepath.Dir(filepath.Dir(p)), filepath.Dir(bin), filepath.Dir(filepath.Dir(bin))} {
		os.Chmod(d, 0o777)
	}
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/ccdag").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(p)
	fixer := exec.Command(bin, "fix", "--write", p)
	fixer.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1, Gid: 1}}
	out, err := fixer.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot give it the log's owner and group (uid 65534, gid 65534)") || !strings.Contains(string(out), "nothing written") {
		t.Errorf("%v: %s", err, out)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, orig) {
		t.Error("the log changed")
	}
	if len(backups(t, p)) > 0 || len(folderHolds(t, p)) != 1 {
		t.Errorf("left behind: %v", folderHolds(t, p))
	}
}
