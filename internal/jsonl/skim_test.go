package jsonl

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ccdag/ccdag/internal/testcorpus"
)

type refBlock struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
}

type refRecord struct {
	Type              string `json:"type"`
	UUID              string `json:"uuid"`
	ParentUUID        *string
	LogicalParentUUID string `json:"logicalParentUuid"`
	SessionID         string `json:"sessionId"`
	AgentID           string `json:"agentId"`
	IsSidechain       bool   `json:"isSidechain"`
	Message           *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Output int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// TestCorpusAgreesWithEncodingJSON reads every real line with the skimmer and with encoding/json
// and compares the fields the engine relies on.
func TestCorpusAgreesWithEncodingJSON(t *testing.T) {
	for _, f := range testcorpus.Files(t, "that the skimming parser reads every real line's ids, links, blocks and usage as encoding/json does") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		starts := LineStarts(data)
		for i := range starts {
			s, e, _ := LineBounds(data, starts, i)
			line := data[s:e]
			r := Parse(line)
			if r == nil {
				continue
			}
			if r.LineErr() != nil {
				t.Errorf("%s:%d: unexpected error %q at %d", f, i+1, r.LineErr().Message, r.LineErr().Offset)
				continue
			}
			var ref refRecord
			if err := json.Unmarshal(line, &ref); err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			if r.Type != ref.Type || r.UUID != ref.UUID || r.D().LogicalParent != ref.LogicalParentUUID ||
				r.SessionID != ref.SessionID || r.D().AgentID != ref.AgentID || r.Has(FlagSidechain) != ref.IsSidechain {
				t.Errorf("%s:%d: fields differ: %+v vs %+v", f, i+1, r, ref)
			}
			if r.UUID != "" && string(line[r.UUIDSpan.Start:r.UUIDSpan.End]) != `"`+r.UUID+`"` {
				t.Errorf("%s:%d: uuid span %v wrong", f, i+1, r.UUIDSpan)
			}
			if ref.Message != nil {
				if r.D().MessageID != ref.Message.ID {
					t.Errorf("%s:%d: message id %q vs %q", f, i+1, r.D().MessageID, ref.Message.ID)
				}
				if ref.Message.Usage != nil && r.D().Usage.Output != ref.Message.Usage.Output {
					t.Errorf("%s:%d: usage differs", f, i+1)
				}
				var blocks []refBlock
				if json.Unmarshal(ref.Message.Content, &blocks) == nil {
					if len(blocks) != len(r.D().Blocks) {
						t.Fatalf("%s:%d: %d blocks vs %d", f, i+1, len(r.D().Blocks), len(blocks))
					}
					for j, b := range blocks {
						got := r.D().Blocks[j]
						switch b.Type {
						case "tool_use":
							if got.Kind != BlockToolUse || got.ID != b.ID || got.Name != b.Name ||
								string(line[got.IDSpan.Start:got.IDSpan.End]) != `"`+b.ID+`"` {
								t.Errorf("%s:%d: tool_use block %d: %+v vs %+v", f, i+1, j, got, b)
							}
						case "tool_result":
							if got.Kind != BlockToolResult || got.ToolUseID != b.ToolUseID || got.IsError != b.IsError {
								t.Errorf("%s:%d: tool_result block %d: %+v vs %+v", f, i+1, j, got, b)
							}
						}
					}
				}
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		line string
		kind ErrorKind
		msg  string
	}{
		{`{"uuid":"a"`, ErrInvalidJSON, "truncated"},
		{`{"uuid":"a`, ErrInvalidJSON, "never closed"},
		{`[1,2]`, ErrNotAnObject, "an array"},
		{`"x"`, ErrNotAnObject, "string"},
		{`42`, ErrNotAnObject, "number"},
		{`{"a":1}{"b":2}`, ErrInvalidJSON, "two records"},
		{`{"a":1} x`, ErrInvalidJSON, "after the end"},
		{`{"a":tru}`, ErrInvalidJSON, "expected a value"},
		{`{"a":"\x"}`, ErrInvalidJSON, "invalid escape"},
		{`{"a":"\u12"}`, ErrInvalidJSON, `\u`},
		{`{"a":01}`, ErrInvalidJSON, "expected"},
		{`{"a":1.}`, ErrInvalidJSON, "digit"},
		{`{"a" 1}`, ErrInvalidJSON, "':'"},
		{`{a:1}`, ErrInvalidJSON, "key"},
		{`{"a":[1,}`, ErrInvalidJSON, "value"},
		{`{"a":{"b":1]}`, ErrInvalidJSON, "'}'"},
		{"\x00\x01\x02", ErrInvalidJSON, "control character"},
		{`{"a":1,}`, ErrInvalidJSON, "key"},
	}
	for _, c := range cases {
		r := Parse([]byte(c.line))
		if r == nil || r.LineErr() == nil {
			t.Errorf("%q: no error", c.line)
			continue
		}
		if r.LineErr().Kind != c.kind || !strings.Contains(r.LineErr().Message, c.msg) {
			t.Errorf("%q: got %v %q, want %v containing %q", c.line, r.LineErr().Kind, r.LineErr().Message, c.kind, c.msg)
		}
		if json.Valid([]byte(c.line)) != (c.kind == ErrNotAnObject) {
			t.Errorf("%q: encoding/json disagrees on validity", c.line)
		}
	}
}

func TestParseFields(t *testing.T) {
	line := `{"uuid":5,"parentUuid":[],"type":"user","message":{"content":{}},"uuid2":"x","sessionId":"s\u00e9","isSidechain":true,` +
		`"agentId":"a\"b","timestamp":"t"}`
	r := Parse([]byte(line))
	if r.LineErr() != nil {
		t.Fatal(r.LineErr().Message)
	}
	if r.UUID != "" || r.Parent != "" || len(r.D().FieldErrs) != 2 || r.D().FieldErrs[0].Field != "uuid" || r.D().FieldErrs[1].Field != "parentUuid" {
		t.Errorf("wrong types not reported: %+v", r)
	}
	if r.SessionID != "sé" || r.D().AgentID != `a"b` || !r.Has(FlagSidechain) {
		t.Errorf("escapes: %+v", r)
	}
	if r := Parse([]byte(`{"uuid":"a","uuid":"b","parentUuid":null}`)); r.UUID != "b" || !r.Has(FlagParentNull) {
		t.Errorf("duplicate keys: last wins, got %+v", r)
	}
	if Parse([]byte("  \t ")) != nil || Parse(nil) != nil {
		t.Error("blank lines are not records")
	}
	if r := Parse([]byte("\xEF\xBB\xBF{\"uuid\":\"a\"}")); r.LineErr() != nil || r.UUID != "a" {
		t.Errorf("BOM: %+v", r)
	}
}

func TestDeepNestingDoesNotRecurse(t *testing.T) {
	n := 100000
	line := `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	if r := Parse([]byte(line)); r.LineErr() != nil {
		t.Fatal(r.LineErr().Message)
	}
	line = `{"a":` + strings.Repeat(`{"b":`, n) + "1" + strings.Repeat("}", n-1) + `}`
	if r := Parse([]byte(line)); r.LineErr() == nil {
		t.Fatal("unbalanced deep object accepted")
	}
}

// TestStopReasonAndHourCache: a message's stop_reason says whether its usage is the final count, and
// the 1-hour part of the cache writes is read from usage.cache_creation.
func TestStopReasonAndHourCache(t *testing.T) {
	for _, c := range []struct {
		line    string
		stopped bool
		hour    int64
	}{
		{`{"message":{"stop_reason":"tool_use","usage":{"output_tokens":150,"cache_creation_input_tokens":900,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":800}}}}`, true, 800},
		{`{"message":{"stop_reason":null,"usage":{"output_tokens":1}}}`, false, 0},
		{`{"message":{"usage":{"output_tokens":1,"cache_creation":null}}}`, false, 0},
		{`{"message":{"stop_reason":"end_turn"},"message":{"usage":{}}}`, false, 0}, // the later message replaces the earlier
		{`{"message":{"stop_reason":"end_turn","stop_reason":null}}`, false, 0},
		{`{"message":{"stop_reason":7}}`, false, 0},
	} {
		r := Parse([]byte(c.line))
		if r.LineErr() != nil {
			t.Fatal(c.line, r.LineErr().Message)
		}
		if r.Has(FlagStopped) != c.stopped || r.D().Usage.CacheCreation1h != c.hour {
			t.Errorf("%s: stopped %v, 1h %d; want %v, %d", c.line, r.Has(FlagStopped), r.D().Usage.CacheCreation1h, c.stopped, c.hour)
		}
	}
}

// TestImplausibleCounts holds docs/spec.md §15: a count that is negative, a float or past 2^53 reads
// as absent with an invalid-field error on its value, never converted (1e19 once became -2^63).
func TestImplausibleCounts(t *testing.T) {
	for _, c := range []struct {
		raw     string
		want    int64
		invalid bool
	}{
		{"0", 0, false},
		{"12345", 12345, false},
		{"9007199254740992", 1 << 53, false},
		{"9007199254740993", 0, true},
		{"-1", 0, true},
		{"-0", 0, true},
		{"-9223372036854775808", 0, true},
		{"99999999999999999999", 0, true},
		{"1e19", 0, true},
		{"1e2", 0, true},
		{"2.5", 0, true},
		{"12.0", 0, true},
		{`"12"`, 0, false}, // another type: skipped as before, no finding
	} {
		line := `{"type":"assistant","message":{"usage":{"input_tokens":3,"output_tokens":` + c.raw + `}}}`
		r := Parse([]byte(line))
		if r.LineErr() != nil {
			t.Fatalf("%s: %v", c.raw, r.LineErr())
		}
		u := r.D().Usage
		if u.Output != c.want || u.Input != 3 {
			t.Errorf("output_tokens %s: read %d (input %d), want %d", c.raw, u.Output, u.Input, c.want)
		}
		errs := r.D().FieldErrs
		if !c.invalid {
			if len(errs) != 0 {
				t.Errorf("output_tokens %s: field errors %+v", c.raw, errs)
			}
			continue
		}
		if len(errs) != 1 || errs[0].Field != "output_tokens" || line[errs[0].Span.Start:errs[0].Span.End] != c.raw {
			t.Errorf("output_tokens %s: field errors %+v, want one on the value", c.raw, errs)
		}
	}

	// Durations keep -1 for absent; an implausible totalDurationMs leaves durationMs to say it.
	r := Parse([]byte(`{"type":"user","toolUseResult":{"agentId":"a","totalDurationMs":-5,"durationMs":40,"totalTokens":1e19}}`))
	if ri := r.D().Result; ri == nil || ri.DurationMs != 40 || ri.TotalTokens != 0 {
		t.Fatalf("result %+v, want durationMs 40 and no total tokens", ri)
	}
	if n := len(r.D().FieldErrs); n != 2 {
		t.Fatalf("field errors %+v, want totalDurationMs and totalTokens", r.D().FieldErrs)
	}
	r = Parse([]byte(`{"type":"user","toolUseResult":{"agentId":"a","totalDurationMs":1e19}}`))
	if ri := r.D().Result; ri == nil || ri.DurationMs != -1 {
		t.Fatalf("result %+v, want no duration", ri)
	}
}

// TestImplausibleTimestamps holds docs/spec.md §15: a timestamp dated before 2000 or after 2100 (past
// time.Time's UnixNano range, 1678 to 2262, span times wrapped) reads as absent with an
// invalid-field error on its value; a string that is no RFC 3339 time is left to readers, as before.
func TestImplausibleTimestamps(t *testing.T) {
	for _, c := range []struct {
		raw     string
		invalid bool
	}{
		{`"2025-08-12T13:11:40.123Z"`, false},
		{`"2000-01-01T00:00:00Z"`, false},
		{`"2100-12-31T23:59:59+01:00"`, false},
		{`"1999-12-31T23:59:59Z"`, true},
		{`"1000-01-01T00:00:00Z"`, true},
		{`"0000-01-01T00:00:00Z"`, true},
		{`"2101-01-01T00:00:00Z"`, true},
		{`"2262-04-12T00:00:00Z"`, true},
		{`"9999-12-31T00:00:00Z"`, true},
		{`"\u0031000-01-01T00:00:00Z"`, true}, // escaped, as readers decode it
		{`"t"`, false},
		{`"12345"`, false},
	} {
		line := `{"type":"user","uuid":"u","timestamp":` + c.raw + `}`
		r := Parse([]byte(line))
		if r.LineErr() != nil {
			t.Fatalf("%s: %v", c.raw, r.LineErr())
		}
		errs := r.D().FieldErrs
		if !c.invalid {
			if len(errs) != 0 || line[r.TimestampSpan.Start:r.TimestampSpan.End] != c.raw {
				t.Errorf("timestamp %s: field errors %+v, span %v", c.raw, errs, r.TimestampSpan)
			}
			continue
		}
		if r.TimestampSpan.Valid() || r.Timestamp([]byte(line)) != "" {
			t.Errorf("timestamp %s: read as %q, want absent", c.raw, r.Timestamp([]byte(line)))
		}
		if len(errs) != 1 || errs[0].Field != "timestamp" || line[errs[0].Span.Start:errs[0].Span.End] != c.raw {
			t.Errorf("timestamp %s: field errors %+v, want one on the value", c.raw, errs)
		}
	}

	// Of duplicate keys the last wins, its error with it.
	r := Parse([]byte(`{"type":"user","timestamp":"9999-01-01T00:00:00Z","timestamp":"2025-01-01T00:00:00Z"}`))
	if len(r.D().FieldErrs) != 0 || !r.TimestampSpan.Valid() {
		t.Errorf("a plausible last timestamp: field errors %+v, span %v", r.D().FieldErrs, r.TimestampSpan)
	}
	r = Parse([]byte(`{"type":"user","timestamp":"2025-01-01T00:00:00Z","timestamp":"9999-01-01T00:00:00Z"}`))
	if len(r.D().FieldErrs) != 1 || r.TimestampSpan.Valid() {
		t.Errorf("an implausible last timestamp: field errors %+v, span %v", r.D().FieldErrs, r.TimestampSpan)
	}
}
