package resume

import (
	"bytes"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// recordVersionRef is RecordVersion as it was before it stopped at the last "version" key: the
// walk of every top-level field, the reference the tests hold RecordVersion to.
func recordVersionRef(line []byte) string {
	v := ""
	jsonscan.ObjectFields(line, 0, func(key []byte, at int) (int, error) {
		if string(key) != "version" || at >= len(line) || line[at] != '"' {
			return -1, nil
		}
		end, escaped, err := jsonscan.String(line, at)
		if err != nil {
			return 0, jsonscan.ErrSyntax
		}
		v = ""
		if !escaped {
			v = string(line[at+1 : end-1])
		}
		return end, nil
	})
	if !ValidVersion(v) {
		return ""
	}
	return v
}

// versionCases: duplicate "version" keys (the last string wins, a non-string one changes nothing, an
// escaped one is no version), "version" after the message, nested and quoted "version"s that are
// no key of the record, syntax errors before, between and after them.
var versionCases = map[string]string{
	`{"version":"2.1.1","x":1,"version":"2.1.5"}`:                              "2.1.5",
	`{"version":"2.1.5","x":1,"version":"2.1.1"}`:                              "2.1.1",
	`{"version":"2.1.5","version":1}`:                                          "2.1.5",
	`{"version":"2.1.5","version":{"version":"9.9.9"}}`:                        "2.1.5",
	`{"version":"2.1.5","version":"2.1.\u0036"}`:                               "",
	`{"version":"2.1.5","version":"2.1.6`:                                      "2.1.5",
	`{"version":"2.1.5","version":"2.1.6",`:                                    "2.1.6",
	`{"version":"2.1.5","version":"2.1.6" x`:                                   "2.1.6",
	`{"version":"2.1.5","version":"2.1.6"} trailing`:                           "2.1.6",
	`{"version":"2.1.5","version":"2.1\x"}`:                                    "2.1.5",
	`{"version":"2.1.5","message":{"version":"9.9.9"}}`:                        "2.1.5",
	`{"version":"2.1.5","message":{"content":"\"version\":\"9.9.9\""}}`:        "2.1.5",
	`{"version":"2.1.5","message":{"version":"9.9.9"},"version":"2.1.7"}`:      "2.1.7",
	`{"version":"2.1.5","message":{"version":"9.9.9"},"version":"2.1.7"`:       "2.1.7",
	`{"version":"2.1.5","message":{"version":"9.9.9"}, bad,"version":"2.1.7"}`: "2.1.5",
	`{"message":{"a":1},"version":"2.1.8"}`:                                    "2.1.8",
	`{"message":{"a":1 "version":"2.1.8"}`:                                     "",
	`{"version":"2.1.5" "version":"2.1.8"}`:                                    "2.1.5",
	`{"versio\u006e":"2.1.8"}`:                                                 "",
	`{"version" : "2.1.9" , "version" : "x"}`:                                  "",
	`["version","2.1.9"]`:                                                      "",
	`{"version":"2.1.9"`:                                                       "2.1.9",
}

// TestRecordVersionDuplicateKeys: the last string-valued top-level "version" wins, whatever comes
// before or after it, as the walk of every field said.
func TestRecordVersionDuplicateKeys(t *testing.T) {
	for line, want := range versionCases {
		if got, ref := RecordVersion([]byte(line)), recordVersionRef([]byte(line)); got != want || ref != want {
			t.Errorf("RecordVersion(%s) = %q, want %q (the whole walk: %q)", line, got, want, ref)
		}
	}
}

// TestHasVersionKey: `"version"` found as `version"` after a quote, wherever it is.
func TestHasVersionKey(t *testing.T) {
	for s, want := range map[string]bool{
		`"version"`: true, `x"version"`: true, `version"`: false, `"version`: false, `xversion"`: false,
		`version""version"`: true, `"versio"version"`: true, `""`: false, ``: false, `"`: false,
		`\"version\"`: false, `{"a":"x","version":"2"}`: true,
	} {
		if got := hasVersionKey([]byte(s)); got != want {
			t.Errorf("hasVersionKey(%s) = %v, want %v", s, got, want)
		}
	}
}

// TestRecordVersionAsReferenceCorpus holds RecordVersion to the whole walk on every line of the
// real logs, and on each cut in half (a torn last line).
func TestRecordVersionAsReferenceCorpus(t *testing.T) {
	n := 0
	for path, line := range testcorpus.Lines(t, "the version read against the whole walk on real logs") {
		for _, l := range [][]byte{line, line[:len(line)/2]} {
			if got, want := RecordVersion(l), recordVersionRef(l); got != want {
				t.Fatalf("%s: RecordVersion(%.200q) = %q, the whole walk %q", path, l, got, want)
			}
		}
		if RecordVersion(line) != "" {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no corpus line holds a version: the test checks nothing")
	}
}

// FuzzRecordVersion holds RecordVersion to the whole walk on any line.
func FuzzRecordVersion(f *testing.F) {
	for line := range versionCases {
		f.Add([]byte(line))
	}
	for _, s := range []string{`version"`, `"version`, `""version"`, `\"version\"`, `xversion""version"`, `"versionversion"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := hasVersionKey(line), bytes.Contains(line, []byte(`"version"`)); got != want {
			t.Fatalf("hasVersionKey(%q) = %v, bytes.Contains says %v", line, got, want)
		}
		if got, want := RecordVersion(line), recordVersionRef(line); got != want {
			t.Fatalf("RecordVersion(%q) = %q, the whole walk %q", line, got, want)
		}
	})
}
