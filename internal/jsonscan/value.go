package jsonscan

import "bytes"

// The validating scanner: the extent of a JSON value with its grammar checked (strings and their
// escapes, numbers, literals, commas and colons), and where and why it is not JSON. Session logs
// (internal/jsonl, whose findings word the errors for a line) and the JSON-RPC envelope both use
// it; it never recurses and never panics.

// Problem says what is wrong at a Fault's offset; callers word it for their input.
type Problem uint8

const (
	Expected         Problem = iota // Want was expected at Off (Off == len(b): the input ended)
	Unclosed                        // the string opened at Off is never closed
	EndInEscape                     // the input ends inside the escape sequence at Off
	BadUnicodeEscape                // the \u escape at Off is not four hex digits
	BadEscape                       // the escape at Off is not one of JSON's (the letter is b[Off+1])
)

// Fault is where and why input is not JSON (ValueEnd and its callers map it to ErrSyntax; a session
// log's findings word it for the line).
type Fault struct {
	Off     int
	Problem Problem
	Want    string // for Expected: "a value", "a digit", "':'", "a key string", "',' or '}'", ...
}

func expected(off int, want string) *Fault {
	return &Fault{Off: off, Problem: Expected, Want: want}
}

// Number scans the number at b[i] with JSON's grammar; integer is false when it has a fraction or
// an exponent.
func Number(b []byte, i int) (end int, integer bool, err *Fault) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return 0, false, expected(i, "a value")
	}
	switch {
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false, expected(i, "a value")
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		d := i + 1
		if i = digits(b, d); i == d {
			return 0, false, expected(i, "a digit")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = digits(b, d); i == d {
			return 0, false, expected(i, "a digit")
		}
	}
	return i, integer, nil
}

// digits returns the index past the run of decimal digits at b[i].
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// Value scans the JSON value at b[i] (after any white space) and returns the index past it. It keeps
// its own stack of open containers instead of recursing.
func Value(b []byte, i int) (int, *Fault) {
	var stackBuf [32]byte
	stack := stackBuf[:0]
	for {
		// A value is expected here.
		i = SkipSpace(b, i)
		if i >= len(b) {
			return 0, expected(i, "a value")
		}
		switch b[i] {
		case '"':
			e, _, err := String(b, i)
			if err != nil {
				return 0, err
			}
			i = e
		case '{':
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			stack = append(stack, '{')
			var err *Fault
			if i, err = keyColon(b, i); err != nil {
				return 0, err
			}
			continue
		case '[':
			i = SkipSpace(b, i+1)
			if i < len(b) && b[i] == ']' {
				i++
				break
			}
			stack = append(stack, '[')
			continue
		case 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return 0, expected(i, "a value")
			}
			i += 4
		case 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return 0, expected(i, "a value")
			}
			i += 5
		case 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return 0, expected(i, "a value")
			}
			i += 4
		default:
			e, _, err := Number(b, i)
			if err != nil {
				return 0, err
			}
			i = e
		}
		// A value ended: close containers until a comma asks for the next value.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = SkipSpace(b, i)
			top := stack[len(stack)-1]
			if i >= len(b) {
				return 0, expected(i, "',' or a closing bracket")
			}
			c := b[i]
			if c == ',' {
				i++
				if top == '{' {
					var err *Fault
					if i, err = keyColon(b, i); err != nil {
						return 0, err
					}
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				i++
				stack = stack[:len(stack)-1]
				continue
			}
			if top == '{' {
				return 0, expected(i, "',' or '}'")
			}
			return 0, expected(i, "',' or ']'")
		}
	}
}

// keyColon scans `"key" :` at b[i] (after any white space), the key unread, and returns the index
// past the colon and the white space after it.
func keyColon(b []byte, i int) (int, *Fault) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '"' {
		return 0, expected(i, "a key string")
	}
	e, _, err := String(b, i)
	if err != nil {
		return 0, err
	}
	i = SkipSpace(b, e)
	if i >= len(b) || b[i] != ':' {
		return 0, expected(i, "':'")
	}
	return SkipSpace(b, i+1), nil
}
