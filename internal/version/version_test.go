package version

import "testing"

func TestPick(t *testing.T) {
	for _, c := range []struct{ linked, module, want string }{
		{"v1.2.0", "v1.1.0", "v1.2.0"}, // make, goreleaser: the stamped version wins
		{"dev", "v1.3.0", "v1.3.0"},    // go install ...@v1.3.0
		{"dev", "(devel)", "dev"},      // go build in a clone
		{"dev", "", "dev"},
	} {
		if got := pick(c.linked, c.module); got != c.want {
			t.Errorf("pick(%q, %q) = %q, want %q", c.linked, c.module, got, c.want)
		}
	}
}
