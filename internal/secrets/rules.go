// Package secrets finds secrets in session logs with gitleaks' rules (docs/spec.md §11) and redacts
// them. It runs the rules smarter than gitleaks' own detector does on a log: each rule's keywords are
// found in one pass over a line, and a rule's regular expression runs only on the decoded JSON string
// values holding one of its keywords. It knows nothing of sessions or the protocol: it takes lines.
package secrets

import (
	"fmt"
	"math"
	stdregexp "regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/regexp"
)

// allowSignature on a string keeps gitleaks from reporting secrets in it; ccdag honours it too.
const allowSignature = "gitleaks:allow"

// rule is one gitleaks rule with a regular expression (path-only rules have no meaning for a log).
// Its expression and allowlists are compiled the first time a string holds one of its keywords:
// compiling all ~220 takes 0.2 s of CPU, and a log holds the keywords of a few.
type rule struct {
	id       string
	after    int         // window after a keyword
	anyText  bool        // no keyword of 2 bytes or more: the rule runs on every string value
	assign   bool        // a semi-generic rule: its keyword is followed by an assignment (assignEnds)
	value    [][]byteSet // nil, or what the value after a semi-generic rule's assignment starts with (valueAfter)
	keywords []string

	once    sync.Once
	src     *config.ViperConfig // this rule alone, with the allowlists aimed at it
	re      *regexp.Regexp      // nil: it did not compile (err)
	err     error
	core    *stdregexp.Regexp // nil, or re without genericPrefix (see find)
	anch    *anchored         // nil, or the body run at each keyword (anchor.go)
	group   int
	entropy float64
	allow   []*config.Allowlist
}

// compile makes the rule ready; false when it cannot run.
func (r *rule) compile() bool {
	r.once.Do(func() {
		cfg, err := translate(r.src)
		r.src = nil
		if err != nil {
			r.err = err
			return
		}
		cr, ok := cfg.Rules[r.id]
		if !ok || cr.Regex == nil {
			r.err = fmt.Errorf("rule %s has no expression", r.id)
			return
		}
		r.re, r.group, r.entropy, r.allow = cr.Regex, cr.SecretGroup, cr.Entropy, cr.Allowlists
		r.anch = anchor(cr.Regex.String(), r.keywords)
		if rest, ok := strings.CutPrefix(cr.Regex.String(), genericPrefix); ok {
			r.core, _ = stdregexp.Compile("(?i)" + rest) // the same without the prefix: a filter
		}
	})
	return r.re != nil
}

// genericPrefix starts gitleaks' semi-generic rules: up to 50 name bytes before the keyword
// (`AWS_SECRET_KEY=`). In Go's regexp it keeps up to 50 threads alive over every word of the text,
// 2 µs a byte; the rest of the expression alone is a hundred times cheaper, and matches wherever
// the whole does.
const genericPrefix = `(?i)[\w.-]{0,50}?`

// Scanner holds compiled rules and their keyword index. It is safe for concurrent use.
type Scanner struct {
	rules    []*rule
	keywords []keyword
	tri      []uint64    // bit set of the keywords' first three bytes as classes (see forKeywords)
	group    []uint8     // first two bytes (lower case) → their group in groups, 0 none
	groups   []kwGroup   // [0] unused
	quad     []uint64    // bit set of the longer keywords' first four bytes, hashed (quadHash)
	anyText  []int       // rules run on every string value
	reach    int         // how far before its first byte may decide a keyword's place: its length, or a two-byte one's token run
	memo     *memo       // hits of long values already scanned
	simd     *simdTables // the keyword pass's vector test (simd.go)
	quotes   bool        // long lines' quotes indexed first (quotes.go)

	globalOnce sync.Once
	globalSrc  *config.ViperConfig
	global     []*config.Allowlist // allowlists for every rule
	globalErr  error
}

type keyword struct {
	text  string // lower case
	rules []int
}

// kwGroup holds the keywords starting with one pair of bytes.
type kwGroup struct {
	escape bool      // \u or \/: an escape that may hide a keyword (forKeywords)
	two    []int32   // the keyword that is the pair itself (at most one)
	third  [4]uint64 // bit set of the longer keywords' third bytes
	short  [4]uint64 // of those, the third bytes that end a keyword of three
	long   []int32   // the longer keywords
	// longAt holds, for each of long, its third byte and its fourth (bit 16: it has none), looked
	// at before the keyword is compared whole: a group such as "co" holds ten.
	longAt []uint32
}

var (
	defaultOnce    sync.Once
	defaultScanner *Scanner
	defaultErr     error
)

// Default returns the scanner of gitleaks' default configuration (read once, on first use; each
// rule compiled when first needed).
func Default() *Scanner {
	defaultOnce.Do(func() { defaultScanner, defaultErr = parseDefault() })
	if defaultErr != nil {
		// The embedded configuration is a build input; a failure here is a broken build.
		panic("secrets: gitleaks' default configuration: " + defaultErr.Error())
	}
	return defaultScanner
}

// Warm reads the default configuration now (in the background of a server's start, say), so the
// first scan does not.
func Warm() { Default() }

// New compiles a gitleaks configuration (TOML), every rule at once, so a bad one is an error here.
func New(toml string) (*Scanner, error) {
	s, err := parse(toml)
	if err != nil {
		return nil, err
	}
	if err := s.globals(); err != nil {
		return nil, err
	}
	for _, r := range s.rules {
		if !r.compile() {
			return nil, fmt.Errorf("%s: %w", r.id, r.err)
		}
	}
	return s, nil
}

// parse reads a configuration's rules and keywords without compiling their expressions.
func parse(toml string) (*Scanner, error) {
	vc, err := viperRead(toml)
	if err != nil {
		return nil, err
	}
	return build(vc)
}

// viperRead reads a configuration as gitleaks does.
func viperRead(toml string) (*config.ViperConfig, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	return &vc, nil
}

// parseDefault is parse of gitleaks' default configuration, read by go-toml directly: the same
// configuration as viper reads it (TestDefaultConfigReadAsViperDoes), in 1.1 – 1.6 ms of a new
// process against viper's 6.9 – 9.2 (its decoding through mapstructure), which every process
// that scans or redacts pays once (a grown log's row: most of what re-reading it cost beyond the
// parse, docs/PERFORMANCE.md). Other configurations (New) are read by viper, as gitleaks reads
// them.
func parseDefault() (*Scanner, error) {
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &vc); err != nil {
		return nil, err
	}
	return build(&vc)
}

// build is a scanner of a configuration read.
func build(vc *config.ViperConfig) (*Scanner, error) {
	if vc.Extend.Path != "" || vc.Extend.URL != "" || vc.Extend.UseDefault {
		return nil, fmt.Errorf("a configuration that extends another is not supported")
	}
	s := &Scanner{tri: make([]uint64, 1<<(3*classBits)/64), group: make([]uint8, 1<<16), groups: make([]kwGroup, 1), quad: make([]uint64, 1<<quadBits/64), reach: 2 + tokenRun, memo: newMemo()}
	s.indexEscapes()
	// Allowlists aimed at rules go with their rule; the others apply to all.
	global := &config.ViperConfig{} // the deprecated single [allowlist] of old configurations is not read
	for _, a := range vc.Allowlists {
		if len(a.TargetRules) == 0 {
			global.Allowlists = append(global.Allowlists, a)
		}
	}
	s.globalSrc = global
	kwIndex := map[string]int{}
	seen := map[string]bool{}
	for i, vr := range vc.Rules {
		if strings.TrimSpace(vr.ID) == "" {
			return nil, fmt.Errorf("a rule has no id")
		}
		if seen[vr.ID] {
			continue // gitleaks keeps the last of a repeated id; the default has none
		}
		seen[vr.ID] = true
		if vr.Regex == "" || vr.Path != "" {
			continue // path rules name files, not text
		}
		one := &config.ViperConfig{Rules: append(vc.Rules[:0:0], vc.Rules[i])}
		for _, a := range vc.Allowlists {
			for _, id := range a.TargetRules {
				if id == vr.ID {
					b := *a
					b.TargetRules = []string{id}
					one.Allowlists = append(one.Allowlists, &b)
				}
			}
		}
		// Required rules (multi-part) are checked by gitleaks against the other parts' findings;
		// here each part stands alone, as gitleaks reports a rule without requirements.
		one.Rules[0].Required = nil
		ri := len(s.rules)
		after := windowAfter
		if strings.Contains(vr.Regex, `[\s\S`) { // spans lines: a key block
			after = windowLong
		}
		r := &rule{id: vr.ID, after: after, src: one, assign: strings.Contains(vr.Regex, assignTemplate), keywords: vr.Keywords}
		r.value = valueLeads(vr.Regex)
		s.rules = append(s.rules, r)
		short := len(vr.Keywords) == 0
		for _, k := range vr.Keywords {
			if len(k) < 2 {
				short = true
			}
		}
		if short {
			r.anyText = true
			s.anyText = append(s.anyText, ri)
			continue
		}
		for _, k := range vr.Keywords {
			k = strings.ToLower(k)
			ki, ok := kwIndex[k]
			if !ok {
				ki = len(s.keywords)
				kwIndex[k] = ki
				s.keywords = append(s.keywords, keyword{text: k})
				s.reach = max(s.reach, len(k))
				if err := s.index(k, int32(ki)); err != nil {
					return nil, err
				}
			}
			s.keywords[ki].rules = append(s.keywords[ki].rules, ri)
		}
	}
	if simdOK {
		s.buildSIMD()
	}
	s.quotes = quotesOK
	return s, nil
}

// indexEscapes puts the escapes that could hide a keyword from forKeywords' look at raw JSON into its
// index: \u00 (then forKeywords looks for a printable ASCII character), \u01 and \u21 (a fold
// trap, trapU) and \/ before any byte.
func (s *Scanner) indexEscapes() {
	for _, pair := range []string{`\u`, `\/`} {
		t := uint32(pair[0])<<8 | uint32(pair[1])
		s.group[t] = uint8(len(s.groups))
		s.groups = append(s.groups, kwGroup{escape: true})
		c01 := uint32(class[pair[0]])<<(2*classBits) | uint32(class[pair[1]])<<classBits
		for c := range uint32(1 << classBits) {
			if pair[1] == '/' || c == uint32(class['0']) || c == uint32(class['2']) { // \u00XX; \u017f, \u212a (trapU)
				t := c01 | c
				s.tri[t>>6] |= 1 << (t & 63)
			}
		}
	}
}

// index adds keyword k (lower case, 2 bytes or more) to the keyword index.
func (s *Scanner) index(k string, ki int32) error {
	for i := range len(k) {
		if class[k[i]] == 0 || k[i] == '\\' {
			return fmt.Errorf("keyword %q: byte %q is not one keywords are made of", k, k[i])
		}
	}
	t := uint32(k[0])<<8 | uint32(k[1])
	if s.group[t] == 0 {
		if len(s.groups) > 255 {
			return fmt.Errorf("more than 255 distinct keyword beginnings")
		}
		s.group[t] = uint8(len(s.groups))
		s.groups = append(s.groups, kwGroup{})
	}
	g := &s.groups[s.group[t]]
	c01 := uint32(class[k[0]])<<(2*classBits) | uint32(class[k[1]])<<classBits
	if len(k) == 2 {
		// Found where a token byte follows (forKeywords then wants tokenRun of them).
		g.two = append(g.two, ki)
		for c := range 256 {
			if tokenByte[c] {
				t := c01 | uint32(class[c])
				s.tri[t>>6] |= 1 << (t & 63)
			}
		}
		return nil
	}
	c := k[2]
	g.third[c>>6] |= 1 << (c & 63)
	if len(k) == 3 {
		g.short[c>>6] |= 1 << (c & 63)
	} else {
		h := quadHash(k[0], k[1], k[2], k[3])
		s.quad[h>>6] |= 1 << (h & 63)
	}
	g.long = append(g.long, ki)
	at := uint32(c) | 1<<16
	if len(k) > 3 {
		at = uint32(c) | uint32(k[3])<<8
	}
	g.longAt = append(g.longAt, at)
	t3 := c01 | uint32(class[c])
	s.tri[t3>>6] |= 1 << (t3 & 63)
	return nil
}

// class numbers the bytes keywords and tokens are made of (ASCII letters of either case as one),
// in classBits bits; 0 is every other byte, in no keyword.
var class [256]uint8

const classBits = 6

func init() {
	n := uint8(0)
	for c := range 256 {
		if 'A' <= c && c <= 'Z' {
			continue
		}
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-.=_~+/", byte(c)) >= 0 {
			n++
			class[c] = n
		}
	}
	if n >= 1<<classBits {
		panic("secrets: too many byte classes")
	}
	for c := 'A'; c <= 'Z'; c++ {
		class[c] = class[c+'a'-'A']
	}
}

// globals compiles the allowlists that apply to every rule (once).
func (s *Scanner) globals() error {
	s.globalOnce.Do(func() {
		cfg, err := translate(s.globalSrc)
		s.globalSrc = nil
		s.global, s.globalErr = cfg.Allowlists, err
	})
	return s.globalErr
}

// translate compiles a configuration with gitleaks' own code. Its Translate keeps global state
// across calls (its extend depth): calls are serialised.
var translateMu sync.Mutex

func translate(vc *config.ViperConfig) (config.Config, error) {
	translateMu.Lock()
	defer translateMu.Unlock()
	var cfg config.Config
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil { // MustCompile of a bad pattern
				err = fmt.Errorf("%v", p)
			}
		}()
		cfg, err = vc.Translate()
	}()
	return cfg, err
}

// Rules returns the ids of the rules that run on text, in gitleaks' order.
func (s *Scanner) Rules() []string {
	ids := make([]string, len(s.rules))
	for i, r := range s.rules {
		ids[i] = r.id
	}
	return ids
}

var lower [256]byte

func init() {
	for i := range lower {
		lower[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i + 'a' - 'A')
		}
	}
}

// shannonEntropy is gitleaks' measure (bits per character), for its rules' entropy thresholds.
func shannonEntropy(data string) float64 {
	if data == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range data {
		counts[c]++
	}
	var e float64
	inv := 1.0 / float64(len(data))
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// allowed applies gitleaks' allowlists to a finding as its detector does: an OR list allows on its
// regexes or stop words; an AND list needs every condition it has, and a commit or path condition
// never holds for a log line (so such a list is not looked at). A list aimed at the line reads
// text[ls:le] of lines, each line once.
func allowed(lists []*config.Allowlist, secret, match string, lines *lineIndex, ls, le int) bool {
	for _, a := range lists {
		and := a.MatchCondition == config.AllowlistMatchAnd
		if and && (len(a.Commits) > 0 || len(a.Paths) > 0) {
			continue
		}
		regexOK := false
		if len(a.Regexes) > 0 {
			switch a.RegexTarget {
			case "match":
				regexOK = a.RegexAllowed(match)
			case "line":
				regexOK = lines.regexAllowed(a, ls, le)
			default:
				regexOK = a.RegexAllowed(secret)
			}
		}
		stop := false
		if len(a.StopWords) > 0 {
			stop, _ = a.ContainsStopWord(secret)
		}
		if and {
			if (len(a.Regexes) > 0 || len(a.StopWords) > 0) && (len(a.Regexes) == 0 || regexOK) && (len(a.StopWords) == 0 || stop) {
				return true
			}
			continue
		}
		if regexOK || stop {
			return true
		}
	}
	return false
}

// valueLeads returns what the value of a semi-generic rule (its expression after assignTemplate and
// valueTemplate) starts with, nil when that says nothing.
func valueLeads(expr string) [][]byteSet {
	_, rest, ok := strings.Cut(expr, assignTemplate+valueTemplate)
	if !ok {
		return nil
	}
	if strings.HasPrefix(expr, "(?i)") {
		rest = "(?i)" + rest
	}
	re, err := syntax.Parse(rest, syntax.Perl)
	if err != nil {
		return nil
	}
	need, _ := leads(re, needMax)
	for _, alt := range need {
		if len(alt) < 2 {
			return nil
		}
	}
	return need
}

// quadBits is the size of the four-byte bit set: 2^15 bits, 4 KB, for ~230 keywords of four bytes
// or more (under 1 % of it set).
const quadBits = 15

// quadHash hashes four lower-case bytes to quadBits bits.
func quadHash(a, b, c, d byte) uint32 {
	return (uint32(a)<<24 | uint32(b)<<16 | uint32(c)<<8 | uint32(d)) * 0x9e3779b1 >> (32 - quadBits)
}
