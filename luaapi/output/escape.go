package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Strings from a cluster (group ids, client ids, hosts, config values) are
// chosen by whoever runs a client, and a terminal obeys the control
// characters in what it prints: ESC starts a sequence that can recolor,
// retitle or rewrite the screen, BEL rings, CR and bidi overrides make a
// line read differently. So every string kadmin-lua prints for a person is
// escaped here; JSON and Lua output stay exact (escapes give back the
// very bytes), table cells and messages are for reading.

// plain reports whether s is printable ASCII only: the common case, which
// needs no escaping and no copy.
func plain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes at a time: values of records are long
		if x := word(s, i); hasLess(x, 0x20)|hasMore7e(x) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// Tests on eight bytes at once (Bit Twiddling Hacks, "Determine if a word
// has a byte less than n" and its kin): each is non-zero exactly when some
// byte of x is what it names.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// word is the eight bytes of s from i, the first in the low byte (one
// load: slicing first lets the compiler drop the bounds checks).
func word(s string, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// hasLess: a byte below n (n at most 128).
func hasLess(x uint64, n uint64) uint64 { return (x - ones*n) & ^x & highs }

// hasMore7e: a byte above 0x7e (DEL, or not ASCII).
func hasMore7e(x uint64) uint64 { return ((x + ones) | x) & highs }

// hasByte: a byte equal to c.
func hasByte(x uint64, c uint64) uint64 { return hasLess(x^(ones*c), 1) }

// printable reports whether a terminal shows r as itself: letters, marks,
// numbers, punctuation, symbols and the space. Controls (C0, DEL, C1),
// format characters (bidi overrides, zero-width) and unassigned code points
// are not.
func printable(r rune) bool { return r == ' ' || unicode.IsPrint(r) }

// TerminalText returns s with what could drive a terminal escaped:
// controls as \x1b (\n and \t are kept, for multi-line messages), other
// non-printing characters as \u202e, bytes that are not UTF-8 as \xff.
// Backslashes are kept as they are. For error messages and printed results.
func TerminalText(s string) string { return termText(s, true) }

// CellText is TerminalText for one table cell: a newline or tab would
// break the table, so they are escaped too (\n, \t).
func CellText(s string) string { return termText(s, false) }

// MessageText is TerminalText for a message printed on lines of its own
// (an error): a non-empty line after the first is indented by two spaces,
// so a name with a newline in it cannot forge a line of its own in a log.
// Newlines before the message (after a ^C) are kept as they are.
func MessageText(s string) string {
	t := termText(s, true)
	body := strings.TrimLeft(t, "\n")
	lines := strings.Split(body, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = "  " + lines[i]
		}
	}
	return t[:len(t)-len(body)] + strings.Join(lines, "\n")
}

// LogValue is a value in a key=value log line (logfmt): as it is when it is
// printable ASCII without a space, quote, '=' or backslash, else a
// double-quoted string with the escapes of Go (strconv.Quote, which escapes
// exactly what printable does not accept).
func LogValue(s string) string {
	if s != "" && plain(s) && !strings.ContainsAny(s, ` "=\`) {
		return s
	}
	return strconv.Quote(s)
}

// EscapeJSON returns JSON text (encoding/json's) with the characters
// printable does not accept, which encoding/json leaves raw (C1 controls,
// bidi and zero-width characters), written as \u escapes: the same JSON
// value, which no terminal obeys. Those characters can only be inside
// strings, where \u escapes mean them.
func EscapeJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r < 0x80 || printable(r) || (r == utf8.RuneError && size == 1) {
			out = append(out, b[i:i+size]...)
		} else if r <= 0xffff {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		}
		i += size
	}
	return out
}

func termText(s string, keepLines bool) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x80 && shortEscape(byte(r)) != "":
			b.WriteString(shortEscape(byte(r)))
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case printable(r):
			b.WriteString(s[i : i+size])
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// shortEscape is the letter escape of a control byte that Lua, Go and C
// share, or "".
func shortEscape(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	return ""
}

// QuoteLua writes s as a Lua string literal that reads back as exactly s:
// printable characters as they are, controls as \n or \x1b, the bytes of
// other non-printing characters and bytes that are not UTF-8 as \xNN (the
// hexadecimal escape of Lua 5.2, which kadmin-lua's Lua reads too).
func QuoteLua(s string) string {
	if plain(s) && !strings.ContainsAny(s, `"\`) {
		return `"` + s + `"`
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r < 0x80 && shortEscape(byte(r)) != "":
			b.WriteString(shortEscape(byte(r)))
		case !(r == utf8.RuneError && size == 1) && printable(r):
			b.WriteString(s[i : i+size])
		default: // controls, non-printing characters, invalid bytes
			for j := i; j < i+size; j++ {
				fmt.Fprintf(&b, `\x%02x`, s[j])
			}
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// textWriter is where the printers write: a printBuf, a bytes.Buffer, a
// strings.Builder.
type textWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainJSON is whether s is written in JSON as it is.
func plainJSON(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if x := word(s, i); hasLess(x, 0x20)|hasMore7e(x)|hasByte(x, '"')|hasByte(x, '\\') != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			return false
		}
	}
	return true
}

// WriteJSONString writes s as a JSON string that gives back exactly s.
// Valid UTF-8 is kept, with every character that is not printable escaped
// (C0 and C1 controls, DEL, U+2028, bidi and other format characters), so
// JSON read on a terminal cannot drive it either. A byte that is not UTF-8
// is written \udcNN, NN its value (80 to ff): a lone low surrogate, the
// convention of Python's "surrogateescape" (PEP 383). It is valid JSON
// syntax that no UTF-8 text produces, so kafka.json.decode turns it back
// into the byte, and Python's json.loads(...).encode("utf-8",
// "surrogateescape") gives back the original bytes; decoders that insist
// on Unicode read U+FFFD there. (encoding/json would write U+FFFD itself,
// losing the byte.)
func WriteJSONString(b textWriter, s string) {
	if p, ok := b.(*printBuf); ok && plainJSON(s) { // most strings: straight into the buffer
		p.buf = append(append(append(p.buf, '"'), s...), '"')
		p.spill()
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			j := i + 1 // a run of bytes written as they are
			for j < len(s) && jsonPlain[s[j]] {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\udc%02x`, c)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\u%04x`, r)
		case printable(r):
			b.WriteString(s[i : i+size])
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
		}
		i += size
	}
	b.WriteByte('"')
}
