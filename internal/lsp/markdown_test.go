package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// outsideCode returns the markdown with its fenced code blocks and inline code spans taken out
// (CommonMark's rules for the forms the server writes), and whether every backtick was part of
// a well-formed span or fence.
func outsideCode(md string) (string, bool) {
	var out strings.Builder
	lines := strings.Split(md, "\n")
	ok := true
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if n := longestRun(l, '`'); n >= 3 && strings.HasPrefix(l, strings.Repeat("`", n)) {
			fence := strings.Repeat("`", n)
			for i++; i < len(lines) && strings.TrimRight(lines[i], " ") != fence; i++ {
			}
			if i == len(lines) {
				ok = false // an unclosed fence swallows the rest
			}
			continue
		}
		for len(l) > 0 {
			j := strings.IndexByte(l, '`')
			if j < 0 {
				out.WriteString(l)
				break
			}
			out.WriteString(l[:j])
			run := 0
			for j+run < len(l) && l[j+run] == '`' {
				run++
			}
			rest := l[j+run:]
			closeAt := -1
			for k := 0; k < len(rest); {
				if rest[k] != '`' {
					k++
					continue
				}
				r := 0
				for k+r < len(rest) && rest[k+r] == '`' {
					r++
				}
				if r == run {
					closeAt = k
					break
				}
				k += r
			}
			if closeAt < 0 {
				ok = false
				out.WriteString(l[j:])
				break
			}
			l = rest[closeAt+run:]
		}
		out.WriteByte('\n')
	}
	return out.String(), ok
}

var injections = []string{
	"[docs](command:workbench.action.quit)", "<img src=x onerror=alert(1)>", "```\n# heading\n```", "`` ` ``",
	"https://evil.example/x", "<script>alert(1)</script>", "&lt;b&gt;", "![i](http://x/y.png)", "[ref]: http://x",
	"<http://x>", "| a | b |\n|---|---|", "*bold* _it_ ~~s~~", "\u202eevil\u2066", "\x1b[31mred",
}

// Hover text on a log full of markdown, HTML, links, fences and bidi tricks, in every place log
// text can reach a hover (prompt, tool input, tool name, ids, results, file names): outside code
// spans and fences there is none of it.
func TestHoverMarkdownCannotBeInjected(t *testing.T) {
	var lines []string
	for i, h := range injections {
		q := fmt.Sprintf("%q", h)
		id := fmt.Sprintf("%q", fmt.Sprintf("id-%d %s", i, h))
		parent := fmt.Sprintf("%q", fmt.Sprintf("id-%d %s", i-1, injections[max(0, i-1)]))
		if i == 0 {
			parent = "null"
		}
		lines = append(lines,
			fmt.Sprintf(`{"type":"user","uuid":%s,"parentUuid":%s,"message":{"role":"user","content":%s}}`, id, parent, q),
			fmt.Sprintf(`{"type":"assistant","uuid":"a%d","parentUuid":%s,"message":{"model":%s,"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":%s,"name":%s,"input":{"command":%s,"file_path":%s}}]}}`, i, id, q, i, q, q, q, q),
			fmt.Sprintf(`{"type":"user","uuid":"r%d","parentUuid":"a%d","timestamp":%s,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%s,"content":%s}]}}`, i, i, q, q, q),
			fmt.Sprintf(`{"type":"assistant","uuid":"t%d","parentUuid":%s,"message":{"id":"x%d","role":"assistant","content":[{"type":"thinking","thinking":%s},{"type":"text","text":%s}]}}`, i, q, i, q, q),
		)
	}
	text := strings.Join(lines, "\n") + "\n"
	uri := "untitled:hostile.jsonl"
	c := newClient(t, clientOpt{})
	c.open(uri, text, 1)
	c.diagsAt(uri, 1)
	hovers := 0
	for l, line := range lines {
		for ch := 0; ch < utf16Len(line); ch += 3 {
			md := c.hoverText(uri, pos{l, ch})
			if md == "" {
				continue
			}
			hovers++
			rest, ok := outsideCode(md)
			if !ok {
				t.Fatalf("hover at %d:%d: a code span or fence is not closed:\n%s", l, ch, md)
			}
			for _, bad := range []string{"[", "]", "<", ">", "&", "|", "http", "command:", "\u202e", "\u2066", "\x1b", "~~", "![", "_it_"} {
				if strings.Contains(rest, bad) {
					t.Fatalf("hover at %d:%d has %q outside code:\n%s\n--- outside code:\n%s", l, ch, bad, md, rest)
				}
			}
			for _, ln := range strings.Split(rest, "\n") {
				if strings.HasPrefix(ln, "#") && !strings.HasPrefix(ln, "### ") || strings.HasPrefix(ln, "---") && ln != "---" {
					t.Fatalf("hover at %d:%d: a log line became a block: %q\n%s", l, ch, ln, md)
				}
			}
		}
	}
	if hovers < 100 {
		t.Fatalf("only %d hovers", hovers)
	}
}
