// Package check finds integrity problems in a session (docs/spec.md §2). A Checker keeps each record's
// findings and, after an edit, recomputes only the records the session marked as affected.
package check

import (
	"fmt"
	"slices"
	"strings"
)

// Code is a stable diagnostic code (public interface: see docs/spec.md §2).
type Code string

const (
	InvalidJSON             Code = "invalid-json"
	IncompleteLastLine      Code = "incomplete-last-line"
	NotAnObject             Code = "not-an-object"
	MissingUUID             Code = "missing-uuid"
	DuplicateUUID           Code = "duplicate-uuid"
	Orphan                  Code = "orphan"
	ParentCycle             Code = "parent-cycle"
	ParentAfterChild        Code = "parent-after-child"
	UnresolvedLogicalParent Code = "unresolved-logical-parent"
	UnmatchedToolUse        Code = "unmatched-tool-use"
	UnmatchedToolResult     Code = "unmatched-tool-result"
	DuplicateToolResult     Code = "duplicate-tool-result"
	DuplicateToolUseID      Code = "duplicate-tool-use-id"
	MissingAgentFile        Code = "missing-agent-file"
	NotJSONL                Code = "not-jsonl"
	// InvalidField is ccdag's own addition: a field the DAG relies on holds the wrong JSON type
	// ("uuid": 5), or a count (tokens, milliseconds) is not plausible (negative, a fraction or
	// exponent, beyond 2^53), or a timestamp is dated before 2000 or after 2100 (docs/spec.md §15).
	// The record is read as if the field were absent.
	InvalidField Code = "invalid-field"
	// Secret is a secret found by one of gitleaks' rules in a string value (docs/spec.md §11): the
	// span is the secret, the message names the rule, never the secret.
	Secret Code = "secret"
)

// Severity follows LSP's DiagnosticSeverity numbering; Off silences a code.
type Severity int

const (
	Off Severity = iota
	Error
	Warning
	Information
	Hint
)

var severityNames = []string{"off", "error", "warning", "information", "hint"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return "unknown"
	}
	return severityNames[s]
}

// ParseSeverity reads "error", "warning", "information" (or "info"), "hint" or "off".
func ParseSeverity(name string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "information", "info":
		return Information, nil
	case "hint":
		return Hint, nil
	case "off", "none", "ignore":
		return Off, nil
	}
	return Off, fmt.Errorf("unknown severity %q (want error, warning, information, hint or off)", name)
}

// Defaults are the default severities of docs/spec.md §2.
var Defaults = map[Code]Severity{
	InvalidJSON:             Error,
	IncompleteLastLine:      Information,
	NotAnObject:             Error,
	MissingUUID:             Warning,
	DuplicateUUID:           Warning,
	Orphan:                  Warning,
	ParentCycle:             Error,
	ParentAfterChild:        Hint,
	UnresolvedLogicalParent: Information,
	UnmatchedToolUse:        Warning,
	UnmatchedToolResult:     Error,
	DuplicateToolResult:     Warning,
	DuplicateToolUseID:      Warning,
	MissingAgentFile:        Information,
	NotJSONL:                Error,
	InvalidField:            Warning,
	Secret:                  Warning,
}

// Codes returns every code, sorted.
func Codes() []Code {
	cs := make([]Code, 0, len(Defaults))
	for c := range Defaults {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}

// Severities overrides default severities per code.
type Severities map[Code]Severity

// Resolve returns the severity a finding is shown with: the override of its code, else its own.
func (s Severities) Resolve(f *Finding) Severity {
	if v, ok := s[f.Code]; ok {
		return v
	}
	return f.Severity
}

// ParseOverride reads "code=level" (the CLI's --severity flag).
func ParseOverride(s string) (Code, Severity, error) {
	code, level, ok := strings.Cut(s, "=")
	if !ok {
		return "", Off, fmt.Errorf("--severity wants code=level, got %q", s)
	}
	c := Code(strings.TrimSpace(code))
	if _, known := Defaults[c]; !known {
		return "", Off, fmt.Errorf("unknown diagnostic code %q", code)
	}
	sev, err := ParseSeverity(level)
	return c, sev, err
}

// FromMap reads severities from settings ({"orphan": "error", ...}); unknown codes and levels are
// reported, the rest applied.
func FromMap(m map[string]string) (Severities, []error) {
	out := Severities{}
	var errs []error
	for k, v := range m {
		c := Code(k)
		if _, ok := Defaults[c]; !ok {
			errs = append(errs, fmt.Errorf("unknown diagnostic code %q", k))
			continue
		}
		sev, err := ParseSeverity(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
			continue
		}
		out[c] = sev
	}
	return out, errs
}
