package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/secrets/secretstest"
	"github.com/ccdag/ccdag/internal/session"
)

// TestSecretFindingsAreCappedLikeOthers: 100 000 secrets in one file are 1 000 kept findings and
// one standing for the rest (what an editor gets), and every one through All (what check prints);
// no message holds the secret.
func TestSecretFindingsAreCappedLikeOthers(t *testing.T) {
	const n = 100_000
	key := secretstest.Plants(31)[0].Secret
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","sessionId":"s","message":{"role":"user","content":"k %s"}}`+"\n", i, key)
	}
	f := session.NewFile("/x.jsonl", []byte(b.String()))
	s := session.New("s", "/")
	s.AddFile(f)
	c := New(s)
	kept, more := 0, 0
	for _, fd := range c.File(f, nil) {
		if fd.Code != Secret {
			continue
		}
		if strings.Contains(fd.Message, key) {
			t.Fatal("a message holds the secret")
		}
		if fd.More > 0 {
			more += fd.More
		} else {
			kept++
		}
	}
	if kept != MaxPerCode || kept+more != n {
		t.Errorf("kept %d, more %d", kept, more)
	}
	all := 0
	for fd := range c.Each(f, nil) {
		if fd.Code == Secret {
			all++
		}
	}
	if all != n {
		t.Errorf("Each gives %d", all)
	}
	if c2 := NewOptions(s, Options{NoSecrets: true}); len(c2.All(nil)) != 0 {
		t.Error("NoSecrets still scans")
	}
}
