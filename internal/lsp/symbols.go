package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ccdag/ccdag/internal/classify"
	"github.com/ccdag/ccdag/internal/describe"
	"github.com/ccdag/ccdag/internal/jsonl"
	"github.com/ccdag/ccdag/internal/position"
	"github.com/ccdag/ccdag/internal/session"
)

// Document symbols: an outline of the log. One symbol per user turn (a person's prompt, or a
// slash command), named by the prompt shortened; under it the assistant's thoughts (one per
// message, named by its text) and tool calls (named by tool and main input). Sub-agent spawns
// (Task/Agent calls) and compactions are marked. Kinds: turn Event, thought String, tool call
// Function, spawn Module, compaction Package. Ranges are whole lines; a turn runs to the line
// before the next turn.

const (
	symTurn       = protocol.SymbolKindEvent
	symThought    = protocol.SymbolKindString
	symToolCall   = protocol.SymbolKindFunction
	symSpawn      = protocol.SymbolKindModule
	symCompaction = protocol.SymbolKindPackage
)

// documentSymbol returns the outline of a log: []protocol.DocumentSymbol, or flattened to
// []protocol.SymbolInformation for a client without hierarchical symbols.
func documentSymbol(_ context.Context, ss *sess, f *session.File, _ docRequest) (any, error) {
	ss.srv.mu.Lock()
	hier := ss.srv.caps.hierarchicalSymbols
	ss.srv.mu.Unlock()
	syms := outline(f)
	if hier {
		return syms, nil
	}
	flat := []protocol.SymbolInformation{}
	uri := protocol.DocumentURI(ss.uriOf(f))
	var walk func(list []protocol.DocumentSymbol, container string)
	walk = func(list []protocol.DocumentSymbol, container string) {
		for _, s := range list {
			flat = append(flat, protocol.SymbolInformation{Name: s.Name, Kind: s.Kind, Location: protocol.Location{URI: uri, Range: s.Range}, ContainerName: container})
			walk(s.Children, s.Name)
		}
	}
	walk(syms, "")
	return flat, nil
}

func outline(f *session.File) []protocol.DocumentSymbol {
	out := []protocol.DocumentSymbol{}
	var m position.Mapper // many calls on one line: the line is mapped once
	var turn *protocol.DocumentSymbol
	turnStart, lastLine := -1, -1
	thought, thoughtMsg := -1, "" // the thought being grown (lines of one message): its index in turn.Children
	closeTurn := func() {
		if turn != nil {
			turn.Range = fullLines(f, turnStart, lastLine)
			out = append(out, *turn)
			turn = nil
		}
	}
	lastPrompt, compacted := "", false // the last turn's name; a compaction since it
	add := func(s protocol.DocumentSymbol, l int) {
		if turn == nil {
			// records before the first prompt, or the rest of a turn a compaction cut
			name, detail := "(before the first prompt)", ""
			if compacted {
				name, detail = "(continued after compaction)", "after compaction"
				if lastPrompt != "" {
					name = describe.SymbolName("(continued) " + lastPrompt)
				}
			}
			turn = &protocol.DocumentSymbol{Name: name, Detail: detail, Kind: symTurn, SelectionRange: fullLines(f, l, l)}
			turnStart = l
			thought = -1
		}
		turn.Children = append(turn.Children, s)
	}
	f.Recs(func(rec *session.Rec) bool {
		l := rec.Line
		if rec.LineErr() != nil {
			return true
		}
		switch {
		case rec.Type == "user":
			if who := classify.User(rec); who.Typed() {
				closeTurn()
				thought, thoughtMsg = -1, ""
				name, detail := describe.SymbolName(classify.Prompt(rec, 600)), "prompt"
				switch who {
				case classify.Command:
					detail = "command"
				case classify.Shell:
					detail = "shell command"
				}
				sel := fullLines(f, l, l)
				if rec.D().ContentSpan.Valid() {
					sel = mappedRange(&m, f, l, rec.D().ContentSpan.Start, rec.D().ContentSpan.End)
				}
				turn = &protocol.DocumentSymbol{Name: name, Detail: detail, Kind: symTurn, SelectionRange: sel}
				lastPrompt, compacted = name, false
				turnStart = l
			}
		case rec.Type == "system" && (rec.D().Subtype == "compact_boundary" || rec.D().Subtype == "microcompact_boundary"):
			closeTurn()
			thought, thoughtMsg = -1, ""
			compacted = true
			out = append(out, protocol.DocumentSymbol{Name: "⟲ compaction", Detail: rec.D().Subtype, Kind: symCompaction,
				Range: fullLines(f, l, l), SelectionRange: fullLines(f, l, l)})
			lastLine = l
			return true
		case rec.Type == "assistant":
			msg := rec.D().MessageID
			if msg == "" {
				msg = rec.D().RequestID
			}
			for i := range rec.D().Blocks {
				bl := &rec.D().Blocks[i]
				switch bl.Kind {
				case jsonl.BlockText, jsonl.BlockThinking:
					if turn != nil && thought >= 0 && msg != "" && msg == thoughtMsg {
						t := &turn.Children[thought]
						t.Range.End = fullLines(f, l, l).End
						if t.Detail == "thinking" && bl.Kind == jsonl.BlockText {
							t.Name = describe.SymbolName(describe.BodyText(rec, bl.BodySpan))
							t.Detail = "reply"
						}
						continue
					}
					detail := "reply" // visible text; thinking is thinking
					if bl.Kind == jsonl.BlockThinking {
						detail = "thinking"
					}
					add(protocol.DocumentSymbol{Name: describe.SymbolName(describe.BodyText(rec, bl.BodySpan)), Detail: detail, Kind: symThought,
						Range: fullLines(f, l, l), SelectionRange: fullLines(f, l, l)}, l)
					thought, thoughtMsg = len(turn.Children)-1, msg
				case jsonl.BlockToolUse:
					name := bl.Name
					if name == "" {
						name = "tool"
					}
					sel := fullLines(f, l, l)
					if bl.IDSpan.Valid() {
						sel = mappedRange(&m, f, l, bl.IDSpan.Start, bl.IDSpan.End)
					}
					sym := protocol.DocumentSymbol{Name: describe.ToolSymbolName(rec, bl), Detail: "tool call", Kind: symToolCall,
						Range: fullLines(f, l, l), SelectionRange: sel}
					if session.IsAgentTool(bl.Name) {
						sym.Name = describe.SymbolName("⇒ " + name + " " + describe.PlainInput(rec, bl))
						sym.Detail, sym.Kind = "sub-agent spawn", symSpawn
					}
					add(sym, l)
				}
			}
		}
		if turn != nil {
			lastLine = l
		}
		return true
	})
	closeTurn()
	return out
}
