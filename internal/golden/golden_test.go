package golden

import "testing"

func TestFirstDiff(t *testing.T) {
	if d := FirstDiff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("equal texts: %q", d)
	}
	if d := FirstDiff("a\nb\n", "a\nc\n"); d != "line 2:\n want b\n got  c" {
		t.Errorf("got %q", d)
	}
	if d := FirstDiff("a\n", "a\nx"); d != "line 2:\n want \n got  x" {
		t.Errorf("longer output: %q", d)
	}
}
