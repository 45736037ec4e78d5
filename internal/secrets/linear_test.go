package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// assignments returns about n bytes of `token=<20 characters> `: random ones (each a
// generic-api-key finding) or a repeated low-entropy one (none).
func assignments(n int, random bool) string {
	r := rand.New(rand.NewPCG(uint64(n), 9))
	const al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("token=")
		for i := range 20 {
			c := al[i%4]
			if random {
				c = al[r.IntN(len(al))]
			}
			b.WriteByte(c)
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestScanIsLinear: the bytes the rules' expressions and allowlists read grow with a string's
// length, not faster: a string of `token=…` assignments 16 times as long costs at most 1.5 times
// as much per byte (issue 30: every hit ran the line's allowlist over the whole string, a 64 KB
// one took a minute and 4 MB never ended), and the hits are found (but the few random values gitleaks' entropy and stop words drop). Counted, not timed.
func TestScanIsLinear(t *testing.T) {
	s := Default()
	for _, random := range []bool{true, false} {
		var perByte [2]float64
		for i, n := range []int{64 << 10, 1 << 20} {
			text := assignments(n, random)
			var sc strScan
			hits := len(sc.text(s, text, 0))
			perByte[i] = float64(sc.lines.work) / float64(len(text))
			if want := strings.Count(text, "token="); random && hits < want*9/10 || !random && hits != 0 {
				t.Errorf("random %v, %d bytes: %d hits of %d assignments", random, len(text), hits, want)
			}
			t.Logf("random %v, %d bytes: %d hits, %.1f bytes read per byte", random, len(text), hits, perByte[i])
		}
		if perByte[1] > 1.5*perByte[0] {
			t.Errorf("random %v: %.1f bytes read per byte of 1 MB, %.1f of 64 KB: not linear", random, perByte[1], perByte[0])
		}
	}
}
