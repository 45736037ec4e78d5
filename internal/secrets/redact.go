package secrets

// Placeholder is what a secret found by rule becomes: `[REDACTED:aws-access-token]`. It holds no
// character JSON escapes, so it replaces a secret inside a JSON string as it is.
func Placeholder(rule string) string { return "[REDACTED:" + rule + "]" }

// RedactLine returns line with every hit (ordered, not overlapping, as Line gives them) replaced by
// its placeholder; no other byte changes.
func RedactLine(line []byte, hits []Hit) []byte {
	if len(hits) == 0 {
		return line
	}
	out := make([]byte, 0, len(line))
	at := int32(0)
	for _, h := range hits {
		if h.Start < at || h.End > int32(len(line)) {
			continue // not from this line: never cut text
		}
		out = append(out, line[at:h.Start]...)
		out = append(out, Placeholder(h.Rule)...)
		at = h.End
	}
	return append(out, line[at:]...)
}

// Text finds the secrets of plain text (not JSON): offsets in s, ordered, not overlapping.
func (s *Scanner) Text(text string) []Hit {
	var sc strScan
	return append([]Hit(nil), sc.text(s, text, 0)...)
}

// RedactText returns text with every secret the scanner finds replaced by its placeholder.
func (s *Scanner) RedactText(text string) string {
	var sc strScan
	hits := sc.text(s, text, 0)
	if len(hits) == 0 {
		return text
	}
	return string(RedactLine([]byte(text), hits))
}

// RedactString is RedactText with gitleaks' default rules: what an exporter calls on every value it
// sends (issue 25).
func RedactString(s string) string { return Default().RedactText(s) }

// RedactCut redacts text, the start of what the JSON string raw (quotes included) decodes to, as a
// view cuts it (a title, a label): its own secrets become their placeholders (RedactString); and
// since a secret across the cut no longer matches its rule, when raw holds more than text shows
// the pieces of the secrets found in the whole of raw are hidden too (Mask; docs/spec.md §15). raw
// nil: RedactString.
func RedactCut(raw []byte, text string) string {
	shown := len(text)
	text = RedactString(text)
	if len(raw) < 2 || len(raw)-2 <= shown { // (an escape makes raw longer: then it is scanned)
		return text
	}
	var m *Mask
	if hits := Default().Line(raw, nil); len(hits) > 0 {
		m = NewMask()
		m.AddLine(raw, hits)
	}
	return m.String(text)
}
