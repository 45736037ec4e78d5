package secrets

import (
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
)

// The default configuration read by go-toml (parseDefault) is the one viper reads (how gitleaks
// reads it): every rule, keyword, allowlist and flag.
func TestDefaultConfigReadAsViperDoes(t *testing.T) {
	want, err := viperRead(config.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	var got config.ViperConfig
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &got); err != nil {
		t.Fatal(err)
	}
	if len(want.Rules) < 200 {
		t.Fatalf("viper read %d rules", len(want.Rules))
	}
	if !reflect.DeepEqual(&got, want) {
		for i := range want.Rules {
			if i >= len(got.Rules) || !reflect.DeepEqual(got.Rules[i], want.Rules[i]) {
				t.Fatalf("rule %d read otherwise than viper reads it", i)
			}
		}
		t.Fatal("the configuration is read otherwise than viper reads it")
	}
	// and the scanners built of each are the same
	a, _ := parseDefault()
	b, _ := parse(config.DefaultConfig)
	if len(a.rules) != len(b.rules) || !reflect.DeepEqual(a.tri, b.tri) || !reflect.DeepEqual(a.quad, b.quad) {
		t.Error("the scanners differ")
	}
}
