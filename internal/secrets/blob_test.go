package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBlobIsBase64Only: a value is taken for encoded data exactly when it is 1 KB or more of base64
// bytes only, whatever byte breaks the run and wherever it stands (the vector test looks 32 bytes
// at a time, the rest a byte at a time).
func TestBlobIsBase64Only(t *testing.T) {
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{blobLen - 1, blobLen, blobLen + 31, 4096, 100_000} {
		body := make([]byte, n)
		for i := range body {
			body[i] = b64[r.IntN(len(b64))]
		}
		if got := blob(body); got != (n >= blobLen) {
			t.Fatalf("%d bytes of base64: blob %v", n, got)
		}
		for c := range 256 {
			if strings.IndexByte(b64, byte(c)) >= 0 {
				continue
			}
			at := r.IntN(n)
			old := body[at]
			body[at] = byte(c)
			if blob(body) {
				t.Fatalf("%d bytes with %#x at %d taken for base64", n, c, at)
			}
			body[at] = old
		}
	}
}
