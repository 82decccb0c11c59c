package luaapi

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// kafka.json.decode reads JSON with its own small parser, not
// encoding/json, for one reason: strings must come back exactly as
// writeJSONString wrote them. encoding/json turns the \udcNN escapes that
// stand for bytes that are not UTF-8 (and such bytes themselves) into
// U+FFFD, so a group name with such a byte, written by -o json and read
// back, would name another group. Otherwise it is as strict as
// encoding/json: RFC 8259 syntax, no trailing commas, no comments.

// decodeJSON parses s into Lua values; JSON null becomes null. Objects get
// the object metatable, so they encode back as {} when empty.
func (r *Runtime) decodeJSON(s string, null lua.LValue) (lua.LValue, error) {
	d := &jsonReader{s: s, null: null, r: r}
	d.space()
	v, err := d.value()
	if err != nil {
		return lua.LNil, err
	}
	d.space()
	if d.i < len(d.s) {
		return lua.LNil, d.errorf("trailing data after the value")
	}
	return v, nil
}

type jsonReader struct {
	s     string
	i     int
	depth int
	null  lua.LValue
	r     *Runtime
}

func (d *jsonReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s at offset %d", fmt.Sprintf(format, args...), d.i)
}

func (d *jsonReader) space() {
	for d.i < len(d.s) && strings.IndexByte(" \t\r\n", d.s[d.i]) >= 0 {
		d.i++
	}
}

// expect consumes c, after white space.
func (d *jsonReader) expect(c byte) error {
	d.space()
	if d.i >= len(d.s) {
		return d.errorf("unexpected end of input, want %q", c)
	}
	if d.s[d.i] != c {
		return d.errorf("invalid character %s, want %q", output.QuoteLua(d.s[d.i:d.i+1]), c)
	}
	d.i++
	return nil
}

func (d *jsonReader) value() (lua.LValue, error) {
	if d.i >= len(d.s) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.s[d.i]; {
	case c == '{' || c == '[':
		if d.depth++; d.depth > output.MaxDepth {
			return nil, d.errorf("nested more than %d deep", output.MaxDepth)
		}
		defer func() { d.depth-- }()
		if c == '{' {
			return d.object()
		}
		return d.array()
	case c == '"':
		s, err := d.str()
		return lua.LString(s), err
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	for _, w := range []struct {
		word string
		v    lua.LValue
	}{{"true", lua.LTrue}, {"false", lua.LFalse}, {"null", d.null}} {
		if strings.HasPrefix(d.s[d.i:], w.word) {
			d.i += len(w.word)
			return w.v, nil
		}
	}
	return nil, d.errorf("invalid character %s looking for a value", output.QuoteLua(d.s[d.i:d.i+1]))
}

func (d *jsonReader) object() (lua.LValue, error) {
	d.i++ // {
	t := d.r.L.NewTable()
	t.Metatable = d.r.conv.object
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return t, nil
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.errorf("want a string key")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if err := d.expect(':'); err != nil {
			return nil, err
		}
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		t.RawSetString(k, v)
		d.space()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return t, nil
		}
		if err := d.expect(','); err != nil {
			return nil, err
		}
	}
}

func (d *jsonReader) array() (lua.LValue, error) {
	d.i++ // [
	t := d.r.L.NewTable()
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return t, nil
	}
	for {
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		t.Append(v) // null is a value, not nil: the array keeps its length
		d.space()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return t, nil
		}
		if err := d.expect(','); err != nil {
			return nil, err
		}
	}
}

// number reads the JSON number grammar, then converts it.
func (d *jsonReader) number() (lua.LValue, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.s[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.s) && d.s[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, d.errorf("invalid number")
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	f, err := strconv.ParseFloat(d.s[start:d.i], 64)
	if err != nil {
		return nil, d.errorf("number %s out of range", d.s[start:d.i])
	}
	return lua.LNumber(f), nil
}

// str reads a string. Bytes are kept as they are, valid UTF-8 or not; a
// lone \udc80 to \udcff is the byte 80 to ff (see writeJSONString); any
// other lone surrogate is U+FFFD, as in encoding/json.
func (d *jsonReader) str() (string, error) {
	d.i++ // "
	var b strings.Builder
	for {
		start := d.i
		for d.i < len(d.s) && d.s[d.i] != '"' && d.s[d.i] != '\\' && d.s[d.i] >= 0x20 {
			d.i++
		}
		b.WriteString(d.s[start:d.i])
		if d.i >= len(d.s) {
			return "", d.errorf("unterminated string")
		}
		switch c := d.s[d.i]; {
		case c == '"':
			d.i++
			return b.String(), nil
		case c < 0x20:
			return "", d.errorf("control character %s in a string (it must be escaped)", output.QuoteLua(string(c)))
		}
		d.i++ // backslash
		if d.i >= len(d.s) {
			return "", d.errorf("unterminated string")
		}
		e := d.s[d.i]
		d.i++
		if short := strings.IndexByte(`"\/bfnrt`, e); short >= 0 {
			b.WriteByte("\"\\/\b\f\n\r\t"[short])
			continue
		}
		if e != 'u' {
			return "", d.errorf("invalid escape \\%s", string(e))
		}
		r, err := d.hex4()
		if err != nil {
			return "", err
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00 && strings.HasPrefix(d.s[d.i:], `\u`):
			save := d.i
			d.i += 2
			lo, err := d.hex4()
			if err != nil {
				return "", err
			}
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				b.WriteRune(pair)
				continue
			}
			d.i = save // not a pair: the second escape is read on its own
			b.WriteRune(utf8.RuneError)
		case r >= 0xdc80 && r <= 0xdcff:
			b.WriteByte(byte(r - 0xdc00))
		case utf16.IsSurrogate(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
}

func (d *jsonReader) hex4() (rune, error) {
	if d.i+4 > len(d.s) {
		return 0, d.errorf("invalid \\u escape")
	}
	n, err := strconv.ParseUint(d.s[d.i:d.i+4], 16, 32)
	if err != nil {
		return 0, d.errorf("invalid \\u escape")
	}
	d.i += 4
	return rune(n), nil
}
