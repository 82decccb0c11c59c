package output

import (
	"fmt"
	"io"
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
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

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
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			j := i + 1 // a run of bytes written as they are
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\' {
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
