// Package secrets finds secrets in session logs with gitleaks' rules (docs/spec.md §11) and redacts
// them. It runs the rules smarter than gitleaks' own detector does on a log: each rule's keywords are
// found in one pass over a line, and a rule's regular expression runs only on the decoded JSON string
// values holding one of its keywords. It knows nothing of sessions or the protocol: it takes lines.
package secrets

import (
	"fmt"
	"math"
	stdregexp "regexp"
	"strings"
	"sync"

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
	id      string
	after   int  // window after a keyword
	anyText bool // no keyword of 2 bytes or more: the rule runs on every string value
	assign  bool // a semi-generic rule: its keyword is followed by an assignment (assignAfter)

	once    sync.Once
	src     *config.ViperConfig // this rule alone, with the allowlists aimed at it
	re      *regexp.Regexp      // nil: it did not compile (err)
	err     error
	core    *stdregexp.Regexp // nil, or re without genericPrefix (see find)
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
	first    map[uint32][]int32 // a keyword's first three bytes → keyword indexes
	tri      []uint64           // bit set of those three-byte prefixes
	second   map[uint32][]int32 // a two-byte keyword → keyword indexes
	bi       []uint64           // bit set of two-byte keywords
	anyText  []int              // rules run on every string value

	globalOnce sync.Once
	globalSrc  *config.ViperConfig
	global     []*config.Allowlist // allowlists for every rule
	globalErr  error
}

type keyword struct {
	text  string // lower case
	rules []int
}

var (
	defaultOnce    sync.Once
	defaultScanner *Scanner
	defaultErr     error
)

// Default returns the scanner of gitleaks' default configuration (read once, on first use; each
// rule compiled when first needed).
func Default() *Scanner {
	defaultOnce.Do(func() { defaultScanner, defaultErr = parse(config.DefaultConfig) })
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
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	if vc.Extend.Path != "" || vc.Extend.URL != "" || vc.Extend.UseDefault {
		return nil, fmt.Errorf("a configuration that extends another is not supported")
	}
	s := &Scanner{first: map[uint32][]int32{}, tri: make([]uint64, 1<<24/64), second: map[uint32][]int32{}, bi: make([]uint64, 1<<16/64)}
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
		r := &rule{id: vr.ID, after: after, src: one, assign: strings.Contains(vr.Regex, assignTemplate)}
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
				if len(k) == 2 {
					t := uint32(k[0])<<8 | uint32(k[1])
					s.second[t] = append(s.second[t], int32(ki))
					s.bi[t>>6] |= 1 << (t & 63)
				} else {
					t := tri3(k[0], k[1], k[2])
					s.first[t] = append(s.first[t], int32(ki))
					s.tri[t>>6] |= 1 << (t & 63)
				}
			}
			s.keywords[ki].rules = append(s.keywords[ki].rules, ri)
		}
	}
	return s, nil
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

func tri3(a, b, c byte) uint32 {
	return uint32(lower[a])<<16 | uint32(lower[b])<<8 | uint32(lower[c])
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
// never holds for a log line.
func allowed(lists []*config.Allowlist, secret, match string, line func() string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line()
		}
		regexOK := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition == config.AllowlistMatchAnd {
			ok := len(a.Commits) == 0 && len(a.Paths) == 0
			if len(a.Regexes) > 0 && !regexOK {
				ok = false
			}
			if len(a.StopWords) > 0 && !stop {
				ok = false
			}
			if ok && (len(a.Regexes) > 0 || len(a.StopWords) > 0) {
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
