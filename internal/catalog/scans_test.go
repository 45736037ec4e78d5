package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/secrets"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
)

// A grown log's secrets through the kept scan (scans.go): the lines scanned before are answered
// from it and not scanned again, and the findings are exactly those of a scan of the whole log.

// scanLog checks text as a one-log session with the scan kept as data (nil: none) and returns
// the secret findings ("line start-end rule"), the lines scanned and what the scan keeps (nil
// when it keeps nothing new). data "{}": nothing kept yet.
func scanLog(t *testing.T, text string, data []byte) (found []string, scanned int, keep []byte) {
	t.Helper()
	s := session.New("s", "/")
	s.AddFile(session.NewFile("/p/s.jsonl", []byte(text)))
	opt := check.Options{}
	var sc *Scans
	if data != nil {
		sc = newScans(data)
		opt.Scan = sc.hits
	}
	for _, fd := range check.NewOptions(s, opt).All(nil) {
		if fd.Code == check.Secret {
			found = append(found, fmt.Sprintf("%d %d-%d %s", fd.Line, fd.Span.Start, fd.Span.End, fd.Message[:strings.Index(fd.Message, ")")+1]))
		}
	}
	if sc == nil {
		return found, -1, nil
	}
	sc.finish()
	if sc.changed {
		var err error
		if keep, err = json.Marshal(sc.keep); err != nil {
			t.Fatal(err)
		}
	}
	return found, sc.scanned, keep
}

// record is a user record whose prompt is text (a JSON string's contents).
func record(i int, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":"u%d","parentUuid":"u%d","sessionId":"s","timestamp":"2026-01-01T10:%02d:00Z","message":{"role":"user","content":"%s"}}`+"\n", i, i-1, i%60, text)
}

// secretLog is n records, the secrets of old on the first, third and last of them.
func secretLog(n int, old []secretstest.Planted) string {
	var b strings.Builder
	for i := range n {
		text := fmt.Sprintf("step %d", i)
		switch i {
		case 0:
			text += " AWS_ACCESS_KEY_ID=" + old[0].Secret
		case 2:
			text += " GITHUB_TOKEN=" + old[1].Secret
		case n - 1:
			text += " SLACK=" + old[2].Secret
		}
		b.WriteString(record(i, text))
	}
	return b.String()
}

func TestGrownLogScansOnlyNewLines(t *testing.T) {
	old, added := secretstest.Plants(201), secretstest.Plants(202)
	text := secretLog(40, old)
	first, scanned, keep := scanLog(t, text, []byte("{}"))
	if want, _, _ := scanLog(t, text, nil); !slices.Equal(first, want) || len(first) != 3 {
		t.Fatalf("first read: %q, want the scan's %q (3)", first, want)
	}
	if scanned != 40 || keep == nil {
		t.Fatalf("first read scanned %d lines, kept %q", scanned, keep)
	}
	if strings.Contains(string(keep), old[0].Secret[4:12]) {
		t.Fatal("the kept scan holds a secret")
	}
	grown := text + record(40, "plain") + record(41, "AWS_ACCESS_KEY_ID="+added[0].Secret)
	got, scanned, keep2 := scanLog(t, grown, keep)
	want, _, _ := scanLog(t, grown, nil)
	if !slices.Equal(got, want) || len(got) != 4 {
		t.Errorf("grown: %q, want the scan's %q (4: three old, one appended)", got, want)
	}
	if scanned != 2 {
		t.Errorf("grown by 2 records: %d lines scanned, want 2 (the old lines answered from the kept scan)", scanned)
	}
	// the kept scan now covers the grown log: read again unchanged, nothing is scanned
	if again, scanned, _ := scanLog(t, grown, keep2); !slices.Equal(again, want) || scanned != 0 {
		t.Errorf("unchanged: %q, %d lines scanned; want %q, 0", again, scanned, want)
	}

	// A mark in the kept scan shows where it is used: a hit on line 5, which holds no secret.
	var e scanEntry
	json.Unmarshal(keep, &e)
	e.Logs[0].Hits = append(e.Logs[0].Hits, lineHit{Line: 5, Start: 1, End: 9, Rule: "kept-mark"})
	marked, _ := json.Marshal(e)
	if got, _, _ := scanLog(t, grown, marked); !slices.Contains(got, "5 1-9 a secret (gitleaks rule kept-mark)") {
		t.Errorf("the kept scan was not used for the old lines: %q", got)
	}
	for _, tc := range []struct{ name, text string }{
		// Rewritten in place (same size before the growth, other bytes): read whole.
		{"rewritten", strings.Replace(text, "step 7", "step 8", 1) + record(40, "plain")},
		{"old secret gone", strings.Replace(text, old[1].Secret, added[1].Secret, 1) + record(40, "plain")},
		{"shrunk", text[:len(text)/2]},
		{"a byte less, then grown", strings.Replace(text, "step 7", "step7", 1) + record(40, "plainer")},
	} {
		got, scanned, _ := scanLog(t, tc.text, marked)
		want, _, _ := scanLog(t, tc.text, nil)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want the scan's %q", tc.name, got, want)
		}
		if n := len(strings.Split(strings.TrimSuffix(tc.text, "\n"), "\n")); scanned != n {
			t.Errorf("%s: %d lines scanned, want all %d", tc.name, scanned, n)
		}
	}
}

// A torn last line (no newline yet) is not kept: completed by the growth, it is scanned with its
// continuation, here a secret split by the tear.
func TestTornLastLineScannedWithItsContinuation(t *testing.T) {
	old, added := secretstest.Plants(203), secretstest.Plants(204)
	whole := secretLog(10, old) + record(10, "GITHUB_TOKEN="+added[1].Secret)
	cut := strings.Index(whole, added[1].Secret) + 10
	torn := whole[:cut]
	_, scanned, keep := scanLog(t, torn, []byte("{}"))
	if scanned != 11 {
		t.Fatalf("torn log: %d lines scanned, want 11", scanned)
	}
	got, scanned, _ := scanLog(t, whole, keep)
	want, _, _ := scanLog(t, whole, nil)
	if !slices.Equal(got, want) || len(got) != 4 {
		t.Errorf("completed: %q, want the scan's %q (4: the torn line's secret found)", got, want)
	}
	if scanned != 1 {
		t.Errorf("completed: %d lines scanned, want 1 (the torn line)", scanned)
	}
	// The torn bytes are not part of what is kept: written again otherwise (an interrupted write
	// and another), the old lines are still answered from the kept scan.
	other := secretLog(10, old) + record(10, "plain, written again")
	got, scanned, _ = scanLog(t, other, keep)
	if want, _, _ := scanLog(t, other, nil); !slices.Equal(got, want) || scanned != 1 {
		t.Errorf("torn line written again: %q and %d lines scanned, want %q and 1", got, scanned, want)
	}
}

// A kept scan whose lines do not hold as many records now as when they were scanned is not
// used: a line it did not scan may be a record now.
func TestKeptScanOfOtherRecordsNotUsed(t *testing.T) {
	text := secretLog(12, secretstest.Plants(207))
	_, _, keep := scanLog(t, text, []byte("{}"))
	var e scanEntry
	json.Unmarshal(keep, &e)
	e.Logs[0].Recs--
	e.Logs[0].Hits = append(e.Logs[0].Hits, lineHit{Line: 5, Start: 1, End: 9, Rule: "kept-mark"})
	tampered, _ := json.Marshal(e)
	got, scanned, _ := scanLog(t, text+record(12, "more"), tampered)
	if want, _, _ := scanLog(t, text+record(12, "more"), nil); !slices.Equal(got, want) || scanned != 13 {
		t.Errorf("%q and %d lines scanned, want %q and 13", got, scanned, want)
	}
}

// A log that was not JSON Lines (no records: nothing scanned, nothing kept) and became so with
// the growth has its old lines scanned: they are records now.
func TestNotJSONLThenGrownScannedWhole(t *testing.T) {
	p := secretstest.Plants(205)
	text := `"AWS_ACCESS_KEY_ID=` + p[0].Secret + `"` + "\n" + "[1]\n"
	_, scanned, keep := scanLog(t, text, []byte("{}"))
	if scanned != 0 {
		t.Fatalf("not JSON Lines: %d lines scanned", scanned)
	}
	grown := text + record(1, "next")
	got, _, _ := scanLog(t, grown, keep)
	want, _, _ := scanLog(t, grown, nil)
	if !slices.Equal(got, want) || len(got) != 1 {
		t.Errorf("grown into JSON Lines: %q, want the scan's %q (1)", got, want)
	}
}

// A log whose bytes change while it is scanned keeps no scan: what was found may not be what it
// holds.
func TestChangedWhileScannedKeepsNothing(t *testing.T) {
	text := []byte(secretLog(5, secretstest.Plants(206)))
	s := session.New("s", "/")
	s.AddFile(session.NewFile("/p/s.jsonl", text))
	sc := newScans(nil)
	defer func(f func([]byte) []secrets.Hit) { scanLine = f }(scanLine)
	scanLine = func(line []byte) []secrets.Hit {
		text[len(text)-3] = 'X' // a writer rewrites the log in place meanwhile
		return secrets.Default().Line(line, nil)
	}
	check.NewOptions(s, check.Options{Scan: sc.hits}).All(nil)
	sc.finish()
	if len(sc.keep.Logs) != 0 {
		t.Errorf("a log changed while scanned kept its scan: %+v", sc.keep.Logs)
	}
}
