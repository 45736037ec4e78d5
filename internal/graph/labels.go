package graph

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/pathlabel"
	"github.com/ccdag/ccdag/internal/session"
)

// LabelMax is the longest label, in characters (an ellipsis marks a cut).
const LabelMax = 80

// strippedTag reports whether a tag is removed from labels (the wrapper tags and the ones that
// mark typed input).
func strippedTag(name string) bool {
	return classify.WrapperTag(name) || name == "bash-input" || name == "user-memory-input"
}

// decodePrefix decodes at most max bytes of text from a JSON string value (quotes included). It
// tolerates a value that is not a string (returns ""), and never reads past what it needs: a
// 2 MB prompt costs the first few hundred bytes.
func decodePrefix(raw []byte, max int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	var out []byte
	for i := 1; i < len(raw) && len(out) < max; {
		c := raw[i]
		switch {
		case c == '"':
			return string(out)
		case c != '\\':
			j := i + 1
			for j < len(raw) && raw[j] != '"' && raw[j] != '\\' && len(out)+(j-i) < max {
				j++
			}
			out = append(out, raw[i:j]...)
			i = j
		default:
			r, next, ok := jsonscan.Escape(raw, i)
			if !ok {
				return string(out)
			}
			out = utf8.AppendRune(out, r)
			i = next
		}
	}
	return string(out)
}

// preview builds a label rune by rune: whitespace runs become one space (none at either end),
// control, bidirectional-override, invalid and terminal-escape characters are dropped, and past
// LabelMax characters the text is cut and ends in "…".
type preview struct {
	buf   []byte
	n     int // characters written
	cut   int // len(buf) when n was LabelMax-1
	space bool
	esc   uint8 // in a terminal escape sequence: 1 after ESC, 2 inside "ESC ["
	full  bool
}

func (p *preview) add(r rune) bool {
	if p.full {
		return false
	}
	switch {
	case r == '\x1b':
		p.esc = 1
		return true
	case p.esc == 1 && r == '[':
		p.esc = 2
		return true
	case p.esc == 2 && r >= ' ' && r <= '?':
		return true
	case p.esc == 2 && r >= '@' && r <= '~':
		p.esc = 0
		return true
	}
	p.esc = 0
	switch {
	case r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\u2028' || r == '\u2029' || r > 0x7f && unicode.IsSpace(r):
		p.space = p.n > 0
		return true
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f,
		r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069',
		r == '\u200E', r == '\u200F', r == utf8.RuneError, r == '\uFEFF':
		return true
	}
	if p.space {
		p.space = false
		if !p.put(' ') {
			return false
		}
	}
	return p.put(r)
}

func (p *preview) put(r rune) bool {
	if p.n == LabelMax-1 {
		p.cut = len(p.buf)
	}
	if p.n == LabelMax {
		p.buf = append(bytes.TrimRight(p.buf[:p.cut], " "), "…"...)
		p.full = true
		return false
	}
	p.buf = utf8.AppendRune(p.buf, r)
	p.n++
	return true
}

func (p *preview) addString(s string) bool {
	for _, r := range s {
		if !p.add(r) {
			return false
		}
	}
	return true
}

// addJSON adds the text of a JSON string value (quotes included; anything else adds nothing),
// decoding only as much of it as the label takes.
func (p *preview) addJSON(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return !p.full
	}
	for i := 1; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			return !p.full
		case c < utf8.RuneSelf && c != '\\':
			i++
			if !p.add(rune(c)) {
				return false
			}
		case c != '\\':
			r, size := utf8.DecodeRune(raw[i:])
			i += size
			if !p.add(r) {
				return false
			}
		default:
			r, next, ok := jsonscan.Escape(raw, i)
			if !ok {
				return !p.full
			}
			i = next
			if !p.add(r) {
				return false
			}
		}
	}
	return !p.full
}

func (p *preview) String() string { return string(p.buf) }

func newPreview() preview { return preview{buf: make([]byte, 0, 64)} }

// oneLine returns s as a single line of at most LabelMax characters (see preview).
func oneLine(s string) string {
	p := newPreview()
	p.addString(s)
	return p.String()
}

// jsonLine is oneLine of a JSON string value's text.
func jsonLine(raw []byte) string {
	p := newPreview()
	p.addJSON(raw)
	return p.String()
}

// stripTags removes the wrapper tags (not their content) from text, so a label shows what they hold.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+1:]
		closing := strings.HasPrefix(rest, "/")
		if closing {
			rest = rest[1:]
		}
		name := classify.TagName(rest)
		if end := len(name); name != "" && strippedTag(name) && end < len(rest) && rest[end] == '>' {
			s = rest[end+1:]
			b.WriteByte(' ')
			continue
		}
		b.WriteByte('<')
		s = s[i+1:]
	}
}

// textLabel labels a piece of user or system text: a slash command as "/name args", wrapped
// output by what it holds, anything else by its start.
func textLabel(raw []byte) string {
	text := decodePrefix(raw, 4096)
	if l := classify.CommandLine(text); l != "" {
		return oneLine(l)
	}
	if l := oneLine(stripTags(text)); l != "" {
		return l
	}
	if strings.HasPrefix(strings.TrimSpace(text), "<") {
		return oneLine("(" + classify.TagName(strings.TrimSpace(text)[1:]) + ")")
	}
	return ""
}

// userLabel labels a USER_INPUT or user-side SYSTEM record: a command or shell input as typed,
// else by its first text the person typed, else its first text, else "[image]".
func userLabel(r *session.Rec) string {
	if who := classify.User(r); who == classify.Command || who == classify.Shell {
		if l := oneLine(classify.Prompt(r, 4096)); l != "" {
			return l
		}
	}
	if r.Has(jsonl.FlagContentString) && r.D().ContentSpan.Valid() {
		return textLabel(r.Bytes(r.D().ContentSpan))
	}
	var first string
	image := false
	for k := range r.D().Blocks {
		blk := &r.D().Blocks[k]
		switch blk.Kind {
		case jsonl.BlockText:
			if !blk.BodySpan.Valid() {
				continue
			}
			raw := r.Bytes(blk.BodySpan)
			if classify.Text(raw) == classify.Person {
				if l := textLabel(raw); l != "" {
					return l
				}
			}
			if first == "" {
				first = textLabel(raw)
			}
		case jsonl.BlockImage:
			image = true
		}
	}
	if first != "" {
		return first
	}
	if image {
		return "[image]"
	}
	return ""
}

func systemLabel(r *session.Rec) string {
	switch r.Type {
	case "system":
		if r.D().ContentSpan.Valid() && r.Has(jsonl.FlagContentString) {
			if l := textLabel(r.Bytes(r.D().ContentSpan)); l != "" {
				return l
			}
		}
		if r.D().Subtype != "" {
			return oneLine(r.D().Subtype)
		}
		return "system"
	case "assistant":
		for k := range r.D().Blocks {
			if blk := &r.D().Blocks[k]; blk.Kind == jsonl.BlockText && blk.BodySpan.Valid() {
				if l := jsonLine(r.Bytes(blk.BodySpan)); l != "" {
					return l
				}
			}
		}
		return "API error"
	}
	if l := userLabel(r); l != "" {
		return l
	}
	return "(empty)"
}

// thoughtLabel labels a message by its first text block, else its first thinking block.
func thoughtLabel(recs []*session.Rec) string {
	var thinking string
	sawThinking := false
	for _, r := range recs {
		if r.Has(jsonl.FlagContentString) && r.D().ContentSpan.Valid() {
			if l := jsonLine(r.Bytes(r.D().ContentSpan)); l != "" {
				return l
			}
		}
		for k := range r.D().Blocks {
			blk := &r.D().Blocks[k]
			switch blk.Kind {
			case jsonl.BlockText:
				if blk.BodySpan.Valid() {
					if l := jsonLine(r.Bytes(blk.BodySpan)); l != "" {
						return l
					}
				}
			case jsonl.BlockThinking:
				sawThinking = true
				if thinking == "" && blk.BodySpan.Valid() {
					thinking = jsonLine(r.Bytes(blk.BodySpan))
				}
			}
		}
	}
	switch {
	case thinking != "":
		return oneLine("(thinking) " + thinking)
	case sawThinking:
		return "(thinking)"
	}
	return "(no text)"
}

// toolInput holds the input fields labels and lanes use; every other field is skipped unread.
type toolInput struct {
	FilePath     json.RawMessage `json:"file_path"`
	NotebookPath json.RawMessage `json:"notebook_path"`
	Path         json.RawMessage `json:"path"`
	Command      json.RawMessage `json:"command"`
	Pattern      json.RawMessage `json:"pattern"`
	Description  json.RawMessage `json:"description"`
	SubagentType json.RawMessage `json:"subagent_type"`
	Prompt       json.RawMessage `json:"prompt"`
	URL          json.RawMessage `json:"url"`
	Query        json.RawMessage `json:"query"`
	Skill        json.RawMessage `json:"skill"`
	Subject      json.RawMessage `json:"subject"`
	Todos        []struct{}      `json:"todos"`
}

func decodeInput(r *session.Rec, blk *jsonl.Block) *toolInput {
	var in toolInput
	if blk.InputSpan.Valid() {
		raw := r.Bytes(blk.InputSpan)
		if len(raw) > 0 && raw[0] == '{' {
			if json.Unmarshal(raw, &in) != nil {
				in = toolInput{}
			}
		}
	}
	return &in
}

// str returns a raw JSON string's text (at most max bytes), "" for other values.
func str(raw json.RawMessage, max int) string {
	return decodePrefix(raw, max)
}

// actionLabel is the tool's name and its key input: the file, command, pattern, URL, ...
func actionLabel(r *session.Rec, blk *jsonl.Block) string {
	return actionLabelWith(r, blk, LabelMax, nil)
}

// actionLabelWith is actionLabel fitted to width characters (a path cut in its middle, so the file
// name stays), with each input value passed through redact (nil: none) before the label cuts it.
func actionLabelWith(r *session.Rec, blk *jsonl.Block, width int, redact func(raw []byte, text string) string) string {
	str := str
	if redact != nil {
		str = func(raw json.RawMessage, max int) string { return redact(raw, decodePrefix(raw, max)) }
	}
	name := blk.Name
	if name == "" {
		name = "tool"
	}
	in := decodeInput(r, blk)
	key := ""
	switch name {
	case "Task", "Agent":
		d := str(in.Description, 512)
		if d == "" {
			d = str(in.Prompt, 512)
		}
		if t := str(in.SubagentType, 128); t != "" {
			return oneLine(name + " (" + t + "): " + d)
		}
		key = d
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead":
		key = str(in.FilePath, 1024)
		if key == "" {
			key = str(in.NotebookPath, 1024)
		}
		// The path as the session sees it, cut in its middle so the file name stays.
		key = pathlabel.Short(key, RecordCwd(r), "", width-utf8.RuneCountInString(name)-2)
	case "Bash", "BashOutput":
		key = str(in.Command, 1024)
	case "Grep", "Glob":
		key = str(in.Pattern, 512)
		if p := str(in.Path, 512); p != "" && key != "" {
			key += " in " + pathlabel.Short(p, RecordCwd(r), "", max(24, width-utf8.RuneCountInString(name+key)-6))
		}
	case "WebFetch":
		key = str(in.URL, 1024)
	case "WebSearch":
		key = str(in.Query, 512)
	case "TodoWrite":
		if in.Todos != nil {
			key = strconv.Itoa(len(in.Todos)) + " todos"
		}
	case "Skill":
		key = str(in.Skill, 256)
	}
	if key == "" {
		for _, f := range []json.RawMessage{in.Description, in.FilePath, in.Path, in.Command, in.Pattern, in.URL, in.Query, in.Skill, in.Subject, in.Prompt} {
			if key = str(f, 512); key != "" {
				break
			}
		}
	}
	if strings.TrimSpace(key) == "" {
		return oneLine(name)
	}
	return oneLine(name + ": " + key)
}

// RecordCwd is a record's working directory (its top-level "cwd"), "" when it names none: what
// a path in its tool calls is relative to. The scan stops at the field (it comes early in Claude
// Code's records) and decodes only it.
func RecordCwd(r *session.Rec) string {
	line := r.LineBytes()
	cwd := ""
	_, _ = jsonscan.ObjectFields(line, 0, func(key []byte, vs int) (int, error) {
		if string(key) != "cwd" {
			return -1, nil
		}
		end, err := jsonscan.ValueEnd(line, vs)
		if err == nil {
			cwd = decodePrefix(line[vs:end], 4096)
		}
		return 0, errFound
	})
	return cwd
}

var errFound = errors.New("found")

// resultLabel previews a tool_result's content: its text, "[image]", or "(no output)".
func resultLabel(r *session.Rec, blk *jsonl.Block) string {
	if !blk.BodySpan.Valid() {
		return "(no output)"
	}
	raw := r.Bytes(blk.BodySpan)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		if l := jsonLine(raw); l != "" {
			return l
		}
	case len(raw) > 0 && raw[0] == '[':
		var parts []struct {
			Type string          `json:"type"`
			Text json.RawMessage `json:"text"`
		}
		if json.Unmarshal(raw, &parts) == nil {
			image := false
			for _, p := range parts {
				switch p.Type {
				case "text":
					if l := jsonLine(p.Text); l != "" {
						return l
					}
				case "image":
					image = true
				}
			}
			if image {
				return "[image]"
			}
		}
	}
	return "(no output)"
}
