package jsonl

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// Parse skims one line (without its newline) into a Record. It never panics and never recurses:
// JSON nested 100 000 levels deep costs a small stack of bytes, not goroutine stack.
// Whitespace-only lines return nil: they are not records and not errors.
func Parse(line []byte) *Record {
	r := &Record{}
	if !ParseInto(r, line) {
		return nil
	}
	return r
}

// ParseInto is Parse writing into r; it returns false for a blank line. r's Detail is a new one
// when the line sets any of its fields, the shared empty one otherwise.
func ParseInto(r *Record, line []byte) bool { return ParseKeeping(r, line, nil) }

// Fault returns why a line is not a record (nil for a record or a blank line) without keeping
// anything of it: callers that only ask "is this line faulty" for millions of lines allocate nothing
// but the error.
func Fault(line []byte) *LineError {
	var w wide
	parse(&w, line)
	return w.Detail.Err
}

// ParseKeeping is ParseInto for a caller that keeps only some of the lines that are not records:
// keep (nil: all) is asked of such a line's kind before anything is allocated for it, and one it
// refuses is reported as blank, r untouched. Ten million lines of "1" then cost no allocation.
func ParseKeeping(r *Record, line []byte, keep func(ErrorKind) bool) bool {
	var w wide
	ok := parse(&w, line)
	if w.Detail.Err != nil && keep != nil && !keep(w.Detail.Err.Kind) {
		return false
	}
	*r = w.Record
	r.det = w.kept()
	return ok
}

func parse(r *wide, line []byte) bool {
	s := scanner{b: line}
	if len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
		s.i = 3 // a UTF-8 byte order mark at the start of a file
	}
	s.ws()
	if s.i >= len(line) {
		return false
	}
	if line[s.i] != '{' {
		start := s.i
		if s.skipValue() && s.end() {
			r.Err = &LineError{Kind: ErrNotAnObject, Offset: int32(start), Message: notAnObject(line[start])}
			return true
		}
		r.Err = s.lineError()
		return true
	}
	if !s.object(r, top) || !s.end() {
		err := s.lineError()
		*r = wide{Detail: Detail{Err: err}}
	}
	return true
}

// notAnObject words a line that is JSON of another kind, given its first byte. The messages are
// made once: a crafted log can hold millions of such lines.
func notAnObject(c byte) string {
	switch c {
	case '[':
		return notAnObjectMsg[0]
	case '"':
		return notAnObjectMsg[1]
	case 't', 'f':
		return notAnObjectMsg[2]
	case 'n':
		return notAnObjectMsg[3]
	}
	return notAnObjectMsg[4]
}

var notAnObjectMsg = func() (m [5]string) {
	for i, kind := range []string{"an array", "a string", "a boolean", "null", "a number"} {
		m[i] = "this line is valid JSON but " + kind + ", not an object: every line of a session log must be one JSON object"
	}
	return m
}()

type scanner struct {
	b      []byte
	i      int
	errOff int
	errMsg string
}

func (s *scanner) fail(off int, msg string) bool {
	if s.errMsg == "" {
		s.errOff, s.errMsg = off, msg
	}
	return false
}

func (s *scanner) failHere(what string) bool {
	if s.i >= len(s.b) {
		return s.fail(s.i, "the line ends where "+what+" was expected: the record is truncated")
	}
	return s.fail(s.i, fmt.Sprintf("expected %s, found %s", what, describeByte(s.b[s.i:])))
}

func describeByte(b []byte) string {
	r, _ := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError:
		return fmt.Sprintf("byte 0x%02x", b[0])
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("control character %U", r)
	}
	return strconv.QuoteRune(r)
}

func (s *scanner) lineError() *LineError {
	if s.errMsg == "" {
		s.errOff, s.errMsg = s.i, "invalid JSON"
	}
	return &LineError{Kind: ErrInvalidJSON, Offset: int32(s.errOff), Message: s.errMsg}
}

// end checks that only whitespace follows the value.
func (s *scanner) end() bool {
	s.ws()
	if s.i == len(s.b) {
		return true
	}
	if s.b[s.i] == '{' {
		return s.fail(s.i, fmt.Sprintf("a second record starts at byte %d of this line: two records were written onto one line (an interrupted write?)", s.i+1))
	}
	return s.fail(s.i, fmt.Sprintf("unexpected %s after the end of the record", describeByte(s.b[s.i:])))
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// str scans a string at s.i (which must be '"'), validating escapes (jsonscan.String). It returns
// the span of the value including quotes and whether it holds escapes.
func (s *scanner) str() (start, end int, escaped, ok bool) {
	start = s.i
	end, escaped, err := jsonscan.String(s.b, s.i)
	if err != nil {
		return start, 0, false, s.failSyntax(err)
	}
	s.i = end
	return start, end, escaped, true
}

// failSyntax words a jsonscan error for a line of a session log.
func (s *scanner) failSyntax(err *jsonscan.Fault) bool {
	switch err.Problem {
	case jsonscan.Unclosed:
		return s.fail(err.Off, "this string is never closed: the line ends inside it (a truncated record?)")
	case jsonscan.EndInEscape:
		return s.fail(err.Off, "the line ends inside an escape sequence")
	case jsonscan.BadUnicodeEscape:
		return s.fail(err.Off, `invalid \u escape in a string`)
	case jsonscan.BadEscape:
		return s.fail(err.Off, fmt.Sprintf("invalid escape \\%c in a string", s.b[err.Off+1]))
	}
	s.i = err.Off
	return s.failHere(err.Want)
}

// text returns the decoded value of the string at [start,end) (quotes included).
func (s *scanner) text(start, end int, escaped bool) string {
	raw := s.b[start+1 : end-1]
	if !escaped {
		return string(raw)
	}
	return jsonscan.Unescape(raw)
}

// MaxCount is the largest count (tokens, milliseconds) read from a log: 2^53, past which a
// JavaScript number (what Claude Code writes) is no longer exact (docs/spec.md §15).
const MaxCount = 1 << 53

// number scans a JSON number and returns its value when it is a plausible count: an integer (no
// fraction or exponent) from 0 to MaxCount. Any other number is valid JSON and reads as implausible
// (plausible false), never converted (a float beyond int64 converts to -2^63).
func (s *scanner) number() (v int64, plausible, ok bool) {
	start := s.i
	end, integer, err := jsonscan.Number(s.b, s.i)
	if err != nil {
		return 0, false, s.failSyntax(err)
	}
	s.i = end
	if !integer || s.b[start] == '-' || end-start > 16 {
		return 0, false, true
	}
	v, err2 := strconv.ParseInt(string(s.b[start:end]), 10, 64)
	if err2 != nil || v > MaxCount {
		return 0, false, true
	}
	return v, true, true
}

// minYear and maxYear bound the year of a timestamp read from a log (docs/spec.md §15). Outside
// them a time is no session's (Claude Code dates from 2025), and past time.Time's UnixNano range
// (1678 to 2262) span times and durations wrap: a root span ended before it started.
const (
	minYear = 2000
	maxYear = 2100
)

const timestampWant = "a time from the year 2000 to 2100"

// timestampYear returns the year a timestamp string starts with, as RFC 3339 writes it (four
// digits, then '-'); dated is false for a string not of that form, which no reader takes for a
// time anyway.
func timestampYear(raw []byte, escaped bool) (year int, dated bool) {
	if escaped {
		raw = []byte(jsonscan.Unescape(raw))
	}
	if len(raw) < 5 || raw[4] != '-' {
		return 0, false
	}
	for _, c := range raw[:4] {
		if c < '0' || c > '9' {
			return 0, false
		}
		year = year*10 + int(c-'0')
	}
	return year, true
}

func (s *scanner) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return s.failHere("a value")
}

// skipValue scans any JSON value at s.i without decoding it (jsonscan.Value: no recursion).
func (s *scanner) skipValue() bool {
	end, err := jsonscan.Value(s.b, s.i)
	if err != nil {
		return s.failSyntax(err)
	}
	s.i = end
	return true
}

func (s *scanner) key() (k []byte, escaped bool, ok bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, s.failHere("a key string")
	}
	start, end, esc, ok := s.str()
	if !ok {
		return nil, false, false
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, false, s.failHere("':'")
	}
	s.i++
	s.ws()
	raw := s.b[start+1 : end-1]
	if esc {
		raw = []byte(jsonscan.Unescape(raw))
	}
	return raw, esc, true
}

// level says which object fields is reading, so it knows which keys matter.
type level uint8

const (
	top level = iota
	message
	block
	usage
	result
	data          // a progress record's data: only agentId
	cacheCreation // usage.cache_creation: only the 1-hour part
)

// object scans an object at s.i ('{'), handing each key to the reader for its level.
func (s *scanner) object(r *wide, lv level) bool {
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var blk *Block
	var bt blockTemp
	if lv == block {
		blk = &r.Blocks[len(r.Blocks)-1]
	}
	for {
		k, _, ok := s.key()
		if !ok {
			return false
		}
		switch lv {
		case top:
			ok = s.topField(r, k)
		case message:
			ok = s.messageField(r, k)
		case block:
			ok = s.blockField(blk, &bt, k)
		case usage:
			ok = s.usageField(r, k)
		case result:
			ok = s.resultField(r, k)
		case cacheCreation:
			if string(k) == "ephemeral_1h_input_tokens" {
				ok = s.intField(r, "ephemeral_1h_input_tokens", &r.Usage.CacheCreation1h, 0)
			} else {
				ok = s.skipValue()
			}
		case data:
			if string(k) == "agentId" {
				ok = s.idString(&r.DataAgentID, &r.DataAgentIDSpan)
			} else {
				ok = s.skipValue()
			}
		}
		if !ok {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.failHere("',' or '}'")
		}
		if s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.b[s.i] == '}' {
			s.i++
			if lv == block {
				bt.finish(blk)
			}
			return true
		}
		return s.failHere("',' or '}'")
	}
}

// stringField reads a string value into dst and span; null leaves them empty; any other type is
// recorded as a field error. Of duplicate keys the last wins (as in JSON.parse): each occurrence
// first clears what an earlier one set.
func (s *scanner) stringField(r *wide, name string, dst *string, span *Span) (isNull, ok bool) {
	*dst = ""
	if span != nil {
		*span = Span{}
	}
	r.dropFieldErr(name)
	if s.i < len(s.b) && s.b[s.i] == '"' {
		start, end, esc, ok := s.str()
		if !ok {
			return false, false
		}
		*dst = s.text(start, end, esc)
		if span != nil {
			*span = Span{int32(start), int32(end)}
		}
		return false, true
	}
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return true, s.literal("null")
	}
	if !s.skipValue() {
		return false, false
	}
	r.FieldErrs = append(r.FieldErrs, FieldError{Field: name, Span: Span{int32(start), int32(s.i)}, Want: "a string"})
	return false, true
}

// plainString reads a string value that needs no span and tolerates other types silently.
func (s *scanner) plainString(dst *string) bool {
	*dst = ""
	if s.i < len(s.b) && s.b[s.i] == '"' {
		start, end, esc, ok := s.str()
		if !ok {
			return false
		}
		*dst = intern(s.b[start+1:end-1], esc, s, start, end)
		return true
	}
	return s.skipValue()
}

func (s *scanner) boolField(r *wide, f Flags) bool {
	r.Flags &^= f
	if s.i < len(s.b) && s.b[s.i] == 't' {
		if !s.literal("true") {
			return false
		}
		r.Flags |= f
		return true
	}
	return s.skipValue()
}

// intField reads a count (tokens, milliseconds) into dst. A number that is not a plausible count
// (negative, a fraction or exponent, beyond MaxCount) is a field error and leaves dst as if the
// field were absent (absent); other types are skipped silently, as before. Of duplicate keys the last
// wins, its error with it.
func (s *scanner) intField(r *wide, name string, dst *int64, absent int64) bool {
	r.dropFieldErr(name)
	if s.i < len(s.b) && (s.b[s.i] == '-' || '0' <= s.b[s.i] && s.b[s.i] <= '9') {
		start := s.i
		v, plausible, ok := s.number()
		if !ok {
			return false
		}
		if !plausible {
			*dst = absent
			r.FieldErrs = append(r.FieldErrs, FieldError{Field: name, Span: Span{int32(start), int32(s.i)}, Want: "a whole number from 0 to 2^53"})
			return true
		}
		*dst = v
		return true
	}
	return s.skipValue()
}

// usageFields are the counts of message.usage, whose errors a later "usage" key replaces.
var usageFields = [...]string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "ephemeral_1h_input_tokens"}

// dropFieldErr forgets the error of an earlier occurrence of the field name (duplicate keys).
func (r *wide) dropFieldErr(name string) {
	for i := len(r.FieldErrs) - 1; i >= 0; i-- {
		if r.FieldErrs[i].Field == name {
			r.FieldErrs = append(r.FieldErrs[:i], r.FieldErrs[i+1:]...)
		}
	}
}

// spanValue skips a value and records its span.
func (s *scanner) spanValue(span *Span) bool {
	start := s.i
	if !s.skipValue() {
		return false
	}
	*span = Span{int32(start), int32(s.i)}
	return true
}

func (s *scanner) topField(r *wide, k []byte) bool {
	var ok bool
	switch string(k) {
	case "type":
		return s.plainString(&r.Type)
	case "subtype":
		return s.plainString(&r.Subtype)
	case "uuid":
		_, ok = s.stringField(r, "uuid", &r.UUID, &r.UUIDSpan)
	case "parentUuid":
		var null bool
		null, ok = s.stringField(r, "parentUuid", &r.Parent, &r.ParentSpan)
		r.Flags &^= FlagParentNull
		if null {
			r.Flags |= FlagParentNull
		}
	case "logicalParentUuid":
		_, ok = s.stringField(r, "logicalParentUuid", &r.LogicalParent, &r.LogicalParentSpan)
	case "leafUuid":
		_, ok = s.stringField(r, "leafUuid", &r.Leaf, &r.LeafSpan)
	case "sourceToolAssistantUUID":
		_, ok = s.stringField(r, "sourceToolAssistantUUID", &r.SourceToolAssistant, &r.SourceSpan)
	case "sessionId":
		_, ok = s.stringField(r, "sessionId", &r.SessionID, nil)
	case "agentId":
		_, ok = s.stringField(r, "agentId", &r.AgentID, &r.AgentIDSpan)
	case "requestId":
		return s.plainString(&r.RequestID)
	case "timestamp":
		r.TimestampSpan = Span{}
		r.dropFieldErr("timestamp")
		if s.i < len(s.b) && s.b[s.i] == '"' {
			start, end, esc, ok := s.str()
			if !ok {
				return false
			}
			if y, dated := timestampYear(s.b[start+1:end-1], esc); dated && (y < minYear || y > maxYear) {
				r.FieldErrs = append(r.FieldErrs, FieldError{Field: "timestamp", Span: Span{int32(start), int32(end)}, Want: timestampWant})
				return true
			}
			r.TimestampSpan = Span{int32(start), int32(end)}
			return true
		}
		return s.skipValue()
	case "toolUseID":
		r.ToolUseIDSpan = Span{}
		if s.i < len(s.b) && s.b[s.i] == '"' {
			start, end, _, ok := s.str()
			r.ToolUseIDSpan = Span{int32(start), int32(end)}
			return ok
		}
		return s.skipValue()
	case "parentToolUseID":
		return s.idString(&r.ParentToolUseID, &r.ParentToolUseIDSpan)
	case "data":
		r.DataAgentID, r.DataAgentIDSpan = "", Span{}
		if s.i < len(s.b) && s.b[s.i] == '{' {
			return s.object(r, data)
		}
		return s.skipValue()
	case "isSidechain":
		return s.boolField(r, FlagSidechain)
	case "isMeta":
		return s.boolField(r, FlagMeta)
	case "isCompactSummary":
		return s.boolField(r, FlagCompactSummary)
	case "isApiErrorMessage":
		return s.boolField(r, FlagAPIError)
	case "isVisibleInTranscriptOnly":
		return s.boolField(r, FlagVisibleInTranscriptOnly)
	case "message":
		// A repeated "message" key replaces the earlier one.
		r.MessageID, r.Model, r.Role, r.Blocks, r.Usage = "", "", "", r.Blocks[:0], Usage{}
		r.Flags &^= FlagContentString | FlagStopped | FlagUsage
		if s.i < len(s.b) && s.b[s.i] == '{' {
			return s.object(r, message)
		}
		return s.skipValue()
	case "content": // system records carry their text at the top level
		start := s.i
		isStr := s.i < len(s.b) && s.b[s.i] == '"'
		if !s.skipValue() {
			return false
		}
		if !r.ContentSpan.Valid() {
			r.ContentSpan = Span{int32(start), int32(s.i)}
			if isStr {
				r.Flags |= FlagContentString
			}
		}
		return true
	case "toolUseResult":
		start := s.i
		r.Result = nil
		if s.i < len(s.b) && s.b[s.i] == '{' {
			r.Result = &ResultInfo{DurationMs: -1}
			if !s.object(r, result) {
				return false
			}
		} else if !s.skipValue() {
			return false
		}
		r.ResultSpan = Span{int32(start), int32(s.i)}
		return true
	default:
		return s.skipValue()
	}
	return ok
}

func (s *scanner) messageField(r *wide, k []byte) bool {
	switch string(k) {
	case "id":
		return s.plainString(&r.MessageID)
	case "model":
		return s.plainString(&r.Model)
	case "role":
		return s.plainString(&r.Role)
	case "stop_reason":
		r.Flags &^= FlagStopped
		if s.i < len(s.b) && s.b[s.i] == '"' {
			r.Flags |= FlagStopped
		}
		return s.skipValue()
	case "usage":
		r.Usage = Usage{}
		r.Flags &^= FlagUsage
		for _, f := range usageFields {
			r.dropFieldErr(f)
		}
		if s.i < len(s.b) && s.b[s.i] == '{' {
			r.Flags |= FlagUsage
			return s.object(r, usage)
		}
		return s.skipValue()
	case "content":
		start := s.i
		if s.i >= len(s.b) {
			return s.failHere("a value")
		}
		r.Flags &^= FlagContentString
		r.Blocks = r.Blocks[:0]
		switch s.b[s.i] {
		case '"':
			if _, _, _, ok := s.str(); !ok {
				return false
			}
			r.Flags |= FlagContentString
		case '[':
			if !s.blocks(r) {
				return false
			}
		default:
			if !s.skipValue() {
				return false
			}
		}
		r.ContentSpan = Span{int32(start), int32(s.i)}
		return true
	}
	return s.skipValue()
}

// blocks scans message.content's array, reading each object element as a Block.
func (s *scanner) blocks(r *wide) bool {
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == '{' {
			start := s.i
			r.Blocks = append(r.Blocks, Block{})
			if !s.object(r, block) {
				return false
			}
			r.Blocks[len(r.Blocks)-1].Span = Span{int32(start), int32(s.i)}
		} else if !s.skipValue() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.failHere("',' or ']'")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return s.failHere("',' or ']'")
		}
	}
}

// blockTemp collects a block's fields before its type (which may come last) is known.
type blockTemp struct {
	typ                                    string
	text, thinking, content, id, toolUseID Span
}

func (bt *blockTemp) finish(b *Block) {
	switch bt.typ {
	case "text":
		b.Kind, b.BodySpan = BlockText, bt.text
	case "thinking":
		b.Kind, b.BodySpan = BlockThinking, bt.thinking
	case "redacted_thinking":
		b.Kind = BlockThinking
	case "tool_use", "server_tool_use":
		b.Kind, b.IDSpan = BlockToolUse, bt.id
		b.ToolUseID = ""
	case "tool_result":
		b.Kind, b.IDSpan, b.BodySpan = BlockToolResult, bt.toolUseID, bt.content
		b.ID, b.Name = "", ""
	case "image":
		b.Kind = BlockImage
	default:
		b.Kind = BlockOther
		b.ID, b.ToolUseID = "", ""
	}
}

func (s *scanner) blockField(b *Block, bt *blockTemp, k []byte) bool {
	switch string(k) {
	case "type":
		return s.plainString(&bt.typ)
	case "id", "tool_use_id":
		if k[0] == 'i' {
			b.ID, bt.id = "", Span{}
		} else {
			b.ToolUseID, bt.toolUseID = "", Span{}
		}
		if s.i < len(s.b) && s.b[s.i] == '"' {
			start, end, esc, ok := s.str()
			if !ok {
				return false
			}
			if k[0] == 'i' {
				b.ID, bt.id = s.text(start, end, esc), Span{int32(start), int32(end)}
			} else {
				b.ToolUseID, bt.toolUseID = s.text(start, end, esc), Span{int32(start), int32(end)}
			}
			return true
		}
		return s.skipValue()
	case "name":
		return s.plainString(&b.Name)
	case "is_error":
		b.IsError = false
		if s.i < len(s.b) && s.b[s.i] == 't' {
			b.IsError = true
			return s.literal("true")
		}
		return s.skipValue()
	case "input":
		return s.spanValue(&b.InputSpan)
	case "text":
		return s.spanValue(&bt.text)
	case "thinking":
		return s.spanValue(&bt.thinking)
	case "content":
		return s.spanValue(&bt.content)
	}
	return s.skipValue()
}

func (s *scanner) usageField(r *wide, k []byte) bool {
	switch string(k) {
	case "input_tokens":
		return s.intField(r, "input_tokens", &r.Usage.Input, 0)
	case "output_tokens":
		return s.intField(r, "output_tokens", &r.Usage.Output, 0)
	case "cache_read_input_tokens":
		return s.intField(r, "cache_read_input_tokens", &r.Usage.CacheRead, 0)
	case "cache_creation_input_tokens":
		return s.intField(r, "cache_creation_input_tokens", &r.Usage.CacheCreation, 0)
	case "cache_creation":
		r.Usage.CacheCreation1h = 0
		if s.i < len(s.b) && s.b[s.i] == '{' {
			return s.object(r, cacheCreation)
		}
		return s.skipValue()
	}
	return s.skipValue()
}

// idString reads an optional string id and its span (quotes included); another type is skipped
// and leaves them empty.
func (s *scanner) idString(dst *string, span *Span) bool {
	*dst, *span = "", Span{}
	if s.i < len(s.b) && s.b[s.i] == '"' {
		start, end, esc, ok := s.str()
		if !ok {
			return false
		}
		*dst, *span = s.text(start, end, esc), Span{int32(start), int32(end)}
		return true
	}
	return s.skipValue()
}

func (s *scanner) resultField(r *wide, k []byte) bool {
	switch string(k) {
	case "agentId":
		r.Result.AgentID, r.Result.AgentIDSpan = "", Span{}
		if s.i < len(s.b) && s.b[s.i] == '"' {
			start, end, esc, ok := s.str()
			if !ok {
				return false
			}
			r.Result.AgentID = s.text(start, end, esc)
			r.Result.AgentIDSpan = Span{int32(start), int32(end)}
			return true
		}
		return s.skipValue()
	case "status":
		return s.plainString(&r.Result.Status)
	case "totalDurationMs":
		return s.intField(r, "totalDurationMs", &r.Result.DurationMs, -1)
	case "durationMs":
		if r.Result.DurationMs >= 0 {
			return s.skipValue()
		}
		return s.intField(r, "durationMs", &r.Result.DurationMs, -1)
	case "totalTokens":
		return s.intField(r, "totalTokens", &r.Result.TotalTokens, 0)
	}
	return s.skipValue()
}

// intern returns common short strings without allocating.
func intern(raw []byte, escaped bool, s *scanner, start, end int) string {
	if escaped {
		return s.text(start, end, true)
	}
	switch string(raw) {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "system":
		return "system"
	case "progress":
		return "progress"
	case "attachment":
		return "attachment"
	case "summary":
		return "summary"
	case "file-history-snapshot":
		return "file-history-snapshot"
	case "text":
		return "text"
	case "thinking":
		return "thinking"
	case "tool_use":
		return "tool_use"
	case "tool_result":
		return "tool_result"
	case "image":
		return "image"
	case "Read":
		return "Read"
	case "Bash":
		return "Bash"
	case "Edit":
		return "Edit"
	case "Write":
		return "Write"
	case "Grep":
		return "Grep"
	case "Glob":
		return "Glob"
	case "Task":
		return "Task"
	case "Agent":
		return "Agent"
	case "TodoWrite":
		return "TodoWrite"
	case "completed":
		return "completed"
	}
	return string(raw)
}
