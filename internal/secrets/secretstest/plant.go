// Package secretstest makes secrets to plant in tests (never written in the source).
package secretstest

import (
	"math/rand/v2"
	"strings"
)

// Planted secrets are made when the tests run, never written in the source: a literal token in a
// repository trips secret scanners (the very harm this package is about).

func pick(r *rand.Rand, alphabet string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum       = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	digits      = "0123456789"
)

// Planted is one secret and the rule that must find it.
type Planted struct {
	Rule, Secret string
}

// Plants returns one secret of each kind the tests plant, different per seed.
func Plants(seed uint64) []Planted {
	r := rand.New(rand.NewPCG(seed, 7))
	pem := "-----BEGIN " + "RSA PRIVATE KEY-----\n"
	for range 4 {
		pem += pick(r, alnum, 64) + "\n"
	}
	pem += "-----END RSA PRIVATE KEY-----"
	return []Planted{
		{"aws-access-token", "AK" + "IA" + pick(r, upperDigits, 16)},
		{"github-pat", "gh" + "p_" + pick(r, alnum, 36)},
		{"slack-bot-token", "xo" + "xb-" + pick(r, digits, 12) + "-" + pick(r, digits, 12) + "-" + pick(r, alnum, 24)},
		{"private-key", pem},
		{"generic-api-key", pick(r, alnum, 24)}, // planted as api_key=<secret>
	}
}

// Leak returns the first 8 bytes of a planted secret that out shows ("" when none): a secret is
// shown when any 8 of its bytes in a row are (docs/spec.md §15). A key block counts by its lines
// of key, not by its BEGIN and END lines, which are the same in every key.
func Leak(out string, plants []Planted) string {
	for _, p := range plants {
		for _, part := range strings.Split(p.Secret, "\n") {
			if strings.HasPrefix(part, "-----") {
				continue
			}
			for k := 0; k+8 <= len(part); k++ {
				if strings.Contains(out, part[k:k+8]) {
					return part[k : k+8]
				}
			}
		}
	}
	return ""
}
