package prices

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/jsonl"
)

func TestBuiltinTable(t *testing.T) {
	b := Builtin()
	if b.Date != "2026-11-26" || !strings.Contains(b.Source, "BerriAI/litellm") {
		t.Fatalf("date %q source %q", b.Date, b.Source)
	}
	// Dollars per million tokens, by hand from Anthropic's price list.
	for _, c := range []struct {
		model                      string
		in, out, cw, cw1h, cr      Nano // per token, in nano-dollars
		tierIn, tierOut, tierCache Nano
	}{
		{"claude-opus-4-5-20251101", 5000, 25000, 6250, 10000, 500, 0, 0, 0},
		{"claude-opus-4-6", 5000, 25000, 6250, 10000, 500, 0, 0, 0},
		{"claude-sonnet-4-5-20250929", 3000, 15000, 3750, 6000, 300, 6000, 22500, 600},
		{"claude-sonnet-4-20250514", 3000, 15000, 3750, 6000, 300, 6000, 22500, 600},
		{"claude-haiku-4-5-20251001", 1000, 5000, 1250, 2000, 100, 0, 0, 0},
		{"claude-opus-4-1-20250805", 15000, 75000, 18750, 30000, 1500, 0, 0, 0},
	} {
		p := b.Lookup(c.model)
		if p == nil {
			t.Fatalf("%s: unpriced", c.model)
		}
		if p.Input != c.in || p.Output != c.out || p.CacheWrite != c.cw || p.CacheWrite1h != c.cw1h || p.CacheRead != c.cr {
			t.Errorf("%s: %+v", c.model, p)
		}
		if c.tierIn == 0 {
			if p.Above200k != nil {
				t.Errorf("%s: a long-context tier it does not have", c.model)
			}
		} else if h := p.Above200k; h == nil || h.Input != c.tierIn || h.Output != c.tierOut || h.CacheRead != c.tierCache {
			t.Errorf("%s: tier %+v", c.model, h)
		}
	}
}

func TestLookupNames(t *testing.T) {
	b := Builtin()
	for _, m := range []string{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"claude-sonnet-4-5@20250929", "anthropic/claude-sonnet-4-5"} {
		if p := b.Lookup(m); p == nil || p.Input != 3000 {
			t.Errorf("%s: %+v", m, p)
		}
	}
	for _, m := range []string{"", "<synthetic>", "gpt-4o", "claude-3-haiku-20240307", "claude-sonnet-4-5-2025"} {
		if p := b.Lookup(m); p != nil {
			t.Errorf("%s priced: %+v", m, p)
		}
	}
}

// TestOf holds the price of a message to a hand count.
func TestOf(t *testing.T) {
	b := Builtin()
	opus := b.Lookup("claude-opus-4-5-20251101")
	// 10 in × $5 + 200 out × $25 + 1 000 written (400 of them for an hour) 600 × $6.25 + 400 × $10 +
	// 50 000 read × $0.50, per million: 50 + 5 000 + 3 750 + 4 000 + 25 000 = 37 800 µ$.
	u := jsonl.Usage{Input: 10, Output: 200, CacheCreation: 1000, CacheCreation1h: 400, CacheRead: 50_000}
	if got := opus.Of(u); got != 37_800_000 {
		t.Errorf("opus: %d nano-dollars, want 37 800 000", got)
	}
	// Sonnet 4.5 over 200k of prompt: every token at the long-context price.
	sonnet := b.Lookup("claude-sonnet-4-5")
	u = jsonl.Usage{Input: 1000, Output: 100, CacheRead: 200_000}
	// 1 000 × $6 + 100 × $22.50 + 200 000 × $0.60 = 6 000 + 2 250 + 120 000 = 128 250 µ$
	if got := sonnet.Of(u); got != 128_250_000 {
		t.Errorf("sonnet over 200k: %d", got)
	}
	u.CacheRead = 199_000 // 200 000 exactly: the base prices
	// 1 000 × $3 + 100 × $15 + 199 000 × $0.30 = 3 000 + 1 500 + 59 700 = 64 200 µ$
	if got := sonnet.Of(u); got != 64_200_000 {
		t.Errorf("sonnet at 200k: %d", got)
	}
}

// TestBoundedAmounts: the most tokens a log may give (2^53 in each field, jsonl.MaxCount) at the
// highest price saturate rather than wrap to a negative amount, and the largest amount is written
// as the large positive one it is (its rounding once passed int64: "$-9,223,372,036").
func TestBoundedAmounts(t *testing.T) {
	p := &Price{Input: 1e9, Output: 1e9, CacheWrite: 1e9, CacheWrite1h: 1e9, CacheRead: 1e9}
	u := jsonl.Usage{Input: jsonl.MaxCount, Output: jsonl.MaxCount, CacheCreation: jsonl.MaxCount, CacheCreation1h: 7, CacheRead: jsonl.MaxCount}
	if got := p.Of(u); got != math.MaxInt64 {
		t.Errorf("Of(2^53 tokens at $1) = %d, want the saturated %d", got, int64(math.MaxInt64))
	}
	if got := Nano(math.MaxInt64 - 5).Plus(10); got != math.MaxInt64 {
		t.Errorf("Plus past int64 = %d", got)
	}
	if got, want := Nano(math.MaxInt64).String(), "$9,223,372,037"; got != want {
		t.Errorf("MaxInt64: %q, want %q", got, want)
	}
	if got := Nano(math.MinInt64).String(); got != "-$9,223,372,037" {
		t.Errorf("MinInt64: %q", got)
	}
}

func TestNanoString(t *testing.T) {
	for n, want := range map[Nano]string{0: "$0", 4_200_000: "$0.0042", 420_000_000: "$0.42", 36_300_000: "$0.036", 994_000_000: "$0.994", 995_000_000: "$1.00", 10_000_000: "$0.01", 4_205_000_000: "$4.21",
		1_234_400_000_000: "$1,234", 12_345_678_000_000: "$12,346", 50_000: "< $0.0001", 100_000: "$0.0001"} {
		if got := n.String(); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// readMax is what Load's callers pass (layout.ReadFileMax), as far as these tests need: the file,
// refused past max.
func readMax(p string, max int64) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err == nil && int64(len(b)) > max {
		return nil, errors.New("too large")
	}
	return b, err
}

func TestParseAndLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "prices.json")
	os.WriteFile(p, []byte(`{"sample_spec":{"input_cost_per_token":"x"},"my-model":{"input_cost_per_token":1e-06,"output_cost_per_token":2e-06},"img":{"output_cost_per_image":0.04}}`), 0o600)
	tb, err := Load(p, readMax)
	if err != nil {
		t.Fatal(err)
	}
	if m := tb.Models(); len(m) != 1 || m[0] != "my-model" {
		t.Fatalf("models %v", m)
	}
	pr := tb.Lookup("my-model")
	if pr.CacheWrite != 1250 || pr.CacheWrite1h != 2000 || pr.CacheRead != 100 {
		t.Errorf("cache prices by Anthropic's multipliers: %+v", pr)
	}
	if !strings.Contains(tb.Label(), p) {
		t.Errorf("label %q", tb.Label())
	}
	for _, bad := range []string{`[]`, `{}`, `{"m":{"input_cost_per_token":-1,"output_cost_per_token":1e-6}}`, `not json`} {
		if _, err := Parse([]byte(bad), "x"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if _, err := Load(dir, readMax); err == nil {
		t.Error("a folder read as a table")
	}
	if _, err := Load(filepath.Join(dir, "absent"), readMax); err == nil {
		t.Error("an absent file read as a table")
	}
}

func TestUse(t *testing.T) {
	defer Use(nil)
	tb, _ := Parse([]byte(`{"m":{"input_cost_per_token":1e-06,"output_cost_per_token":2e-06}}`), "f")
	Use(tb)
	if Current() != tb {
		t.Fatal("Use")
	}
	Use(nil)
	if Current() != Builtin() {
		t.Fatal("Use(nil)")
	}
}
