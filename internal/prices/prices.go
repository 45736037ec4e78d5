// Package prices turns a message's token usage into money (docs/spec.md §10): a dated price table
// embedded at build time (LiteLLM's Anthropic entries, litellm-claude.json; SOURCE.md says where
// from), which a file in LiteLLM's format replaces (`--prices FILE`, setting `ccdag.prices`).
// Nothing here is fetched: ccdag opens no connection. A model missing from the table is unpriced,
// never $0.
package prices

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/jsonl"
)

//go:embed litellm-claude.json
var embedded []byte

// Nano is an amount in billionths of a US dollar: sums stay exact (every Claude price per token is
// a whole number of them) and an int64 holds 9 billion dollars.
type Nano int64

// USD is the amount in dollars.
func (n Nano) USD() float64 { return float64(n) / 1e9 }

// FromUSD is the amount of usd dollars, as USD gave it or a row stored it: rounded to the nearest
// billionth, saturating where int64 ends. The saturated sum's dollars (math.MaxInt64 / 1e9) round
// to a float64 just past int64, which a plain conversion wraps to the most negative amount.
func FromUSD(usd float64) Nano {
	n := math.Round(usd * 1e9)
	switch {
	case math.IsNaN(n):
		return 0
	case n >= math.MaxInt64: // float64(math.MaxInt64) is 2^63: past int64
		return math.MaxInt64
	case n <= -math.MaxInt64:
		return -math.MaxInt64
	}
	return Nano(n)
}

// Plus is n + m for amounts (never negative), saturating at math.MaxInt64 ($9.2 billion) rather
// than wrapping to a negative amount.
func (n Nano) Plus(m Nano) Nano {
	if n > math.MaxInt64-m {
		return math.MaxInt64
	}
	return n + m
}

// times is tokens × price per token, saturating at math.MaxInt64: tokens up to 2^53 times a price up
// to $1 (1e9) passes int64.
func times(tokens int64, p Nano) Nano {
	if tokens <= 0 || p <= 0 {
		return 0
	}
	if tokens > math.MaxInt64/int64(p) {
		return math.MaxInt64
	}
	return Nano(tokens) * p
}

// String writes dollars as people read them: < $0.0001, $0.0042, $0.036, $0.42, $4.20, $1,234.
// Amounts are never negative (prices and tokens are not, sums saturate); one is written with a
// minus sign rather than read as a small amount.
func (n Nano) String() string {
	if n < 0 {
		return "-" + (-max(n, -math.MaxInt64)).String()
	}
	usd := n.USD()
	switch {
	case n == 0:
		return "$0"
	case n > 0 && n < 100_000:
		return "< $0.0001"
	case usd < 0.01:
		return "$" + trimZeros(fmt.Sprintf("%.4f", usd))
	case n < 995_000_000:
		return "$" + fmt.Sprintf("%.3f", usd)[:4] + strings.TrimRight(fmt.Sprintf("%.3f", usd)[4:], "0")
	case n < 999_995_000_000:
		cents := (n + 5_000_000) / 10_000_000 // rounded half up, in integers
		return fmt.Sprintf("$%d.%02d", cents/100, cents%100)
	}
	dollars := n / 1_000_000_000
	if n%1_000_000_000 >= 500_000_000 {
		dollars++ // rounded half up, without n+500_000_000 passing int64
	}
	s := strconv.FormatInt(int64(dollars), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return "$" + s
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
	}
	return strings.TrimSuffix(s, ".")
}

// Price is one model's prices per token.
type Price struct {
	Input, Output, CacheWrite, CacheWrite1h, CacheRead Nano
	// Above200k are the prices of a request whose prompt (input, cache writes and reads) exceeds
	// 200 000 tokens: every token of it is priced at these. Zero: no such tier.
	Above200k *Price
}

// Table is a price table: model name -> prices, with where it came from.
type Table struct {
	Date, Source string
	models       map[string]*Price
}

// TierTokens is the prompt size past which a model's long-context prices apply.
const TierTokens = 200_000

// entry is one model of LiteLLM's model_prices_and_context_window.json (the fields read here).
type entry struct {
	Input          *float64 `json:"input_cost_per_token"`
	Output         *float64 `json:"output_cost_per_token"`
	CacheWrite     *float64 `json:"cache_creation_input_token_cost"`
	CacheWrite1h   *float64 `json:"cache_creation_input_token_cost_above_1hr"`
	CacheRead      *float64 `json:"cache_read_input_token_cost"`
	InputTier      *float64 `json:"input_cost_per_token_above_200k_tokens"`
	OutputTier     *float64 `json:"output_cost_per_token_above_200k_tokens"`
	CacheWriteTier *float64 `json:"cache_creation_input_token_cost_above_200k_tokens"`
	CacheWrite1hT  *float64 `json:"cache_creation_input_token_cost_above_1hr_above_200k_tokens"`
	CacheReadTier  *float64 `json:"cache_read_input_token_cost_above_200k_tokens"`
}

type source struct {
	Date   string `json:"date"`
	Source string `json:"source"`
}

// Parse reads a table in LiteLLM's format: an object of models, each with its prices per token in
// dollars. Entries without an input and an output price (images, audio, the sample) are skipped;
// a key "ccdag_source" may say the table's date and source. LiteLLM's whole file is a valid table.
func Parse(data []byte, name string) (*Table, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a price table in LiteLLM's format: %v", name, err)
	}
	t := &Table{Source: name, models: map[string]*Price{}}
	if src, ok := raw["ccdag_source"]; ok {
		var s source
		if json.Unmarshal(src, &s) == nil {
			t.Date, t.Source = s.Date, s.Source
		}
	}
	for model, v := range raw {
		var e entry
		if json.Unmarshal(v, &e) != nil || e.Input == nil || e.Output == nil {
			continue
		}
		p, err := e.price(model)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		t.models[model] = p
	}
	if len(t.models) == 0 {
		return nil, fmt.Errorf("%s: no model with an input and an output price", name)
	}
	return t, nil
}

func (e *entry) price(model string) (*Price, error) {
	var err error
	nano := func(v *float64, or Nano) Nano {
		if v == nil {
			return or
		}
		if *v < 0 || *v > 1 || math.IsNaN(*v) {
			err = fmt.Errorf("model %q: price %v per token is not a price", model, *v)
			return 0
		}
		return Nano(math.Round(*v * 1e9))
	}
	p := &Price{Input: nano(e.Input, 0), Output: nano(e.Output, 0)}
	// Without their own prices, cache writes cost 1.25 × input and 1-hour writes 2 ×; reads 0.1 ×
	// (Anthropic's published multipliers).
	p.CacheWrite = nano(e.CacheWrite, p.Input*5/4)
	p.CacheWrite1h = nano(e.CacheWrite1h, p.Input*2)
	p.CacheRead = nano(e.CacheRead, p.Input/10)
	if e.InputTier != nil {
		h := &Price{Input: nano(e.InputTier, 0)}
		h.Output = nano(e.OutputTier, p.Output)
		h.CacheWrite = nano(e.CacheWriteTier, h.Input*5/4)
		h.CacheWrite1h = nano(e.CacheWrite1hT, h.Input*2)
		h.CacheRead = nano(e.CacheReadTier, h.Input/10)
		p.Above200k = h
	}
	return p, err
}

// Models lists the table's models, sorted.
func (t *Table) Models() []string {
	out := make([]string, 0, len(t.models))
	for m := range t.models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Lookup finds a model's prices: by its name, else without a provider's decoration (Bedrock's
// "us.anthropic.…-v1:0", Vertex's "…@20250929", a "anthropic/" prefix), else without the date.
func (t *Table) Lookup(model string) *Price {
	if t == nil || model == "" {
		return nil
	}
	if p := t.models[model]; p != nil {
		return p
	}
	m := model
	if i := strings.Index(m, "claude-"); i > 0 {
		m = m[i:]
	}
	if i := strings.IndexAny(m, "@:"); i > 0 {
		m = m[:i]
	}
	m = strings.TrimSuffix(m, "-v1")
	m = strings.TrimSuffix(m, "-v2")
	if p := t.models[m]; p != nil {
		return p
	}
	if i := strings.LastIndexByte(m, '-'); i > 0 && len(m)-i-1 == 8 && allDigits(m[i+1:]) {
		return t.models[m[:i]]
	}
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Of prices one message's usage. Cache writes to the 1-hour cache (when the log says how many)
// cost the 1-hour price, the rest the 5-minute one; a prompt over 200 000 tokens takes the
// long-context prices of models that have them.
func (p *Price) Of(u jsonl.Usage) Nano {
	if p.Above200k != nil && u.Input+u.CacheCreation+u.CacheRead > TierTokens {
		p = p.Above200k
	}
	hour := min(max(u.CacheCreation1h, 0), u.CacheCreation)
	return times(u.Input, p.Input).Plus(times(u.Output, p.Output)).Plus(times(u.CacheCreation-hour, p.CacheWrite)).
		Plus(times(hour, p.CacheWrite1h)).Plus(times(u.CacheRead, p.CacheRead))
}

var (
	// builtin is parsed on first need, not at the process's start: a warm `ccdag sessions` prices
	// nothing (its rows come from the cache), and the parse was its costliest package init.
	builtin = sync.OnceValue(func() *Table {
		t, err := Parse(embedded, "built-in")
		if err != nil {
			panic(err) // the embedded table is tested
		}
		return t
	})
	current atomic.Pointer[Table]
)

// Builtin is the table embedded at build time.
func Builtin() *Table { return builtin() }

// Current is the table in use: the built-in one unless Use set another.
func Current() *Table {
	if t := current.Load(); t != nil {
		return t
	}
	return builtin()
}

// IsBuiltin reports whether the table in use is the built-in one, without parsing it when no other
// was set.
func IsBuiltin() bool {
	t := current.Load()
	return t == nil || t == builtin()
}

// Use makes t the table in use (nil: the built-in one). Token indexes notice and price again.
func Use(t *Table) { current.Store(t) }

// Load reads a table from a file (--prices, ccdag.prices).
//
// read reads the file, at most max bytes: the callers' layout.ReadFileMax, which opens a regular
// file only and without blocking (a FIFO named as the table once blocked the server for ever:
// docs/spec.md §15) and refuses a larger one before reading it.
func Load(path string, read func(path string, max int64) ([]byte, error)) (*Table, error) {
	if path == "" {
		return nil, errors.New("no price file named")
	}
	data, err := read(path, MaxFile)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// MaxFile is the largest price table read (LiteLLM's whole file is about 1 MB).
const MaxFile = 64 << 20

// Label says which table priced a figure: "prices of 2026-11-26 (LiteLLM)" or the file's name.
func (t *Table) Label() string {
	if t.Date != "" {
		return "prices of " + t.Date + " (LiteLLM, embedded)"
	}
	return "prices from " + t.Source
}
