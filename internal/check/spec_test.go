package check

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docs/spec.md §2 is the public list of codes: every code the checker has is in its table with the
// default severity the checker uses, and the table names no code the checker lacks.
func TestSpecListsEveryCodeWithItsDefault(t *testing.T) {
	text, err := os.ReadFile("../../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	start := strings.Index(s, "\n## 2. ")
	end := strings.Index(s, "\n## 3. ")
	if start < 0 || end < start {
		t.Fatal("docs/spec.md has no section 2 followed by section 3")
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\| ([a-z]+)")
	inSpec := map[Code]string{}
	for _, m := range row.FindAllStringSubmatch(s[start:end], -1) {
		inSpec[Code(m[1])] = m[2]
	}
	for code, sev := range Defaults {
		got, ok := inSpec[code]
		if !ok {
			t.Errorf("code %s is missing from docs/spec.md §2", code)
		} else if got != sev.String() {
			t.Errorf("docs/spec.md §2 gives %s the default %s, the checker %s", code, got, sev)
		}
	}
	for code := range inSpec {
		if _, ok := Defaults[code]; !ok {
			t.Errorf("docs/spec.md §2 lists %s, which the checker does not have", code)
		}
	}
}
