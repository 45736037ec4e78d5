package graph

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ccdag/ccdag/internal/jsonscan"
)

// AppendJSON appends g's JSON document (docs/spec.md §4) to dst, without a trailing newline. The bytes
// are exactly what encoding/json writes for g (HTML characters escaped, invalid UTF-8 replaced),
// at several times its speed: the language server encodes a live session's graph after every
// append, and a 10 MB session's graph is over a megabyte of JSON. A graph built with a Memo
// carries each node's JSON from the build (made again only for nodes that changed).
func AppendJSON(dst []byte, g *Graph) []byte {
	// Grown once to about what it takes (350-500 bytes a node and its edges), not doubled a dozen
	// times from empty.
	if need := 448*len(g.Nodes) + 64*len(g.Edges) + 4096; cap(dst)-len(dst) < need {
		dst = slices.Grow(dst, need)
	}
	dst = append(dst, `{"session":{"id":`...)
	dst = appendString(dst, g.Session.ID)
	dst = append(dst, `,"files":`...)
	if g.Session.Files == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range g.Session.Files {
			f := &g.Session.Files[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"uri":`...)
			dst = appendString(dst, f.URI)
			dst = append(dst, `,"lane":`...)
			dst = appendString(dst, f.Lane)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `},"lanes":`...)
	if g.Lanes == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range g.Lanes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendLane(dst, &g.Lanes[i])
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"nodes":`...)
	if g.Nodes == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range g.Nodes {
			if i > 0 {
				dst = append(dst, ',')
			}
			if n := &g.Nodes[i]; n.enc != nil {
				dst = append(dst, n.enc...)
			} else {
				dst = appendNode(dst, n)
			}
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"edges":`...)
	if g.Edges == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range g.Edges {
			e := &g.Edges[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"source":`...)
			dst = appendString(dst, e.Source)
			dst = append(dst, `,"target":`...)
			dst = appendString(dst, e.Target)
			dst = append(dst, `,"kind":`...)
			dst = appendString(dst, string(e.Kind))
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c := g.Collapsed; c != nil {
		dst = appendCollapse(dst, c)
	}
	return append(dst, '}')
}

func appendCollapse(dst []byte, c *Collapse) []byte {
	dst = append(dst, `,"collapsed":{"maxNodes":`...)
	dst = strconv.AppendInt(dst, int64(c.MaxNodes), 10)
	dst = append(dst, `,"nodes":`...)
	dst = strconv.AppendInt(dst, int64(c.Nodes), 10)
	dst = append(dst, `,"edges":`...)
	dst = strconv.AppendInt(dst, int64(c.Edges), 10)
	dst = append(dst, `,"turns":`...)
	dst = strconv.AppendInt(dst, int64(c.Turns), 10)
	dst = append(dst, `,"lanes":`...)
	dst = strconv.AppendInt(dst, int64(c.Lanes), 10)
	dst = append(dst, `,"turnsPerNode":`...)
	dst = strconv.AppendInt(dst, int64(c.TurnsPer), 10)
	if len(c.LeftOut) > 0 {
		dst = append(dst, `,"lanesLeftOut":[`...)
		for i, l := range c.LeftOut {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, l)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"nodesLeftOut":`...)
	dst = strconv.AppendInt(dst, int64(c.LeftNodes), 10)
	return append(dst, '}')
}

func appendLane(dst []byte, l *Lane) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, l.ID)
	dst = append(dst, `,"label":`...)
	dst = appendString(dst, l.Label)
	if l.AgentID != "" {
		dst = append(dst, `,"agentId":`...)
		dst = appendString(dst, l.AgentID)
	}
	if l.SubagentType != "" {
		dst = append(dst, `,"subagentType":`...)
		dst = appendString(dst, l.SubagentType)
	}
	if l.ParentNode != "" {
		dst = append(dst, `,"parentNode":`...)
		dst = appendString(dst, l.ParentNode)
	}
	if l.Depth != 0 {
		dst = append(dst, `,"depth":`...)
		dst = strconv.AppendInt(dst, int64(l.Depth), 10)
	}
	return append(dst, '}')
}

func appendNode(dst []byte, n *Node) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, n.ID)
	dst = append(dst, `,"kind":`...)
	dst = appendString(dst, string(n.Kind))
	dst = append(dst, `,"lane":`...)
	dst = appendString(dst, n.Lane)
	dst = append(dst, `,"label":`...)
	dst = appendString(dst, n.Label)
	dst = append(dst, `,"active":`...)
	dst = strconv.AppendBool(dst, n.Active)
	if len(n.UUIDs) > 0 {
		dst = append(dst, `,"uuids":[`...)
		for i, u := range n.UUIDs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, u)
		}
		dst = append(dst, ']')
	}
	rg := &n.Location.Range
	dst = append(dst, `,"location":{"uri":`...)
	dst = appendString(dst, n.Location.URI)
	dst = append(dst, `,"range":{"start":{"line":`...)
	dst = strconv.AppendUint(dst, uint64(rg.Start.Line), 10)
	dst = append(dst, `,"character":`...)
	dst = strconv.AppendUint(dst, uint64(rg.Start.Character), 10)
	dst = append(dst, `},"end":{"line":`...)
	dst = strconv.AppendUint(dst, uint64(rg.End.Line), 10)
	dst = append(dst, `,"character":`...)
	dst = strconv.AppendUint(dst, uint64(rg.End.Character), 10)
	dst = append(dst, `}}}`...)
	dst = appendField(dst, `,"timestamp":`, n.Timestamp)
	dst = appendField(dst, `,"toolName":`, n.ToolName)
	dst = appendField(dst, `,"toolUseId":`, n.ToolUseID)
	dst = appendField(dst, `,"status":`, n.Status)
	dst = appendField(dst, `,"model":`, n.Model)
	if n.InputTokens != 0 {
		dst = append(dst, `,"inputTokens":`...)
		dst = strconv.AppendInt(dst, n.InputTokens, 10)
	}
	if n.OutputTokens != 0 {
		dst = append(dst, `,"outputTokens":`...)
		dst = strconv.AppendInt(dst, n.OutputTokens, 10)
	}
	if n.DurationMs != nil {
		dst = append(dst, `,"durationMs":`...)
		dst = strconv.AppendInt(dst, *n.DurationMs, 10)
	}
	if n.Members != 0 {
		dst = append(dst, `,"members":`...)
		dst = strconv.AppendInt(dst, int64(n.Members), 10)
	}
	return append(dst, '}')
}

// appendField appends key and the string value s, omitted when empty (omitempty).
func appendField(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes encoding/json writes as they are (with HTML escaping on).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString appends s as a JSON string the way encoding/json does with HTML escaping:
// \b \f \n \r \t and \uXXXX for other controls, \u003c \u003e \u0026 for < > &, \ufffd for each
// byte of invalid UTF-8, and \u2028 \u2029 for the line and paragraph separators.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			dst = jsonscan.AppendByteEscape(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
