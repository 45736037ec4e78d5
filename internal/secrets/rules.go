// Package secrets finds secrets in session logs with gitleaks' rules (docs/spec.md §11) and redacts
// them. It runs the rules smarter than gitleaks' own detector does on a log: each rule's keywords are
// found in one pass over a line, and a rule's regular expression runs only on the decoded JSON string
// values holding one of its keywords. It knows nothing of sessions or the protocol: it takes lines.
package secrets

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/regexp"
)

// allowSignature on a string keeps gitleaks from reporting secrets in it; ccdag honours it too.
const allowSignature = "gitleaks:allow"

// rule is one gitleaks rule with a regular expression (path-only rules have no meaning for a log).
type rule struct {
	id      string
	re      *regexp.Regexp
	group   int
	entropy float64
	allow   []*config.Allowlist
	after   int  // window after a keyword
	anyText bool // no keyword of 2 bytes or more: the rule runs on every string value
}

// Scanner holds compiled rules and their keyword index. It is safe for concurrent use.
type Scanner struct {
	rules    []rule
	global   []*config.Allowlist
	keywords []keyword
	first    map[uint32][]int32 // a keyword's first three bytes → keyword indexes
	tri      []uint64           // bit set of those three-byte prefixes
	second   map[uint32][]int32 // a two-byte keyword → keyword indexes
	bi       []uint64           // bit set of two-byte keywords
	anyText  []int              // rules run on every string value
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

// Default returns the scanner of gitleaks' default configuration (compiled once, on first use: ~200
// regular expressions).
func Default() *Scanner {
	defaultOnce.Do(func() { defaultScanner, defaultErr = New(config.DefaultConfig) })
	if defaultErr != nil {
		// The embedded configuration is a build input; a failure here is a broken build.
		panic("secrets: gitleaks' default configuration: " + defaultErr.Error())
	}
	return defaultScanner
}

// New compiles a gitleaks configuration (TOML).
func New(toml string) (*Scanner, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	cfg, err := translate(&vc)
	if err != nil {
		return nil, err
	}
	s := &Scanner{global: cfg.Allowlists, first: map[uint32][]int32{}, tri: make([]uint64, 1<<24/64), second: map[uint32][]int32{}, bi: make([]uint64, 1<<16/64)}
	kwIndex := map[string]int{}
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.Regex == nil || r.Path != nil {
			continue // path rules name files, not text
		}
		ri := len(s.rules)
		after := windowAfter
		if strings.Contains(r.Regex.String(), `[\s\S`) { // spans lines: a key block
			after = windowLong
		}
		s.rules = append(s.rules, rule{id: r.RuleID, re: r.Regex, group: r.SecretGroup, entropy: r.Entropy, allow: r.Allowlists, after: after})
		short := len(r.Keywords) == 0
		for _, k := range r.Keywords {
			if len(k) < 2 {
				short = true
			}
		}
		if short {
			s.rules[ri].anyText = true
			s.anyText = append(s.anyText, ri)
			continue
		}
		for _, k := range r.Keywords {
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

// translate turns viper's view of the configuration into rules. gitleaks' Translate keeps global
// state across calls (its extend depth); it is called once per configuration and guarded here.
var translateMu sync.Mutex

func translate(vc *config.ViperConfig) (config.Config, error) {
	translateMu.Lock()
	defer translateMu.Unlock()
	var cfg config.Config
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil { // MustCompile of a bad pattern in a custom configuration
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
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
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
