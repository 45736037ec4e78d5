package jsonl

import (
	"os"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// Span is a half-open byte range [Start, End) within one line. A zero Span means "absent".
// For string values it covers the quotes, so a diagnostic underlines exactly the JSON value.
type Span struct{ Start, End int32 }

// Valid reports whether the span marks a present value.
func (s Span) Valid() bool { return s.End > s.Start }

// ErrorKind tells why a line is not a usable record.
type ErrorKind uint8

const (
	ErrNone        ErrorKind = iota
	ErrInvalidJSON           // the line is not valid JSON
	ErrNotAnObject           // valid JSON, but not an object
)

// LineError describes why a line could not be read as a record.
type LineError struct {
	Kind    ErrorKind
	Offset  int32  // byte offset in the line where the problem was found
	Message string // what is wrong, in words a person can act on
}

// Flags are the boolean fields of a record.
type Flags uint16

const (
	FlagSidechain      Flags = 1 << iota // isSidechain: true
	FlagMeta                             // isMeta: true
	FlagCompactSummary                   // isCompactSummary: true
	FlagAPIError                         // isApiErrorMessage: true
	FlagContentString                    // message.content (or content) is a plain string
	FlagParentNull                       // "parentUuid": null is present
	FlagVisibleInTranscriptOnly
	// message.stop_reason is a string: the line was written once the message ended, so its usage
	// is the final count. Without it the output count is a snapshot taken while the reply streamed
	// (often the placeholder 1 of the API's message_start), a lower bound.
	FlagStopped
	// message.usage is an object: the line carries a token count (a flag, not a Detail field: one
	// bool there took the Detail of every message to the next allocation size, 384 B for 352).
	FlagUsage
)

// BlockKind is the type of one content block.
type BlockKind uint8

const (
	BlockOther BlockKind = iota
	BlockText
	BlockThinking
	BlockToolUse
	BlockToolResult
	BlockImage
)

// Block is one element of message.content.
type Block struct {
	Kind      BlockKind
	IsError   bool   // tool_result is_error: true
	ID        string // tool_use id
	Name      string // tool_use name
	ToolUseID string // tool_result tool_use_id
	Span      Span   // the whole block object
	IDSpan    Span   // tool_use "id" value, or tool_result "tool_use_id" value
	InputSpan Span   // tool_use "input" value
	BodySpan  Span   // text / thinking string, or tool_result "content" value
}

// Usage is the token usage of one line of an assistant message.
type Usage struct {
	Input, Output, CacheRead, CacheCreation int64
	// CacheCreation1h is the part of CacheCreation written to the 1-hour cache
	// (usage.cache_creation.ephemeral_1h_input_tokens), priced higher than the 5-minute one.
	CacheCreation1h int64
}

// Total is every token the line accounts for.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheRead + u.CacheCreation }

// ResultInfo holds what ccdag reads from an object-valued toolUseResult.
type ResultInfo struct {
	AgentID     string
	AgentIDSpan Span
	Status      string
	DurationMs  int64 // totalDurationMs or durationMs, -1 when absent
	TotalTokens int64
}

// FieldError marks a field that is present with the wrong JSON type ("uuid": 5).
type FieldError struct {
	Field string
	Span  Span
	Want  string
}

// Record is one line of a session log, skimmed. Strings are copies (the line's bytes may change
// under an editor); spans are relative to the line's first byte.
//
// The fields every linked record may carry are the Record's own; the rest are in its Detail, which
// a record without any of them shares with every other such record. A log of a million tiny chain
// records then costs ~140 B of index a record instead of ~480 B (docs/SECURITY.md, memory). Reads go
// through D (r.D().Model); only this package writes a record. A holder of the line may also drop a
// Detail and parse it again when asked (Lazy; session.Rec does so for short lines).
type Record struct {
	Type string // "user", "assistant", "system", "progress", ... ("" when absent)

	UUID, Parent         string
	UUIDSpan, ParentSpan Span
	SessionID            string
	// TimestampSpan locates the timestamp string; Timestamp(line) decodes it. Kept as a span: every
	// record has one and few readers need it.
	TimestampSpan Span
	Flags         Flags

	det *Detail // never nil in a parsed record (Zero for one made by hand); shared: never written outside this package
}

// D returns the record's Detail. A record whose Detail was dropped (DropDetail) reads as one with
// none: its holder must parse the line again (DetailOf), as session.Rec.D does.
func (r *Record) D() *Detail {
	if r.det == &droppedDetail {
		if strictDrop {
			panic("jsonl: a dropped Detail read through Record.D; read it through the holder of the line")
		}
		return &noDetail
	}
	return r.det
}

// LineErr returns why the line is not a record, or nil for a record. It does not parse a dropped
// Detail again: only a record's Detail is ever dropped.
func (r *Record) LineErr() *LineError { return r.det.Err }

// droppedDetail marks a Detail its holder dropped, to be parsed again from the line when read.
var droppedDetail Detail

// strictDrop makes a read of a dropped Detail through Record.D panic instead of reading as empty;
// tests that drop every Detail set it (CCDAG_DROP_DETAIL, session) to find a read that misses one.
var strictDrop = os.Getenv("CCDAG_DROP_DETAIL") != ""

// DropDetail forgets the record's Detail (if it has one): the caller keeps the line and parses it
// again when the Detail is read. A short line's Detail costs many times the line (docs/SECURITY.md,
// memory).
func (r *Record) DropDetail() {
	if r.det != &noDetail {
		r.det = &droppedDetail
	}
}

// KeepDetail gives a record whose Detail was dropped the Detail parsed again from its line
// (DetailOf), for a holder about to lose the line. A record that did not drop it keeps its own.
func (r *Record) KeepDetail(d *Detail) {
	if r.det == &droppedDetail {
		r.det = d
	}
}

// Dropped reports whether the record's Detail was dropped.
func (r *Record) Dropped() bool { return r.det == &droppedDetail }

// DetailOf parses line again for its Detail, for a record whose Detail was dropped.
func DetailOf(line []byte) *Detail {
	var w wide
	parse(&w, line)
	return w.kept()
}

// kept is the parsed Detail as a record keeps it: its own copy, or the shared empty one.
func (w *wide) kept() *Detail {
	if w.Detail.empty() {
		return &noDetail
	}
	d := new(Detail)
	*d = w.Detail
	return d
}

// Detail holds the fields of a record that tiny chain records do not carry.
type Detail struct {
	// Err is here, not in the Record: a line that is not a record has no other field, and the
	// Record of a tiny linked one then fits a 128 B allocation with its session.Rec.
	Err *LineError // non-nil: not a record; every other field is zero

	Subtype string

	LogicalParent, Leaf, SourceToolAssistant string
	LogicalParentSpan, LeafSpan, SourceSpan  Span

	AgentID     string
	AgentIDSpan Span
	RequestID   string
	MessageID   string // message.id
	Model       string // message.model
	Role        string // message.role

	// A progress record's ids: parentToolUseID (the call it belongs to), data.agentId (the
	// sub-agent a Task/Agent call runs: the link to its log even when the call's result names none)
	// and toolUseID (what it reports on: a call, or an agent's message; only its span is kept, as
	// few readers need it: the index of every record pays for each field).
	ParentToolUseID, DataAgentID                        string
	ToolUseIDSpan, ParentToolUseIDSpan, DataAgentIDSpan Span

	ContentSpan Span // message.content, or a system record's top-level content
	Blocks      []Block
	Usage       Usage       // read only when the record has FlagUsage
	ResultSpan  Span        // toolUseResult
	Result      *ResultInfo // nil unless toolUseResult is an object with fields ccdag reads

	FieldErrs []FieldError
}

// noDetail is the Detail of every record that has none. It must stay zero: FuzzParse checks it.
var noDetail Detail

// Zero returns a record with no fields set, whose Detail reads as zero.
func Zero() Record { return Record{det: &noDetail} }

// HasDetail reports whether the record has any field of Detail set.
func (r *Record) HasDetail() bool { return r.det != &noDetail }

// empty reports whether no field of d is set (TestDetailEmptyCoversEveryField holds it to every field).
func (d *Detail) empty() bool {
	var zs Span
	return d.Err == nil && d.Subtype == "" && d.LogicalParent == "" && d.Leaf == "" && d.SourceToolAssistant == "" &&
		d.LogicalParentSpan == zs && d.LeafSpan == zs && d.SourceSpan == zs &&
		d.AgentID == "" && d.AgentIDSpan == zs && d.RequestID == "" && d.MessageID == "" &&
		d.Model == "" && d.Role == "" && d.ParentToolUseID == "" && d.DataAgentID == "" &&
		d.ToolUseIDSpan == zs && d.ParentToolUseIDSpan == zs && d.DataAgentIDSpan == zs &&
		d.ContentSpan == zs && len(d.Blocks) == 0 && d.Usage == (Usage{}) &&
		d.ResultSpan == zs && d.Result == nil && len(d.FieldErrs) == 0
}

// wide is what the parser fills: a Record's own fields and a Detail of its own (d.Model is the
// Detail's, one level up from the Record's embedded pointer). ParseInto then keeps the Detail only
// when something in it is set.
type wide struct {
	Record
	Detail
}

// Timestamp returns the record's timestamp, given its line.
func (r *Record) Timestamp(line []byte) string {
	if !r.TimestampSpan.Valid() || int(r.TimestampSpan.End) > len(line) {
		return ""
	}
	return jsonscan.Unescape(line[r.TimestampSpan.Start+1 : r.TimestampSpan.End-1])
}

// Has reports whether all of f are set.
func (r *Record) Has(f Flags) bool { return r.Flags&f == f }

// IsConversation reports whether the record is a user or assistant turn.
func (r *Record) IsConversation() bool { return r.Type == "user" || r.Type == "assistant" }

// NeedsUUID reports whether the record's type must carry a uuid.
func (r *Record) NeedsUUID() bool {
	return r.Type == "user" || r.Type == "assistant" || r.Type == "system"
}
