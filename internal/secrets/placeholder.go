package secrets

import (
	"slices"
	"strings"
)

// ccdag's own allowlist, on top of gitleaks' (docs/SECURITY.md, "What the secret scan finds"):
// values that stand for a secret in docs, tests and code, not secrets. gitleaks' rules report
// "Bearer YOUR_JWT_TOKEN", a tenant's UUID after "token for tenant=" and a Vue binding
// `:thumbnailKey="item.thumbnails3key"` in the real logs of the corpus; a warning there is a false
// alarm on a healthy log, which ccdag never raises.
var placeholderWords = []string{
	"your", "here", "example", "placeholder", "invalid", "dummy", "sample", "fake", "redacted", "changeme",
}

// placeholder says whether a rule's match is a stand-in rather than a secret: it holds a word of
// placeholderWords (as a whole word), a run of x's, a template or elision (<…>, ${…}, $VAR, ***,
// ...); or, for the generic rule only (specific rules know their own formats), it is a UUID (ids
// of tenants, requests and sessions) or a dotted identifier path (item.thumbnails3key).
func placeholder(rule, secret string) bool {
	if strings.ContainsAny(secret, "<>{}$") || strings.Contains(secret, "...") || strings.Contains(secret, "***") {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(secret), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	for _, w := range words {
		if slices.Contains(placeholderWords, w) || len(w) >= 3 && strings.Trim(w, "x") == "" {
			return true
		}
	}
	return rule == "generic-api-key" && (isUUID(secret) || isIdentPath(secret))
}

// isUUID: 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// isIdentPath: two or more identifiers joined by dots, each starting with a lower-case letter and
// at most 31 characters long (a JWT's parts are longer, and a key has no dots).
func isIdentPath(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 31 || p[0] < 'a' || p[0] > 'z' {
			return false
		}
		for i := 1; i < len(p); i++ {
			c := p[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}
