// Package classify decides who wrote a user record: a person (a prompt, an image, a slash command
// or a `!` shell command they typed) or Claude Code (text it injects in the user's name: command
// expansions, local command output, notifications, reminders, interruption notices). It is the one
// place this is decided: the workflow graph, the outline, hover and the transcript all ask it
// (docs/spec.md §4), so they never disagree.
//
// The decision, for a `user` record:
//
//   - a record holding tool_result blocks is ToolResults; a compaction's summary
//     (isCompactSummary) is CompactSummary; an isMeta record is Injected;
//   - text starting with <command-name>, <command-message> or <command-args> and naming a command
//     (<command-name>/x</command-name>) is a Command the person typed, shown as "/x args";
//   - text starting with <bash-input> is a Shell command the person typed (`!` mode), shown as
//     "! cmd";
//   - text starting with any other tag Claude Code writes (WrapperTag: <command-contents>,
//     <local-command-stdout>, <bash-stdout>, <task-notification>, <system-reminder>, ...) or with
//     "[Request interrupted by user" is Injected;
//   - any other non-empty text, or an image, is Person. A record with several blocks is Person when
//     any of them is (an <ide_selection> block beside typed text is still the person's prompt).
//
// Records of other types are Other.
package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/session"
)

// Who says who wrote a record.
type Who uint8

const (
	Other          Who = iota // not a user record
	Person                    // a prompt the person typed (text or image)
	Command                   // a slash command the person typed
	Shell                     // a `!` shell command the person typed (<bash-input>)
	Injected                  // text Claude Code wrote in the user's name
	ToolResults               // tool_result blocks
	CompactSummary            // a compaction's summary
)

// Typed reports whether the person typed it: Person, Command or Shell. A typed record starts a
// conversation turn.
func (w Who) Typed() bool { return w == Person || w == Command || w == Shell }

func (w Who) String() string {
	switch w {
	case Person:
		return "person"
	case Command:
		return "command"
	case Shell:
		return "shell"
	case Injected:
		return "injected"
	case ToolResults:
		return "tool results"
	case CompactSummary:
		return "compact summary"
	}
	return "other"
}

// wrapperTags are the tags Claude Code wraps the text it injects in. <bash-input> is not one: it
// holds what the person typed after `!`.
var wrapperTags = map[string]bool{
	"command-name": true, "command-message": true, "command-args": true, "command-contents": true,
	"local-command-stdout": true, "local-command-stderr": true, "local-command-caveat": true,
	"bash-notification": true, "task-notification": true, "bash-stdout": true, "bash-stderr": true,
	"system-reminder": true, "ide_selection": true, "ide_opened_file": true, "ide_diagnostics": true,
	"user-prompt-submit-hook": true, "tool_use_error": true, "agent-notification": true,
}

// WrapperTag reports whether name (lower case, without brackets) is a tag Claude Code wraps
// injected text in, or one of the command tags around a typed slash command.
func WrapperTag(name string) bool { return wrapperTags[name] }

// commandTags start a slash command's record.
func commandTag(name string) bool {
	return name == "command-name" || name == "command-message" || name == "command-args"
}

// peek is how much of a text is decoded to classify it: enough for the command tags and a
// command's name and arguments, never a whole 2 MB prompt.
const peek = 4096

// User classifies a record. It reads at most a few KB of each text block.
func User(r *session.Rec) Who {
	if r == nil || r.LineErr() != nil || r.Type != "user" {
		return Other
	}
	for k := range r.D().Blocks {
		if r.D().Blocks[k].Kind == jsonl.BlockToolResult {
			return ToolResults
		}
	}
	if r.Has(jsonl.FlagCompactSummary) {
		return CompactSummary
	}
	if r.Has(jsonl.FlagMeta) {
		return Injected
	}
	who := Injected
	better := func(w Who) {
		// Person beats a command or shell input beside it; either beats Injected.
		if w == Person || who == Injected {
			who = w
		}
	}
	if r.Has(jsonl.FlagContentString) && r.D().ContentSpan.Valid() {
		better(Text(r.Bytes(r.D().ContentSpan)))
	}
	for k := range r.D().Blocks {
		blk := &r.D().Blocks[k]
		switch blk.Kind {
		case jsonl.BlockText:
			if blk.BodySpan.Valid() {
				better(Text(r.Bytes(blk.BodySpan)))
			}
		case jsonl.BlockImage:
			better(Person)
		}
	}
	return who
}

// Text classifies one text of a user record, a JSON string value (quotes included): Person,
// Command, Shell or Injected (also for an empty text or a value that is not a string).
func Text(raw []byte) Who {
	if plainPerson(raw) {
		return Person
	}
	return textOf(decode(raw, peek))
}

// plainPerson reports whether a text is a person's without decoding it (a copy per prompt: a
// million-record session's graph spent 30 ms on them): its first byte that is not white space is
// plain ASCII, not an escape, and neither '<' (a tag) nor '[' (an interruption note).
func plainPerson(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body) && i < peek; i++ {
		switch c := body[i]; c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		case '\\', '<', '[':
			return false
		default:
			return c < utf8.RuneSelf
		}
	}
	return false
}

func textOf(text string) Who {
	head := strings.TrimLeftFunc(text, unicode.IsSpace)
	switch {
	case head == "":
		return Injected
	case strings.HasPrefix(head, "[Request interrupted by user"):
		return Injected
	case head[0] != '<':
		return Person
	}
	name := TagName(head[1:])
	switch {
	case name == "bash-input":
		return Shell
	case commandTag(name) && strings.Contains(head, "<command-name>"):
		return Command
	case wrapperTags[name]:
		return Injected
	}
	return Person
}

// Prompt returns what the person typed, as one would write it: a prompt's text ("[image]" for an
// image alone), "/x args" for a slash command, "! cmd" for a shell command; "" when the record is
// not Typed. At most limit bytes of each text are decoded (the result may be cut mid-word).
func Prompt(r *session.Rec, limit int) string {
	p, _ := PromptRaw(r, limit)
	return p
}

// PromptRaw is Prompt with the JSON string (quotes included) its text comes from, nil when none: a
// view that shows the prompt cut redacts it with that string (secrets.RedactCut), where the whole
// of a secret cut across the end is.
func PromptRaw(r *session.Rec, limit int) (string, []byte) {
	who := User(r)
	if !who.Typed() {
		return "", nil
	}
	var texts []string
	var raws [][]byte
	if r.Has(jsonl.FlagContentString) && r.D().ContentSpan.Valid() {
		raw := r.Bytes(r.D().ContentSpan)
		texts, raws = append(texts, decode(raw, max(limit, peek))), append(raws, raw)
	}
	image := false
	for k := range r.D().Blocks {
		blk := &r.D().Blocks[k]
		switch blk.Kind {
		case jsonl.BlockText:
			if blk.BodySpan.Valid() {
				raw := r.Bytes(blk.BodySpan)
				texts, raws = append(texts, decode(raw, max(limit, peek))), append(raws, raw)
			}
		case jsonl.BlockImage:
			image = true
		}
	}
	for i, t := range texts {
		if textOf(t) != who {
			continue
		}
		var out string
		switch who {
		case Command:
			out = CommandLine(t)
		case Shell:
			in, _ := Between(t, "bash-input")
			out = "! " + strings.TrimSpace(in)
		default:
			out = strings.TrimSpace(t)
		}
		return Cut(out, limit), raws[i]
	}
	if image {
		return "[image]", nil
	}
	return "", nil
}

// CommandLine is a slash command's text as typed, "/x args", from its <command-name> and
// <command-args> tags ("" without a <command-name>).
func CommandLine(text string) string {
	name, ok := Between(text, "command-name")
	if !ok {
		return ""
	}
	name = strings.TrimSpace(name)
	if name != "" && !strings.HasPrefix(name, "/") {
		name = "/" + name // older logs: <command-name>user:grammar</command-name>
	}
	if args, ok := Between(text, "command-args"); ok && strings.TrimSpace(args) != "" {
		name += " " + strings.TrimSpace(args)
	}
	return name
}

// Between returns the text inside the first <tag>...</tag> of s (to its end when unclosed).
func Between(s, tag string) (string, bool) {
	i := strings.Index(s, "<"+tag+">")
	if i < 0 {
		return "", false
	}
	s = s[i+len(tag)+2:]
	if j := strings.Index(s, "</"+tag+">"); j >= 0 {
		s = s[:j]
	}
	return s, true
}

// TagName returns the lower-case name of a tag at the start of s (just after its '<').
func TagName(s string) string {
	i := 0
	for i < len(s) && (s[i] == '-' || s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return strings.ToLower(s[:i])
}

// decode returns the text of a JSON string value (quotes included), at most about max bytes of
// it; "" for a value that is not a string.
func decode(raw []byte, max int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	if len(body) > max {
		body = body[:max]
	}
	return strings.ToValidUTF8(jsonscan.Unescape(body), "")
}

// Cut shortens s to at most max bytes, on a character boundary.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}
