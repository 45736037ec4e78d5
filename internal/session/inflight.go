package session

import "github.com/ccdag/ccdag/internal/jsonl"

// In flight or gone on (docs/spec.md §2 unmatched-tool-use): a call with no result anywhere is in
// flight while everything after it in its file is the same turn — sibling calls of its assistant
// message, their results, records of other types. The conversation went on once a later record of
// its file is an assistant record of another message, or a user record that is anything but
// results of that message's calls.

// msgKey identifies an assistant record's message: message.id, else requestId, else the record.
type msgKey struct {
	kind byte // 'm' message.id, 'r' requestId, 0 the record alone
	id   string
	rec  *Rec
}

func keyOf(r *Rec) msgKey {
	switch {
	case r.D().MessageID != "":
		return msgKey{kind: 'm', id: r.D().MessageID}
	case r.D().RequestID != "":
		return msgKey{kind: 'r', id: r.D().RequestID}
	}
	return msgKey{rec: r}
}

// onlyResults reports whether r is a user record holding tool_result blocks and nothing else
// (text beside them is a person or Claude Code writing: the conversation goes on).
func onlyResults(r *Rec) bool {
	if r.Type != "user" || r.Has(jsonl.FlagContentString) || len(r.D().Blocks) == 0 {
		return false
	}
	for k := range r.D().Blocks {
		if r.D().Blocks[k].Kind != jsonl.BlockToolResult {
			return false
		}
	}
	return true
}

// TurnTail returns the line of the last record of f after which the conversation did not go on:
// calls after it, without a result, are still in flight where the log ends; calls on or before it
// are not. -1 when the whole file is one message's turn; LineCount()-1 when the file holds no
// assistant record. It costs the length of the file's last turn.
func (f *File) TurnTail() int {
	last := len(f.recs) - 1
	var m msgKey
	found := false
	for i := last; i >= 0; i-- {
		if r := f.recs[i]; r != nil && r.LineErr() == nil && r.Type == "assistant" {
			m, found = keyOf(r), true
			break
		}
	}
	if !found {
		return last
	}
	// Pass 1: the tail of records that are M's, results, or no conversation; M's call ids in it.
	calls := map[string]bool{}
	b0 := -1
	for i := last; i >= 0; i-- {
		r := f.recs[i]
		if r == nil || r.LineErr() != nil || !r.IsConversation() {
			continue
		}
		if r.Type == "assistant" && keyOf(r) == m {
			for k := range r.D().Blocks {
				if b := &r.D().Blocks[k]; b.Kind == jsonl.BlockToolUse && b.ID != "" {
					calls[b.ID] = true
				}
			}
			continue
		}
		if onlyResults(r) {
			continue
		}
		b0 = i
		break
	}
	// Pass 2: a result record in the tail that answers a call of another message ends it too. (M's
	// lines before the tail count too: the whole file is read for them only when a result names a
	// call the tail does not hold, which real logs do not write.)
	all := false
	for i := last; i > b0; i-- {
		r := f.recs[i]
		if r == nil || r.LineErr() != nil || !onlyResults(r) {
			continue
		}
		for k := range r.D().Blocks {
			id := r.D().Blocks[k].ToolUseID
			if !calls[id] && !all {
				all = true
				for _, o := range f.recs[:b0+1] {
					if o != nil && o.LineErr() == nil && o.Type == "assistant" && keyOf(o) == m {
						for k := range o.D().Blocks {
							if b := &o.D().Blocks[k]; b.Kind == jsonl.BlockToolUse && b.ID != "" {
								calls[b.ID] = true
							}
						}
					}
				}
			}
			if !calls[id] {
				return i
			}
		}
	}
	return b0
}

// InFlight reports whether the tool_use blocks of r that have no result are still in flight where
// the log ends (see TurnTail).
func (f *File) InFlight(r *Rec) bool { return r.File == f && r.Line > f.TurnTail() }
