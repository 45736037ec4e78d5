package hostile

import "strings"

// Texts are hostile pieces of log text for anything that renders log text (hover, transcript,
// inlay hints): code fences, links (command: URIs among them), raw HTML, bidirectional controls,
// terminal escapes, and a 2 MB single line. Renderers must show them as text, never act on them.
func Texts() map[string]string {
	return map[string]string{
		"fence":    "before\n```\n# not a heading\n````js\nalert(1)\n````\nafter ``` ~~~\n~~~\nx",
		"link":     "[click](command:workbench.action.terminal.new) ![img](https://evil.example/x.png) <https://evil.example> https://evil.example/a www.evil.example [ref]: https://evil.example",
		"html":     "<script>alert(1)</script><img src=x onerror=alert(1)><details open><summary>x</summary></details><!-- c --> &amp; &#60;b&#62;",
		"markdown": "# heading\n---\n* list\n> quote\n| a | b |\n|---|---|\n**bold** _it_ `code` \\`esc",
		"bidi":     "safe\u202egnp.exe\u2066x\u2069 \u200e\u200f \x1b[31mred\x1b[0m \x07 \u2028line\u2029para",
		"long":     "A" + strings.Repeat("0123456789`<>[]()", 2<<20/17),
	}
}
