package jsonscan

import "bytes"

// The string scanners as they were before the vector scan (a quote, then each backslash before it,
// found by bytes.IndexByte), kept as the reference the tests and the fuzz target hold String and
// StringEnd to: the same end, the same escaped, the same fault for every input.

func stringRef(b []byte, i int) (end int, escaped bool, err *Fault) {
	start := i
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false, &Fault{Off: start, Problem: Unclosed}
		}
		q := j + k
		p := j
		for p < q {
			nb := bytes.IndexByte(b[p:q], '\\')
			if nb < 0 {
				break
			}
			escaped = true
			p += nb
			if p+1 >= len(b) {
				return 0, false, &Fault{Off: p, Problem: EndInEscape}
			}
			switch b[p+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p += 2
			case 'u':
				if _, ok := Hex4(b, p+2); !ok {
					return 0, false, &Fault{Off: p, Problem: BadUnicodeEscape}
				}
				p += 6
			default:
				return 0, false, &Fault{Off: p, Problem: BadEscape}
			}
		}
		if p > q { // the quote at q was escaped
			j = p
			continue
		}
		return q + 1, escaped, nil
	}
}

func stringEndRef(b []byte, i int) (int, error) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, ErrSyntax
		}
		i += q
		// An odd run of backslashes before the quote escapes it.
		k := i - 1
		for b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}
