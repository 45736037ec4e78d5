// Package otelmap turns a session into trace spans as docs/spec.md §12 says, following the
// OpenTelemetry GenAI semantic conventions for agent spans (SemConv, named by SchemaURL): one trace
// per session, a root `invoke_agent claude-code`, `chat {model}` per assistant message,
// `execute_tool {tool}` per call, each sub-agent's `invoke_agent {type}` under the call that spawned
// it, compactions, API errors and interruptions as events. It knows no wire protocol: the CLI hands
// the spans to the OpenTelemetry SDK's exporter.
//
// Ids derive from the session id and record uuids (SHA-256), so the same log always maps to the
// same ids and an export that runs twice sends spans a backend (and --state) recognises.
package otelmap

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"time"

	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/session"
)

// SemConv is the version of the semantic conventions the spans follow (the newest with the GenAI
// attributes in the OpenTelemetry Go SDK v1.47.0; the CLI's test holds the keys to its semconv
// package); SchemaURL names it in the output.
const (
	SemConv   = "1.41.0"
	SchemaURL = "https://opentelemetry.io/schemas/" + SemConv
)

// Attribute keys (semconv 1.41.0 GenAI, plus ccdag's own).
const (
	KeyOperation      = "gen_ai.operation.name"
	KeyProvider       = "gen_ai.provider.name"
	KeyConversation   = "gen_ai.conversation.id"
	KeyAgentName      = "gen_ai.agent.name"
	KeyAgentID        = "gen_ai.agent.id"
	KeyAgentDesc      = "gen_ai.agent.description"
	KeyRequestModel   = "gen_ai.request.model"
	KeyResponseModel  = "gen_ai.response.model"
	KeyResponseID     = "gen_ai.response.id"
	KeyInputTokens    = "gen_ai.usage.input_tokens"
	KeyOutputTokens   = "gen_ai.usage.output_tokens"
	KeyCacheRead      = "gen_ai.usage.cache_read.input_tokens"
	KeyCacheCreation  = "gen_ai.usage.cache_creation.input_tokens"
	KeyToolName       = "gen_ai.tool.name"
	KeyToolCallID     = "gen_ai.tool.call.id"
	KeyToolType       = "gen_ai.tool.type"
	KeyErrorType      = "error.type"
	KeyPath           = "ccdag.path"
	KeyLine           = "ccdag.line"
	KeyInFlight       = "ccdag.in_flight"
	KeyStreaming      = "ccdag.streaming"
	KeySpawnUnlinked  = "ccdag.spawn.unlinked"
	EventCompaction   = "ccdag.compaction"
	EventAPIError     = "ccdag.api_error"
	EventInterruption = "ccdag.interruption"
)

// RootAgent is the root span's agent name.
const RootAgent = "claude-code"

// TraceID and SpanID are OpenTelemetry's ids.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// String is the id in lower-case hex, as OTLP JSON and Jaeger write it.
func (t TraceID) String() string { return hexOf(t[:]) }
func (s SpanID) String() string  { return hexOf(s[:]) }

// IsZero reports a missing parent (the root).
func (s SpanID) IsZero() bool { return s == SpanID{} }

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

// Kind is a span's kind: a chat is a call to the model's API (client), the rest runs in Claude Code.
type Kind uint8

const (
	Internal Kind = iota
	Client
)

// Attr is one attribute: a string (Int false) or an integer.
type Attr struct {
	Key   string
	Str   string
	Num   int64
	IsInt bool
}

func str(k, v string) Attr { return Attr{Key: k, Str: v} }
func num(k string, v int64) Attr {
	return Attr{Key: k, Num: v, IsInt: true}
}

// Event is a span event.
type Event struct {
	Name  string
	Time  time.Time
	Attrs []Attr
}

// Span is one span, ready for an exporter.
type Span struct {
	Trace      TraceID
	ID, Parent SpanID // Parent zero: the root
	Name       string
	Kind       Kind
	Start, End time.Time
	Attrs      []Attr
	Events     []Event
	Error      bool
	Message    string // the error status's description
	// Pending: the span is not final where the log ends (a call still in flight, the agent running
	// it, the message it belongs to). An incremental export holds it back until it is.
	Pending bool
}

// Options tune the mapping.
type Options struct {
	// Redact is applied to every string attribute, event attribute, status message and span name
	// (nil: none).
	Redact func(string) string
	// Live reports whether the log at path may still be written (Claude Code appends to it): an
	// assistant message at its end whose last line has no stop_reason may then still be streaming,
	// its output count a placeholder, and is pending. nil: no log is live.
	Live func(path string) bool
}

// maxText bounds the text of an error carried in a status message or an event.
const maxText = 1024

// TraceOf is the trace id of a session.
func TraceOf(sessionID string) TraceID {
	h := sha256.Sum256([]byte("ccdag/trace\x00" + sessionID))
	var t TraceID
	copy(t[:], h[:16])
	return t
}

// SpanOf is the span id named by key within a session (never zero).
func SpanOf(sessionID, key string) SpanID {
	h := sha256.Sum256([]byte("ccdag/span\x00" + sessionID + "\x00" + key))
	var s SpanID
	copy(s[:], h[:8])
	if s.IsZero() {
		s[7] = 1
	}
	return s
}

// mapper holds one session's mapping.
type mapper struct {
	s      *session.Session
	opt    Options
	trace  TraceID
	out    []Span
	ts     map[*session.Rec]time.Time // parsed timestamps, for records asked more than once
	sideOf map[*session.Rec]int       // an in-file sidechain record -> its agent
	seen   map[string]string          // a short string -> its redaction
}

// agent is a main log, a sub-agent log, or a sidechain kept inside the main log.
type agent struct {
	file  *session.File
	side  int          // >0: the in-file sidechain of that number; 0: the whole file (minus its sidechains)
	root  *session.Rec // a sidechain's first record
	id    SpanID
	recs  []*session.Rec
	first *session.Rec
}

// Session maps s. Records without a timestamp take their file's previous one; a session without
// any timestamp has no spans (nil).
func Session(s *session.Session, opt Options) []Span {
	m := &mapper{s: s, opt: opt, trace: TraceOf(s.ID), ts: map[*session.Rec]time.Time{}}
	var agents []*agent
	var start, end time.Time
	for _, f := range s.Files {
		as := m.split(f)
		for _, a := range as {
			for _, r := range a.recs {
				if t, ok := m.time(r); ok {
					if start.IsZero() || t.Before(start) {
						start = t
					}
					if t.After(end) {
						end = t
					}
				}
			}
		}
		agents = append(agents, as...)
	}
	if start.IsZero() {
		return nil
	}
	rootID := SpanOf(s.ID, "root")
	root := Span{Trace: m.trace, ID: rootID, Name: "invoke_agent " + RootAgent, Start: start, End: end,
		Attrs: []Attr{str(KeyOperation, "invoke_agent"), str(KeyProvider, "anthropic"), str(KeyAgentName, RootAgent),
			str(KeyConversation, s.ID)}}
	if main := s.Main(); main != nil {
		root.Attrs = append(root.Attrs, m.where(firstRec(main))...)
		root.Pending = m.inFlight(main)
	} else if len(agents) > 0 {
		root.Attrs = append(root.Attrs, m.where(agents[0].first)...)
	}
	m.out = append(m.out, root)
	for _, a := range agents {
		if a.file.Lane == "main" && a.side == 0 {
			m.agentBody(a, rootID, 0)
			continue
		}
		m.subAgent(a, rootID)
	}
	for i := range m.out {
		m.redact(&m.out[i])
	}
	return m.out
}

// split returns a file's agents: the file itself and, in a main log of 1.0.x, each sidechain
// kept in it (its records, by parent links, in file order).
func (m *mapper) split(f *session.File) []*agent {
	whole := &agent{file: f}
	as := []*agent{whole}
	f.Recs(func(r *session.Rec) bool {
		if r.LineErr() != nil {
			return true
		}
		a := whole
		if f.Lane == "main" && r.Has(jsonl.FlagSidechain) {
			if m.sideOf == nil {
				m.sideOf = map[*session.Rec]int{}
			}
			i, ok := 0, false
			if !m.s.SidechainRoot(r) {
				if p := m.s.Parent(r); p != nil {
					i, ok = m.sideOf[p]
				}
			}
			if !ok {
				if m.s.SidechainRoot(r) || len(as) == 1 {
					as = append(as, &agent{file: f, side: len(as), root: r})
					i = len(as) - 1
				} else {
					i = len(as) - 1 // a parent not seen yet: the latest sidechain
				}
			}
			m.sideOf[r] = i
			a = as[i]
		}
		if a.first == nil {
			a.first = r
		}
		a.recs = append(a.recs, r)
		return true
	})
	if whole.first == nil {
		as = as[1:]
	}
	return as
}

func firstRec(f *session.File) *session.Rec {
	var first *session.Rec
	f.Recs(func(r *session.Rec) bool {
		if r.LineErr() == nil {
			first = r
			return false
		}
		return true
	})
	return first
}

// time is a record's timestamp.
func (m *mapper) time(r *session.Rec) (time.Time, bool) {
	if t, ok := m.ts[r]; ok {
		return t, !t.IsZero()
	}
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp(r.LineBytes()))
	if err != nil {
		t = time.Time{}
	}
	m.ts[r] = t
	return t, err == nil
}

// where is ccdag.path and ccdag.line (1-based) of a record.
func (m *mapper) where(r *session.Rec) []Attr {
	if r == nil {
		return nil
	}
	return []Attr{str(KeyPath, r.File.Path), num(KeyLine, int64(r.Line)+1)}
}

// key names a record for span ids: its file's lane and uuid (the line too when the uuid is defined
// before in the session: a copied record; the first keeps the plain key as a log grows), else lane
// and line.
func (m *mapper) key(r *session.Rec) string {
	if r.UUID == "" {
		return r.File.Lane + ":" + strconv.Itoa(r.Line)
	}
	k := r.File.Lane + "/" + r.UUID
	if defs := m.s.Defs(r.UUID); len(defs) > 1 && defs[0] != r {
		k += ":" + strconv.Itoa(r.Line)
	}
	return k
}

// inFlight reports whether a file's last turn has a call without a result.
func (m *mapper) inFlight(f *session.File) bool {
	tail := f.TurnTail()
	busy := false
	for i := tail + 1; i < f.LineCount() && !busy; i++ {
		r := f.Rec(i)
		if r == nil || r.LineErr() != nil || r.Type != "assistant" {
			continue
		}
		for k := range r.D().Blocks {
			b := &r.D().Blocks[k]
			if b.Kind == jsonl.BlockToolUse && len(m.s.Results(b.ID)) == 0 {
				busy = true
			}
		}
	}
	return busy
}

// subAgent maps a sub-agent (a log, or a sidechain in the main log) under the call that spawned it.
func (m *mapper) subAgent(a *agent, rootID SpanID) {
	var sp session.Spawn
	if a.side > 0 {
		sp = m.s.SidechainSpawn(a.root)
		a.id = SpanOf(m.s.ID, "agent:"+m.key(a.root))
	} else {
		sp = m.s.AgentSpawn(a.file)
		a.id = SpanOf(m.s.ID, "agent:"+a.file.Lane)
	}
	typ, desc := "", ""
	parent := rootID
	if sp.Call.Rec != nil {
		typ, desc = agentInput(sp.Call)
		parent = SpanOf(m.s.ID, m.toolKey(sp.Call))
	}
	if typ == "" {
		typ = "general-purpose"
	}
	start, end := m.extent(a.recs)
	sub := Span{Trace: m.trace, ID: a.id, Parent: parent, Name: "invoke_agent " + typ, Start: start, End: end,
		Attrs: []Attr{str(KeyOperation, "invoke_agent"), str(KeyProvider, "anthropic"), str(KeyAgentName, typ),
			str(KeyConversation, m.s.ID)}}
	if a.file.AgentID != "" {
		sub.Attrs = append(sub.Attrs, str(KeyAgentID, a.file.AgentID))
	}
	if desc != "" {
		sub.Attrs = append(sub.Attrs, str(KeyAgentDesc, desc))
	}
	if sp.Call.Rec == nil {
		sub.Attrs = append(sub.Attrs, str(KeySpawnUnlinked, "no spawning call found"))
	} else {
		// The agent runs while its call is in flight: its extent is final once the call has a result.
		sub.Pending = len(m.s.Results(sp.Call.ContentBlock().ID)) == 0 && m.callInFlight(sp.Call)
	}
	sub.Attrs = append(sub.Attrs, m.where(a.first)...)
	m.out = append(m.out, sub)
	m.agentBody(a, a.id, len(m.out)-1)
}

// extent is the first and last timestamp of records.
func (m *mapper) extent(recs []*session.Rec) (start, end time.Time) {
	for _, r := range recs {
		if t, ok := m.time(r); ok {
			if start.IsZero() || t.Before(start) {
				start = t
			}
			if t.After(end) {
				end = t
			}
		}
	}
	return start, end
}

// agentInput reads a Task/Agent call's subagent_type and description.
func agentInput(t session.ToolRef) (typ, desc string) {
	b := t.ContentBlock()
	if !b.InputSpan.Valid() {
		return "", ""
	}
	raw := t.Rec.Bytes(b.InputSpan)
	if len(raw) == 0 || raw[0] != '{' {
		return "", ""
	}
	_, _ = jsonscan.ObjectFields(raw, 0, func(k []byte, v int) (int, error) {
		end, err := jsonscan.ValueEnd(raw, v)
		if err != nil {
			return end, err
		}
		if raw[v] == '"' {
			switch string(k) {
			case "subagent_type":
				typ = jsonscan.Unescape(raw[v+1 : end-1])
			case "description":
				desc = jsonscan.Unescape(raw[v+1 : end-1])
			}
		}
		return end, nil
	})
	return typ, desc
}

func (m *mapper) toolKey(t session.ToolRef) string {
	return "tool:" + m.key(t.Rec) + ":" + strconv.Itoa(t.Block)
}

// message is the lines of one assistant message.
type message struct {
	first, last *session.Rec
	usage       *session.Rec // the last line with usage
	model       *session.Rec // the last line naming a model
	calls       []session.ToolRef
}

// agentBody maps an agent's records: its chats and tools under the agent's span (parent, at
// m.out[at]), its events on that span.
func (m *mapper) agentBody(a *agent, parent SpanID, at int) {
	var msgs []*message
	var events []Event
	byKey := map[string]*message{}
	var prev time.Time
	for _, r := range a.recs {
		t, ok := m.time(r)
		if !ok {
			t = prev // no timestamp: the previous record's
			m.ts[r] = prev
		}
		prev = t
		events = m.events(r, t, events)
		if r.Type != "assistant" || r.Has(jsonl.FlagAPIError) {
			continue
		}
		k := msgKeyOf(r)
		msg := byKey[k]
		if msg == nil || k == "" {
			msg = &message{first: r}
			msgs = append(msgs, msg)
			if k != "" {
				byKey[k] = msg
			}
		}
		msg.last = r
		if r.Has(jsonl.FlagUsage) {
			msg.usage = r
		}
		if r.D().Model != "" {
			msg.model = r
		}
		for k := range r.D().Blocks {
			if r.D().Blocks[k].Kind == jsonl.BlockToolUse {
				msg.calls = append(msg.calls, session.ToolRef{Rec: r, Block: k})
			}
		}
	}
	m.out[at].Events = append(m.out[at].Events, events...)
	tail := a.file.TurnTail()
	streaming := len(msgs) > 0 && m.streaming(a, msgs[len(msgs)-1], at)
	for i, msg := range msgs {
		pending := false
		for _, c := range msg.calls {
			sp := m.tool(c, parent, tail)
			pending = pending || sp.Pending
			m.out = append(m.out, sp)
		}
		chat := m.chat(msg, parent, pending)
		if streaming && i == len(msgs)-1 {
			chat.Pending = true
			chat.Attrs = append(chat.Attrs, num(KeyStreaming, 1))
		}
		m.out = append(m.out, chat)
	}
	if streaming {
		m.out[at].Pending = true // the agent's extent grows with its message
	}
}

// streaming reports whether an agent's last message may still be streaming (docs/spec.md §15):
// its last line has no stop_reason and nothing of the agent follows it, and the agent is running —
// a sub-agent while its spawning call is in flight, the main agent while its log is live
// (Options.Live). Claude Code writes a message's lines as its blocks end, most of them (and in
// 2.x often the last too) without stop_reason, so a finished message at the end of a log that is
// no longer written is final as logged.
func (m *mapper) streaming(a *agent, msg *message, at int) bool {
	if msg.last.Has(jsonl.FlagStopped) || a.recs[len(a.recs)-1] != msg.last {
		return false
	}
	if at != 0 { // a sub-agent's span
		return m.out[at].Pending
	}
	return m.opt.Live != nil && m.opt.Live(a.file.Path)
}

func msgKeyOf(r *session.Rec) string {
	if r.D().MessageID != "" {
		return "m" + r.D().MessageID
	}
	if r.D().RequestID != "" {
		return "r" + r.D().RequestID
	}
	return ""
}

// chat maps one assistant message: from the record it answers (its parent) to its last line.
func (m *mapper) chat(msg *message, parent SpanID, pending bool) Span {
	end, _ := m.time(msg.last)
	start, _ := m.time(msg.first)
	if p := m.s.Parent(msg.first); p != nil && p.File == msg.first.File && p.LineErr() == nil {
		if t, ok := m.time(p); ok && !t.After(start) {
			start = t
		}
	}
	if end.Before(start) {
		end = start
	}
	model := ""
	if msg.model != nil {
		model = msg.model.D().Model
	}
	name := "chat"
	if model != "" {
		name += " " + model
	}
	sp := Span{Trace: m.trace, ID: SpanOf(m.s.ID, "chat:"+m.key(msg.first)), Parent: parent, Name: name, Kind: Client,
		Start: start, End: end, Pending: pending,
		Attrs: []Attr{str(KeyOperation, "chat"), str(KeyProvider, "anthropic"), str(KeyConversation, m.s.ID)}}
	if model != "" {
		sp.Attrs = append(sp.Attrs, str(KeyRequestModel, model), str(KeyResponseModel, model))
	}
	if id := msg.first.D().MessageID; id != "" {
		sp.Attrs = append(sp.Attrs, str(KeyResponseID, id))
	}
	if u := msg.usage; u != nil {
		us := u.D().Usage
		sp.Attrs = append(sp.Attrs, num(KeyInputTokens, us.Input+us.CacheRead+us.CacheCreation), num(KeyOutputTokens, us.Output),
			num(KeyCacheRead, us.CacheRead), num(KeyCacheCreation, us.CacheCreation))
	}
	sp.Attrs = append(sp.Attrs, m.where(msg.first)...)
	return sp
}

// callInFlight reports whether a call without a result is still in flight where its log ends.
func (m *mapper) callInFlight(c session.ToolRef) bool { return c.Rec.Line > c.Rec.File.TurnTail() }

// tool maps one call: from its record to its result's (the first result in its file, else any).
func (m *mapper) tool(c session.ToolRef, parent SpanID, tail int) Span {
	b := c.ContentBlock()
	start, _ := m.time(c.Rec)
	sp := Span{Trace: m.trace, ID: SpanOf(m.s.ID, m.toolKey(c)), Parent: parent, Name: "execute_tool " + b.Name,
		Start: start, End: start,
		Attrs: []Attr{str(KeyOperation, "execute_tool"), str(KeyToolName, b.Name), str(KeyToolCallID, b.ID),
			str(KeyToolType, "function"), str(KeyConversation, m.s.ID)}}
	var res session.ToolRef
	for _, r := range m.s.Results(b.ID) {
		if res.Rec == nil || r.Rec.File == c.Rec.File && res.Rec.File != c.Rec.File {
			res = r
		}
	}
	switch {
	case res.Rec != nil:
		if t, ok := m.time(res.Rec); ok && !t.Before(start) {
			sp.End = t
		}
		if rb := res.ContentBlock(); rb.IsError {
			sp.Error = true
			sp.Message = resultText(res.Rec, rb, m.cut)
			sp.Attrs = append(sp.Attrs, str(KeyErrorType, "tool_error"))
		}
	case c.Rec.Line > tail:
		sp.Pending = true
		sp.Attrs = append(sp.Attrs, num(KeyInFlight, 1))
	default:
		// The conversation went on without a result: the call ends where its file went on.
		sp.Error, sp.Message = true, "no result in the log"
		sp.Attrs = append(sp.Attrs, str(KeyErrorType, "no_result"))
		if t, ok := m.nextTime(c.Rec); ok {
			sp.End = t
		}
	}
	sp.Attrs = append(sp.Attrs, m.where(c.Rec)...)
	return sp
}

// nextTime is the timestamp of the first record after r in its file that is not part of r's message.
func (m *mapper) nextTime(r *session.Rec) (time.Time, bool) {
	k := msgKeyOf(r)
	for i := r.Line + 1; i < r.File.LineCount(); i++ {
		n := r.File.Rec(i)
		if n == nil || n.LineErr() != nil || n.Type == "assistant" && k != "" && msgKeyOf(n) == k {
			continue
		}
		if t, ok := m.time(n); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// resultText is an error result's text, cut to maxText bytes by cut.
func resultText(r *session.Rec, b *jsonl.Block, cut func(string) string) string {
	if !b.BodySpan.Valid() {
		return "tool error"
	}
	raw := r.Bytes(b.BodySpan)
	if len(raw) > 0 && raw[0] == '"' {
		return cut(jsonscan.Unescape(raw[1 : len(raw)-1]))
	}
	// An array of blocks: the text blocks' texts, each on lines of its own. The redactor reads
	// `gitleaks:allow` per line, as the check does per string: glued, one block's allow would
	// silence the next block's secret (docs/spec.md §15).
	var sb strings.Builder
	_, _ = jsonscan.ArrayElems(raw, 0, func(e int) (int, error) {
		end, err := jsonscan.ValueEnd(raw, e)
		if err != nil || raw[e] != '{' {
			return end, err
		}
		_, _ = jsonscan.ObjectFields(raw, e, func(k []byte, v int) (int, error) {
			ve, err := jsonscan.ValueEnd(raw, v)
			if err == nil && string(k) == "text" && raw[v] == '"' && sb.Len() < maxText {
				if sb.Len() > 0 {
					sb.WriteByte('\n')
				}
				sb.WriteString(jsonscan.Unescape(raw[v+1 : ve-1]))
			}
			return ve, err
		})
		return end, nil
	})
	if sb.Len() == 0 {
		return "tool error"
	}
	return cut(sb.String())
}

// redactAround is how much text past the cut is redacted with it: past the scan's widest window
// (a key block's), so a secret the cut halves is found whole.
const redactAround = 20 << 10

// cut is the text as a span carries it: redacted (when the export redacts), then cut — a secret
// cut in half no longer matches its rule (docs/spec.md §15).
func (m *mapper) cut(s string) string {
	if m.opt.Redact != nil && len(s) > maxText {
		end := min(len(s), maxText+redactAround)
		for end < len(s) && s[end]&0xC0 == 0x80 {
			end++
		}
		s = m.opt.Redact(s[:end])
	}
	return cut(s)
}

func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	i := maxText
	for i > 0 && s[i]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		i--
	}
	return s[:i] + "…"
}

// events appends a record's compaction, API error or interruption to evs.
func (m *mapper) events(r *session.Rec, t time.Time, evs []Event) []Event {
	var ev Event
	switch {
	case r.Type == "system" && r.D().Subtype == "compact_boundary":
		ev = Event{Name: EventCompaction}
	case r.Has(jsonl.FlagAPIError) || r.Type == "system" && r.D().Subtype == "api_error":
		ev = Event{Name: EventAPIError}
		if txt := recordText(r, m.cut); txt != "" {
			ev.Attrs = append(ev.Attrs, str("error.message", txt))
		}
	case r.Type == "user" && interrupted(r):
		ev = Event{Name: EventInterruption}
	default:
		return evs
	}
	ev.Time = t
	ev.Attrs = append(ev.Attrs, m.where(r)...)
	return append(evs, ev)
}

// recordText is a record's first text (message content or a system record's content), cut by cut.
func recordText(r *session.Rec, cut func(string) string) string {
	d := r.D()
	if r.Has(jsonl.FlagContentString) && d.ContentSpan.Valid() {
		raw := r.Bytes(d.ContentSpan)
		return cut(jsonscan.Unescape(raw[1 : len(raw)-1]))
	}
	for k := range d.Blocks {
		if b := &d.Blocks[k]; b.Kind == jsonl.BlockText && b.BodySpan.Valid() {
			raw := r.Bytes(b.BodySpan)
			if len(raw) >= 2 && raw[0] == '"' {
				return cut(jsonscan.Unescape(raw[1 : len(raw)-1]))
			}
		}
	}
	return ""
}

// interrupted reports a "[Request interrupted by user…]" note.
func interrupted(r *session.Rec) bool {
	d := r.D()
	is := func(raw []byte) bool {
		return len(raw) > 2 && raw[0] == '"' && strings.HasPrefix(string(raw[1:min(len(raw), 64)]), "[Request interrupted by user")
	}
	if r.Has(jsonl.FlagContentString) && d.ContentSpan.Valid() {
		return is(r.Bytes(d.ContentSpan))
	}
	for k := range d.Blocks {
		if b := &d.Blocks[k]; b.Kind == jsonl.BlockText && b.BodySpan.Valid() && is(r.Bytes(b.BodySpan)) {
			return true
		}
	}
	return false
}

// redact runs Options.Redact over every string a span carries: attributes, events, status, name.
// Short strings repeat across a session's spans (its path, ids, model and tool names): each is
// redacted once.
func (m *mapper) redact(sp *Span) {
	if m.opt.Redact == nil {
		return
	}
	for i := range sp.Attrs {
		if !sp.Attrs[i].IsInt {
			sp.Attrs[i].Str = m.redacted(sp.Attrs[i].Str)
		}
	}
	for e := range sp.Events {
		for i := range sp.Events[e].Attrs {
			if a := &sp.Events[e].Attrs[i]; !a.IsInt {
				a.Str = m.redacted(a.Str)
			}
		}
	}
	sp.Message = m.redacted(sp.Message)
	sp.Name = m.redacted(sp.Name) // a tool's or agent's name is text from the log too
}

func (m *mapper) redacted(s string) string {
	if s == "" {
		return s
	}
	if len(s) > 256 {
		return m.opt.Redact(s)
	}
	if r, ok := m.seen[s]; ok {
		return r
	}
	if m.seen == nil {
		m.seen = map[string]string{}
	}
	r := m.opt.Redact(s)
	m.seen[s] = r
	return r
}
