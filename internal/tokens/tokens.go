// Package tokens counts a session's tokens the way docs/spec.md §7 says: the lines of one assistant
// message repeat its usage (and early lines of a streamed message can carry a partial count), so a
// message counts once, by message.id (else requestId; neither: the line alone), with the usage of
// its last line. Totals come per line range (a turn), per file (a sub-agent log) and per session.
package tokens

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/prices"
	"github.com/ccdag/ccdag/internal/session"
)

// Count is a token total. The JSON names are those of `ccdag sessions --format json`.
type Count struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cacheCreation"`
	CacheRead     int64 `json:"cacheRead"`
	// Unfinished is how many of the messages were logged before their reply ended (no
	// stop_reason): their output count is a snapshot taken while the reply streamed, often the
	// placeholder 1 (Claude Code 2.x wrote such lines for a third of messages and more), so Output
	// is a lower bound whenever Unfinished > 0.
	Unfinished int64 `json:"unfinishedMessages,omitempty"`
	Messages   int64 `json:"-"` // messages counted
	Cost       Cost  `json:"-"`
}

// Cost is what the messages cost by the price table in use; messages of a model missing from it
// are counted as unpriced, never as $0.
type Cost struct {
	Nano     prices.Nano
	Priced   int64 // messages priced
	Unpriced int64 // messages of a model without a price (synthetic messages with no tokens are neither)
}

// Add returns c + d, the amounts saturating (prices.Nano.Plus).
func (c Cost) Add(d Cost) Cost {
	return Cost{c.Nano.Plus(d.Nano), c.Priced + d.Priced, c.Unpriced + d.Unpriced}
}

func (c Cost) sub(d Cost) Cost {
	return Cost{c.Nano - d.Nano, c.Priced - d.Priced, c.Unpriced - d.Unpriced}
}

// String is the cost as shown: "$4.21", "≥ $4.21" when some messages are unpriced, "unpriced"
// when none is priced, "" when there was nothing to price.
func (c Cost) String() string {
	switch {
	case c.Priced == 0 && c.Unpriced == 0:
		return ""
	case c.Priced == 0:
		return "unpriced"
	case c.Unpriced > 0:
		return "≥ " + c.Nano.String()
	}
	return c.Nano.String()
}

// Add returns c + d. Token figures saturate at math.MaxInt64 rather than wrap: each message's are
// at most 2^53 (jsonl.MaxCount), but a few hundred such messages would pass int64. A running sum
// that saturated stays there, so a range of a File past it is a lower bound, never negative.
func (c Count) Add(d Count) Count {
	return Count{plus(c.Input, d.Input), plus(c.Output, d.Output), plus(c.CacheCreation, d.CacheCreation), plus(c.CacheRead, d.CacheRead),
		c.Unfinished + d.Unfinished, c.Messages + d.Messages, c.Cost.Add(d.Cost)}
}

// plus is a + b for counts (never negative), saturating at math.MaxInt64.
func plus(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func (c Count) sub(d Count) Count {
	return Count{c.Input - d.Input, c.Output - d.Output, c.CacheCreation - d.CacheCreation, c.CacheRead - d.CacheRead,
		c.Unfinished - d.Unfinished, c.Messages - d.Messages, c.Cost.sub(d.Cost)}
}

// In is every input token: fresh input plus cache creation and cache reads (saturating).
func (c Count) In() int64 { return plus(plus(c.Input, c.CacheCreation), c.CacheRead) }

// IsZero reports whether nothing was counted.
func (c Count) IsZero() bool { return c == Count{} }

// LowerBound reports whether Output is only a lower bound (see Unfinished).
func (c Count) LowerBound() bool { return c.Unfinished > 0 }

// OutText is the output figure: "3.3k", or "≥ 3.3k" when it is a lower bound.
func (c Count) OutText() string {
	if c.LowerBound() {
		return "≥ " + Short(c.Output)
	}
	return Short(c.Output)
}

// CostLowerBound reports whether the cost is only a lower bound: some messages are unpriced, or
// priced on placeholder output counts (LowerBound).
func (c Count) CostLowerBound() bool {
	return c.Cost.Priced > 0 && (c.Cost.Unpriced > 0 || c.LowerBound())
}

// CostText is the cost as shown: Cost.String, and "≥ $6.77" also when the output counts it was
// priced on are placeholders.
func (c Count) CostText() string {
	if c.CostLowerBound() {
		return "≥ " + c.Cost.Nano.String()
	}
	return c.Cost.String()
}

// String is the short form the code lens and transcript show: "1.2k out · 340k in+cache · $4.21"
// (no cost when nothing was priced or unpriced).
func (c Count) String() string {
	s := c.OutText() + " out · " + Short(c.In()) + " in+cache"
	if cs := c.CostText(); cs != "" {
		s += " · " + cs
	}
	return s
}

// Why says, for hover, what makes a figure less than exact: placeholder output counts and unpriced
// messages. "" when the figures are exact.
func (c Count) Why() string {
	var parts []string
	if c.Unfinished > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d messages were logged before their reply ended (no stop_reason): "+
			"their output counts are placeholders, so the output figure is a lower bound", c.Unfinished, c.Messages))
	}
	if c.Cost.Unpriced > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d messages are of a model missing from the price table: the cost leaves them out",
			c.Cost.Unpriced, c.Cost.Priced+c.Cost.Unpriced))
	}
	return strings.Join(parts, "; ")
}

// Short writes n with one rule everywhere: three significant digits at most, rounded (950, 3.3k,
// 34.5k, 152k, 1.6M, 11.7M, 2.1B); a figure rounds up to the next unit (999 960 is 1.0M).
//
// Counts read from a log are never negative (jsonl bounds them, docs/spec.md §15), but Short takes
// any int64 without failing: a negative one once recursed for ever on -2^63 (its negation is itself).
func Short(n int64) string {
	if n < 0 {
		return "-" + Short(-max(n, -math.MaxInt64))
	}
	if n < 1000 {
		return strconv.FormatInt(n, 10)
	}
	units := [...]string{"k", "M", "B", "T"}
	v := float64(n)
	for i, u := range units {
		v /= 1000
		if v >= 999.5 && i < len(units)-1 {
			continue
		}
		if v < 99.95 {
			return strconv.FormatFloat(v, 'f', 1, 64) + u
		}
		return strconv.FormatFloat(v, 'f', 0, 64) + u
	}
	return strconv.FormatInt(n, 10)
}

// key is what makes lines one message: message.id, else requestId, else "" (the line alone).
func key(r *session.Rec) string {
	if r.D().MessageID != "" {
		return "m" + r.D().MessageID
	}
	if r.D().RequestID != "" {
		return "r" + r.D().RequestID
	}
	return ""
}

// File is the token index of one log: each message's usage placed on its last line, and running
// sums, so the total of any line range costs O(1). It follows a growing log: Update after an append
// costs the appended lines (and the tail of a message they continue), not the file.
type File struct {
	f          *session.File
	lines      int            // lines read so far
	recs       []*session.Rec // the record of each line read (nil when blank), to notice edits
	terminated bool           // the last line read ended with a newline
	byKey      map[string]int // message key -> line holding its usage now
	at         map[int]Count  // line -> usage of the message whose last usage line it is
	prefix     []Count        // prefix[i] = sum of at[j] for j < i; len = lines+1
	msgs       int
	table      *prices.Table // the price table the costs were computed with
}

// NewFile indexes f.
func NewFile(f *session.File) *File {
	t := &File{}
	t.Update(f)
	return t
}

// Update brings the index up to date with f. When f only grew since the last call (its old lines
// are the same records), only the new lines are read; any other change reads f again.
func (t *File) Update(f *session.File) {
	n := f.LineCount()
	// A line whose record was not complete (the live last line) can become one: read it again.
	from := t.lines
	if from > 0 && !t.terminated {
		from--
	}
	table := prices.Current()
	if t.f != f || n < t.lines || t.table != table || !t.same(f, from) {
		*t = File{f: f, byKey: map[string]int{}, at: map[int]Count{}, prefix: make([]Count, 1, n+1), table: table}
		from = 0
	}
	if n == t.lines && (n == 0 || f.Rec(n-1) == t.recs[n-1]) {
		return
	}
	low := from // lowest line whose prefix sum must be recomputed
	if from < t.lines {
		if r := t.recs[from]; r != nil && r.LineErr() == nil && r.Has(jsonl.FlagUsage) {
			// Undo the old reading of the line read again.
			k := key(r)
			if k == "" || t.byKey[k] == from {
				delete(t.at, from)
				t.msgs--
				if k != "" {
					delete(t.byKey, k)
				}
			}
		}
	}
	for i := from; i < n; i++ {
		r := f.Rec(i)
		if r == nil || r.LineErr() != nil || !r.Has(jsonl.FlagUsage) {
			continue
		}
		u := message(r, table)
		k := key(r)
		if k != "" {
			if j, ok := t.byKey[k]; ok {
				delete(t.at, j)
				low = min(low, j)
			} else {
				t.msgs++
			}
			t.byKey[k] = i
		} else {
			t.msgs++
		}
		t.at[i] = u
	}
	t.prefix = t.prefix[:low+1]
	for i := low; i < n; i++ {
		t.prefix = append(t.prefix, t.prefix[i].Add(t.at[i]))
	}
	t.recs = t.recs[:from]
	for i := from; i < n; i++ {
		t.recs = append(t.recs, f.Rec(i))
	}
	t.lines = n
	t.terminated = f.Terminated(n - 1)
}

// message is one message's count from the usage of its last line.
func message(r *session.Rec, table *prices.Table) Count {
	u := r.D().Usage
	c := Count{Input: u.Input, Output: u.Output, CacheCreation: u.CacheCreation, CacheRead: u.CacheRead, Messages: 1}
	if !r.Has(jsonl.FlagStopped) {
		c.Unfinished = 1
	}
	if u.Total() == 0 {
		return c // a synthetic message (an API error): nothing to price
	}
	if p := table.Lookup(r.D().Model); p != nil {
		c.Cost = Cost{Nano: p.Of(u), Priced: 1}
	} else {
		c.Cost.Unpriced = 1
	}
	return c
}

// same reports whether f's first t.lines lines are still the records read (a record never changes
// once parsed: an edited line is a new *session.Rec), so comparing pointers finds any edit.
func (t *File) same(f *session.File, n int) bool {
	for i, r := range t.recs[:n] {
		if f.Rec(i) != r {
			return false
		}
	}
	return true
}

// Range is the total of the messages whose last line lies in lines [from, to).
func (t *File) Range(from, to int) Count {
	from = max(0, min(from, t.lines))
	to = max(from, min(to, t.lines))
	return t.prefix[to].sub(t.prefix[from])
}

// Total is the file's total.
func (t *File) Total() Count { return t.prefix[t.lines] }

// Messages is how many messages carried a usage.
func (t *File) Messages() int { return t.msgs }

// Agent is one sub-agent log's total.
type Agent struct {
	Lane  string // "agent-<id>"
	Count Count
}

// Totals are a session's tokens: its main log, each sub-agent log, and the sum of all.
type Totals struct {
	Main   Count
	Agents []Agent
	// Total includes the sub-agents' logs (Total = Main + every Agents[i].Count).
	Total Count
}

// String says what the total includes: "1.2k out · 340k in+cache (incl. 3 sub-agents)".
func (t Totals) String() string { return t.Total.String() + inclAgents(len(t.Agents)) }

func itoa(n int) string { return strconv.Itoa(n) }

// Session counts every file of s. idx, when not nil, is reused and kept current per file (the
// language server's cache); pass nil for a one-off count.
func Session(s *session.Session, idx map[*session.File]*File) Totals {
	var t Totals
	for _, f := range s.Files {
		var c Count
		if idx != nil {
			fi := idx[f]
			if fi == nil {
				fi = &File{}
				idx[f] = fi
			}
			fi.Update(f)
			c = fi.Total()
		} else {
			c = NewFile(f).Total()
		}
		if f.Lane == "main" {
			t.Main = t.Main.Add(c)
		} else {
			t.Agents = append(t.Agents, Agent{Lane: f.Lane, Count: c})
		}
		t.Total = t.Total.Add(c)
	}
	return t
}
