package jsonl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonscan"
	"github.com/ccdag/ccdag/internal/testcorpus"
)

// fuzzSeeds returns lines to start fuzzing from: the repository's fixtures, short lines of the real
// corpus when it is present, and hand-made hostile lines.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	var files []string
	for _, root := range []string{"../../testdata", testcorpus.Root()} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	perFile := map[string]int{}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 && len(line) <= 3000 && perFile[p] < 8 {
				seeds = append(seeds, line)
				perFile[p]++
			}
		}
	}
	for _, s := range []string{
		``, ` `, "\xEF\xBB\xBF{}", `{}`, `[]`, `"x"`, `1e5`, `null`, `{"a":1}{"b":2}`, `{"uuid":"a"`,
		`{"uuid":5,"parentUuid":[],"message":{"content":{}}}`,
		`{"uuid":"a","uuid":null,"parentUuid":"b","parentUuid":7,"isSidechain":true,"isSidechain":false}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Task","input":{}},1,null,{"type":"tool_result","tool_use_id":"t","is_error":true}]},"message":{"model":"x"}}`,
		`{"type":"user","toolUseResult":{"agentId":"ab","status":"completed","totalDurationMs":12,"durationMs":3},"toolUseResult":"plain"}`,
		`{"k":"\ud83d\ude00 \ud800 \u0000 \\ \/ \b\f\n\r\t","uuid":"\u00e9\ud83d\ude00"}`,
		"{\"uuid\":\"\xff\xfe\x00\x1b[2J\"}",
		`{"usage":{"input_tokens":99999999999999999999,"output_tokens":-0.5e3}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":-9223372036854775808,"output_tokens":1e19,"cache_read_input_tokens":9007199254740993,"cache_creation_input_tokens":9007199254740992,"cache_creation":{"ephemeral_1h_input_tokens":-0}}}}`,
		`{"type":"assistant","message":{"usage":{"output_tokens":-1,"output_tokens":5},"usage":{"input_tokens":2.5}}}`,
		`{"type":"user","toolUseResult":{"totalDurationMs":-5,"durationMs":1e400,"totalTokens":-9223372036854775808}}`,
		`{"a":[[[[[[[[[[{"b":[{}]}]]]]]]]]]]}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzParse holds the skimming parser to encoding/json: a valid object must parse without error and
// the fields it extracts must be the ones encoding/json reads (the last of duplicate keys winning,
// as in JSON.parse); valid JSON that is not an object is reported as such; anything the skimmer
// accepts is valid JSON up to raw control characters inside strings (which it tolerates on
// purpose); spans point at the values they name; nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkParse(t, line)
	})
}

func checkParse(t *testing.T, line []byte) {
	r := Parse(line)
	if !noDetail.empty() {
		t.Fatalf("Parse(%q) wrote the shared empty Detail: %+v", line, noDetail)
	}
	if r != nil && r.D() == nil {
		t.Fatalf("Parse(%q): a record without its Detail", line)
	}
	body := line
	if bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) {
		body = body[3:]
	}
	blank := len(bytes.Trim(body, " \t\r\n")) == 0
	if (r == nil) != blank {
		t.Fatalf("Parse(%q) = %v; blank line: %v", line, r, blank)
	}
	if fe := Fault(line); (fe == nil) != (r == nil || r.LineErr() == nil) || fe != nil && *fe != *r.LineErr() {
		t.Fatalf("Fault(%q) = %+v, Parse's error %+v", line, fe, r)
	}
	if r == nil {
		return
	}
	valid := json.Valid(body)
	if r.LineErr() != nil {
		if r.LineErr().Offset < 0 || int(r.LineErr().Offset) > len(line) || r.LineErr().Message == "" || !utf8.ValidString(r.LineErr().Message) {
			t.Fatalf("bad error for %q: %+v", line, r.LineErr())
		}
		if valid {
			isObj := bytes.TrimLeft(body, " \t\r\n")[0] == '{'
			if isObj || r.LineErr().Kind != ErrNotAnObject {
				t.Fatalf("valid JSON %q: error %v %q", line, r.LineErr().Kind, r.LineErr().Message)
			}
		} else if r.LineErr().Kind == ErrNotAnObject && !json.Valid(blankControls(body)) {
			t.Fatalf("invalid JSON %q reported as valid but not an object", line)
		}
		return
	}
	if !valid && !json.Valid(blankControls(body)) {
		t.Fatalf("Parse accepted invalid JSON %q", line)
	}
	if !valid {
		return // raw control characters in strings: tolerated, nothing to compare with
	}
	checkSpans(t, line, r)
	compareWithEncodingJSON(t, body, r)
}

// blankControls replaces control characters by spaces: outside strings they are whitespace then,
// inside strings they become legal.
func blankControls(b []byte) []byte {
	out := bytes.Clone(b)
	for i, c := range out {
		if c < 0x20 {
			out[i] = ' '
		}
	}
	return out
}

func checkSpans(t *testing.T, line []byte, r *Record) {
	str := func(name string, sp Span, v string) {
		if !sp.Valid() {
			if v != "" {
				t.Fatalf("%q: %s = %q has no span", line, name, v)
			}
			return
		}
		if sp.Start < 0 || int(sp.End) > len(line) || sp.End-sp.Start < 2 || line[sp.Start] != '"' || line[sp.End-1] != '"' {
			t.Fatalf("%q: %s span %v is not a string", line, name, sp)
		}
		if got := jsonscan.Unescape(line[sp.Start+1 : sp.End-1]); got != v {
			t.Fatalf("%q: %s span holds %q, field is %q", line, name, got, v)
		}
	}
	str("uuid", r.UUIDSpan, r.UUID)
	str("parentUuid", r.ParentSpan, r.Parent)
	str("logicalParentUuid", r.D().LogicalParentSpan, r.D().LogicalParent)
	str("leafUuid", r.D().LeafSpan, r.D().Leaf)
	str("sourceToolAssistantUUID", r.D().SourceSpan, r.D().SourceToolAssistant)
	str("agentId", r.D().AgentIDSpan, r.D().AgentID)
	for _, b := range r.D().Blocks {
		switch b.Kind {
		case BlockToolUse:
			str("tool_use id", b.IDSpan, b.ID)
		case BlockToolResult:
			str("tool_use_id", b.IDSpan, b.ToolUseID)
		}
		for _, sp := range []Span{b.Span, b.InputSpan, b.BodySpan} {
			if sp.Valid() && (sp.Start < 0 || int(sp.End) > len(line) || !json.Valid(line[sp.Start:sp.End])) {
				t.Fatalf("%q: block span %v is not a JSON value", line, sp)
			}
		}
	}
	for _, sp := range []Span{r.D().ContentSpan, r.D().ResultSpan} {
		if sp.Valid() && (sp.Start < 0 || int(sp.End) > len(line) || !json.Valid(line[sp.Start:sp.End])) {
			t.Fatalf("%q: span %v is not a JSON value", line, sp)
		}
	}
	for _, fe := range r.D().FieldErrs {
		if !fe.Span.Valid() || int(fe.Span.End) > len(line) || !json.Valid(line[fe.Span.Start:fe.Span.End]) {
			t.Fatalf("%q: field error %+v does not cover a JSON value", line, fe)
		}
	}
}

// checkCount holds a count field to docs/spec.md §15: a JSON number is its value when it is a whole
// number from 0 to 2^53 (written without fraction or exponent), else read as 0 with a field error
// named key; a value of another type reads as 0, silently.
func checkCount(t *testing.T, line []byte, r *Record, what, key string, raw json.RawMessage, got int64) {
	t.Helper()
	raw = bytes.TrimSpace(raw)
	isNum := len(raw) > 0 && (raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9')
	n, err := strconv.ParseInt(string(raw), 10, 64)
	plausible := isNum && err == nil && n >= 0 && n <= MaxCount && raw[0] != '-'
	want := int64(0)
	if plausible {
		want = n
	}
	if got != want {
		t.Fatalf("%q: %s = %d, want %d", line, what, got, want)
	}
	hasErr := slices.ContainsFunc(r.D().FieldErrs, func(fe FieldError) bool { return fe.Field == key })
	if hasErr != (isNum && !plausible) {
		t.Fatalf("%q: %s: field error %v, want %v (%+v)", line, what, hasErr, isNum && !plausible, r.D().FieldErrs)
	}
}

type obj map[string]json.RawMessage // encoding/json: the last of duplicate keys wins

func decodeObj(raw json.RawMessage) (obj, bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var o obj
	if json.Unmarshal(raw, &o) != nil {
		return nil, false
	}
	return o, true
}

// str returns the field as a string when it is one; null and absent fields give "", other types
// give "" and bad = true.
func (o obj) str(k string) (v string, bad bool) {
	raw, ok := o[k]
	if !ok {
		return "", false
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] == '"' {
		json.Unmarshal(raw, &v)
		return v, false
	}
	return "", string(raw) != "null"
}

func (o obj) isTrue(k string) bool { return string(bytes.TrimSpace(o[k])) == "true" }

// norm replaces each invalid UTF-8 byte by U+FFFD, as encoding/json does when it decodes.
func norm(s string) string { return string([]rune(s)) }

func compareWithEncodingJSON(t *testing.T, body []byte, r *Record) {
	top, ok := decodeObj(body)
	if !ok {
		t.Fatalf("encoding/json cannot decode %q as an object", body)
	}
	fail := func(what string, got, want any) {
		t.Helper()
		t.Fatalf("%q:\n%s = %#v, encoding/json reads %#v", body, what, got, want)
	}
	wantErrs := map[string]bool{}
	for _, c := range []struct {
		key string
		got string
	}{
		{"uuid", r.UUID}, {"parentUuid", r.Parent}, {"logicalParentUuid", r.D().LogicalParent}, {"leafUuid", r.D().Leaf},
		{"sourceToolAssistantUUID", r.D().SourceToolAssistant}, {"sessionId", r.SessionID}, {"agentId", r.D().AgentID},
	} {
		want, bad := top.str(c.key)
		if norm(c.got) != want {
			fail(c.key, c.got, want)
		}
		if bad {
			wantErrs[c.key] = true
		}
	}
	gotErrs := map[string]bool{}
	for _, fe := range r.D().FieldErrs {
		if fe.Want == "a string" { // the counts' errors: checkCount
			gotErrs[fe.Field] = true
		}
	}
	if len(gotErrs) != len(wantErrs) {
		fail("field errors", gotErrs, wantErrs)
	}
	for k := range wantErrs {
		if !gotErrs[k] {
			fail("field errors", gotErrs, wantErrs)
		}
	}
	if typ, _ := top.str("type"); norm(r.Type) != typ {
		fail("type", r.Type, typ)
	}
	if parentNull := string(bytes.TrimSpace(top["parentUuid"])) == "null"; r.Has(FlagParentNull) != parentNull {
		fail("parentUuid null flag", r.Has(FlagParentNull), parentNull)
	}
	for _, fl := range []struct {
		key  string
		flag Flags
	}{{"isSidechain", FlagSidechain}, {"isMeta", FlagMeta}, {"isCompactSummary", FlagCompactSummary}, {"isApiErrorMessage", FlagAPIError}} {
		if r.Has(fl.flag) != top.isTrue(fl.key) {
			fail(fl.key, r.Has(fl.flag), top.isTrue(fl.key))
		}
	}
	// toolUseResult: an object is read; anything else leaves Result nil.
	if res, isObj := decodeObj(top["toolUseResult"]); isObj {
		if r.D().Result == nil {
			fail("toolUseResult", nil, res)
		}
		if id, _ := res.str("agentId"); norm(r.D().Result.AgentID) != id {
			fail("toolUseResult.agentId", r.D().Result.AgentID, id)
		}
		if st, _ := res.str("status"); norm(r.D().Result.Status) != st {
			fail("toolUseResult.status", r.D().Result.Status, st)
		}
	} else if r.D().Result != nil {
		fail("toolUseResult", r.D().Result, string(top["toolUseResult"]))
	}
	msg, isObj := decodeObj(top["message"])
	if !isObj {
		if len(r.D().Blocks) != 0 || r.D().MessageID != "" || r.D().Model != "" || r.D().Role != "" || r.Has(FlagUsage) {
			fail("message (not an object)", r, string(top["message"]))
		}
		return
	}
	for _, c := range []struct{ key, got string }{{"id", r.D().MessageID}, {"model", r.D().Model}, {"role", r.D().Role}} {
		if want, _ := msg.str(c.key); norm(c.got) != want {
			fail("message."+c.key, c.got, want)
		}
	}
	if stopped := len(bytes.TrimSpace(msg["stop_reason"])) > 0 && bytes.TrimSpace(msg["stop_reason"])[0] == '"'; r.Has(FlagStopped) != stopped {
		fail("message.stop_reason", r.Has(FlagStopped), stopped)
	}
	if u, isObj := decodeObj(msg["usage"]); isObj != r.Has(FlagUsage) {
		fail("message.usage present", r.Has(FlagUsage), isObj)
	} else if isObj {
		for _, c := range []struct {
			key string
			got int64
		}{{"input_tokens", r.D().Usage.Input}, {"output_tokens", r.D().Usage.Output}, {"cache_read_input_tokens", r.D().Usage.CacheRead}, {"cache_creation_input_tokens", r.D().Usage.CacheCreation}} {
			checkCount(t, body, r, "usage."+c.key, c.key, u[c.key], c.got)
		}
		if cc, isObj := decodeObj(u["cache_creation"]); isObj {
			checkCount(t, body, r, "usage.cache_creation.ephemeral_1h_input_tokens", "ephemeral_1h_input_tokens", cc["ephemeral_1h_input_tokens"], r.D().Usage.CacheCreation1h)
		}
	}
	content := bytes.TrimSpace(msg["content"])
	isString := len(content) > 0 && content[0] == '"'
	if r.Has(FlagContentString) != isString {
		fail("content is a string", r.Has(FlagContentString), isString)
	}
	var elems []json.RawMessage
	if len(content) > 0 && content[0] == '[' {
		json.Unmarshal(content, &elems)
	}
	var want []Block
	for _, e := range elems {
		b, isObj := decodeObj(e)
		if !isObj {
			continue
		}
		typ, _ := b.str("type")
		var wb Block
		switch typ {
		case "tool_use", "server_tool_use":
			wb.Kind = BlockToolUse
			wb.ID, _ = b.str("id")
			wb.Name, _ = b.str("name")
		case "tool_result":
			wb.Kind = BlockToolResult
			wb.ToolUseID, _ = b.str("tool_use_id")
			wb.IsError = b.isTrue("is_error")
		case "text":
			wb.Kind = BlockText
		case "thinking", "redacted_thinking":
			wb.Kind = BlockThinking
		case "image":
			wb.Kind = BlockImage
		}
		want = append(want, wb)
	}
	if len(r.D().Blocks) != len(want) {
		fail("number of blocks", len(r.D().Blocks), len(want))
	}
	for i, w := range want {
		g := r.D().Blocks[i]
		if g.Kind != w.Kind {
			fail("block kind", g.Kind, w.Kind)
		}
		switch w.Kind {
		case BlockToolUse:
			if norm(g.ID) != w.ID || norm(g.Name) != w.Name {
				fail("tool_use block", g, w)
			}
		case BlockToolResult:
			if norm(g.ToolUseID) != w.ToolUseID || g.IsError != w.IsError {
				fail("tool_result block", g, w)
			}
		}
	}
}
