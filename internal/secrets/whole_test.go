package secrets

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// wholeText is what gitleaks' detector does with a decoded string, without ccdag's windows or
// anchored runs: every rule whose keyword the lower-cased string holds (or that has none) runs its
// whole expression over the whole string; then the same filters and the same choice among
// overlapping hits.
func wholeText(s *Scanner, dec string) []Hit {
	var found []Hit
	var lines lineIndex
	lines.reset(dec)
	low := strings.ToLower(dec)
	for _, r := range s.rules {
		if !gitleaksRuns(r, low) || !r.compile() || s.globals() != nil {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(dec, -1) {
			found = r.keep(s, dec, m, &lines, found)
		}
	}
	return disjoint(found)
}

// gitleaksRuns reports whether gitleaks runs rule r on a string (low: the string lower-cased).
func gitleaksRuns(r *rule, low string) bool {
	for _, k := range r.keywords {
		if strings.Contains(low, strings.ToLower(k)) {
			return true
		}
	}
	return len(r.keywords) == 0
}

// stringValues returns the decoded string values of a line, as Line gives them to the rules.
func stringValues(line []byte) []string {
	var out []string
	for i := 0; i < len(line); {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			break
		}
		q += i
		end, err := jsonscan.StringEnd(line, q)
		bodyEnd := end - 1
		if err != nil {
			end, bodyEnd = len(line), len(line)
		}
		i = end
		if k := jsonscan.SkipSpace(line, end); k < len(line) && line[k] == ':' {
			continue
		}
		if body := line[q+1 : bodyEnd]; !blob(body) {
			out = append(out, jsonscan.Unescape(body))
		}
	}
	return out
}

func sameText(t *testing.T, s *Scanner, dec string) bool {
	t.Helper()
	var sc strScan
	// Each anchored rule's runs at its keywords give the whole expression's matches, offsets and
	// groups; a rule whose keywords were not found matches nothing.
	pos, on := sc.keywordsOf(s, dec, 0, foldTrap(dec))
	if low := strings.ToLower(dec); !foldTrap(dec) {
		for ri, r := range s.rules {
			if r.anch == nil || !gitleaksRuns(r, low) || !r.compile() {
				continue
			}
			want := r.re.FindAllStringSubmatchIndex(dec, -1)
			var got [][]int
			if slices.Contains(on, ri) {
				got = r.findAnchored(dec, pos[ri], nil, new(int))
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s on a string of %d bytes (%.200q):\n got %v\nwant %v", r.id, len(dec), dec, got, want)
				return false
			}
		}
	}
	for _, ri := range on {
		pos[ri] = pos[ri][:0]
	}
	got := slices.Clone(sc.text(s, dec, 0))
	want := wholeText(s, dec)
	if !slices.Equal(got, want) {
		t.Errorf("a string of %d bytes (%.200q):\n got %v\nwant %v", len(dec), dec, got, want)
		return false
	}
	return true
}

// TestScanIsWholeExpression: on every string value of the real logs, and on strings made of the
// rules' keywords, assignments, values and secrets, the scan (keywords, anchored bodies, windows)
// finds exactly what the rules' whole expressions find on the whole string, as gitleaks runs them.
func TestScanIsWholeExpression(t *testing.T) {
	s := Default()
	r := rand.New(rand.NewPCG(3, 4))
	var parts []string
	for _, k := range s.keywords {
		parts = append(parts, k.text, strings.ToUpper(k.text))
	}
	for seed := range uint64(4) {
		for _, p := range secretstest.Plants(seed + 40) {
			parts = append(parts, p.Secret)
		}
	}
	parts = append(parts, "=", "= ", ": ", ":=", " => ", `"`, "'", "`", " ", "\n", "\t", ",", ";", "_", ".", "-",
		"gitleaks:allow", "random_", "public-", "primary", "csrf_", "mon", "bucket.", "\u212a", "\u017f", "é", "hvs.", "s.", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ", "SK", "0123456789abcdef0123456789abcdef", "Bearer ", "curl -H 'Authorization: ", "export ", "API_KEY",
		"Zk3q9VwT1xR7pL2mN8bC4dF6", "0123456789abcdef0123", "aB3dE5gH7jK9mN1pQ3sT", strings.Repeat("x7Yq", 30))
	few := parts[2*len(s.keywords):] // without the keywords: secrets and their surroundings meet more often
	hits := 0
	for n := range 4000 {
		from := parts
		if n%2 == 1 {
			from = few
		}
		var b strings.Builder
		for range 1 + r.IntN(24) {
			b.WriteString(from[r.IntN(len(from))])
		}
		hits += len(wholeText(s, b.String()))
		if !sameText(t, s, b.String()) && n > 20 {
			t.FailNow()
		}
	}
	t.Logf("%d hits in the made strings", hits)
	strs, bytesN := 0, 0
	for _, l := range testcorpus.Lines(t, "that the scan finds on real logs what the whole expressions find") {
		for _, v := range stringValues(l) {
			if len(v) > 256<<10 {
				v = strings.ToValidUTF8(v[:256<<10], "") // the whole expressions take seconds a MB
			}
			if !sameText(t, s, v) {
				t.FailNow()
			}
			strs++
			bytesN += len(v)
		}
	}
	t.Logf("%d corpus strings, %d bytes", strs, bytesN)
}
