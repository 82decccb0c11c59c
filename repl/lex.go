package repl

import "strings"

// A small Lua lexer for completion: enough to know where the cursor is
// (in a string, a comment, a call's arguments, after `t.x[1].`), never
// enough to run anything.

type tokKind int

const (
	tName       tokKind = iota // an identifier or a keyword
	tNumber                    // a numeric literal
	tString                    // a closed string literal; text is its value
	tOpenString                // a string literal the input ends inside; text is its source so far
	tPunct                     // an operator or a bracket; text is the operator
)

type token struct {
	kind       tokKind
	text       string
	start, end int  // byte offsets in the source
	quote      byte // strings: '"', '\'' or '[' (a long string)
}

func (t token) is(punct string) bool { return t.kind == tPunct && t.text == punct }

// lex splits src into tokens. inComment reports that src ends inside a
// comment (nothing is completed there).
func lex(src string) (toks []token, inComment bool) {
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case strings.HasPrefix(src[i:], "--"):
			i += 2
			if level, ok := longOpen(src[i:]); ok {
				end := strings.Index(src[i:], "]"+strings.Repeat("=", level)+"]")
				if end < 0 {
					return toks, true
				}
				i += end + level + 2
				continue
			}
			nl := strings.IndexByte(src[i:], '\n')
			if nl < 0 {
				return toks, true
			}
			i += nl + 1
			continue
		case c == '"' || c == '\'':
			val, end, closed := quotedString(src, i)
			if !closed {
				return append(toks, token{kind: tOpenString, text: src[i+1:], start: start, end: len(src), quote: c}), false
			}
			toks = append(toks, token{kind: tString, text: val, start: start, end: end, quote: c})
			i = end
			continue
		case c == '[':
			if level, ok := longOpen(src[i:]); ok {
				body := i + level + 2
				end := strings.Index(src[body:], "]"+strings.Repeat("=", level)+"]")
				if end < 0 {
					return append(toks, token{kind: tOpenString, text: src[body:], start: start, end: len(src), quote: '['}), false
				}
				i = body + end + level + 2
				toks = append(toks, token{kind: tString, text: src[body : body+end], start: start, end: i, quote: '['})
				continue
			}
		case isLetter(c):
			for i < len(src) && (isLetter(src[i]) || isDigit(src[i])) {
				i++
			}
			toks = append(toks, token{kind: tName, text: src[start:i], start: start, end: i})
			continue
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			for i < len(src) && (isDigit(src[i]) || isLetter(src[i]) || src[i] == '.' ||
				(src[i] == '-' || src[i] == '+') && (src[i-1] == 'e' || src[i-1] == 'E')) {
				i++
			}
			toks = append(toks, token{kind: tNumber, text: src[start:i], start: start, end: i})
			continue
		}
		op := string(c)
		for _, long := range []string{"...", "..", "==", "~=", "<=", ">="} {
			if strings.HasPrefix(src[i:], long) {
				op = long
				break
			}
		}
		i += len(op)
		toks = append(toks, token{kind: tPunct, text: op, start: start, end: i})
	}
	return toks, false
}

// longOpen reports whether s starts a long bracket, [[ or [==[, and its level.
func longOpen(s string) (int, bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, false
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1, true
	}
	return 0, false
}

// quotedString reads the string literal opening at src[i]: its value, the
// offset after it, and whether it is closed.
func quotedString(src string, i int) (string, int, bool) {
	q := src[i]
	var b strings.Builder
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		switch {
		case c == q:
			return b.String(), j + 1, true
		case c == '\n':
			return "", len(src), false
		case c == '\\' && j+1 < len(src):
			j++
			switch e := src[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			default:
				if isDigit(e) {
					n, k := 0, 0
					for ; k < 3 && j+k < len(src) && isDigit(src[j+k]); k++ {
						n = n*10 + int(src[j+k]-'0')
					}
					b.WriteByte(byte(n))
					j += k - 1
				} else {
					b.WriteByte(e)
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", len(src), false
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

var luaKeywords = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
	"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

func isKeyword(s string) bool {
	for _, k := range luaKeywords {
		if k == s {
			return true
		}
	}
	return false
}
