package luaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// Strings that try to drive a terminal: colors, a window title (OSC), a
// bell, NUL, DEL, the 8-bit CSI (U+009B), a bidi override that makes a
// line read backwards, a byte that is not UTF-8.
var hostile = map[string]struct{ cell, text, lua, json string }{
	"\x1b[31mred\x1b[0m": {`\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`, `"\x1b[31mred\x1b[0m"`, `"\u001b[31mred\u001b[0m"`},
	"\x1b]0;pwned\a":     {`\x1b]0;pwned\a`, `\x1b]0;pwned\a`, `"\x1b]0;pwned\a"`, `"\u001b]0;pwned\u0007"`},
	"a\x00b\x7fc":        {`a\x00b\x7fc`, `a\x00b\x7fc`, `"a\x00b\x7fc"`, `"a\u0000b\u007fc"`},
	"\u009b31m":          {`\u009b31m`, `\u009b31m`, `"\xc2\x9b31m"`, `"\u009b31m"`},
	"abc\u202edef":       {`abc\u202edef`, `abc\u202edef`, `"abc\xe2\x80\xaedef"`, `"abc\u202edef"`},
	"bad\xffbyte":        {`bad\xffbyte`, `bad\xffbyte`, `"bad\xffbyte"`, `"bad\udcffbyte"`},
	"two\nlines\tx\r":    {`two\nlines\tx\r`, "two\nlines\tx\\r", `"two\nlines\tx\r"`, `"two\nlines\tx\r"`},
	`back\slash "q"`:     {`back\slash "q"`, `back\slash "q"`, `"back\\slash \"q\""`, `"back\\slash \"q\""`},
	"héllo wörld 日本 😀":   {"héllo wörld 日本 😀", "héllo wörld 日本 😀", `"héllo wörld 日本 😀"`, `"héllo wörld 日本 😀"`},
	"tag\U000E0001":      {`tag\U000e0001`, `tag\U000e0001`, `"tag\xf3\xa0\x80\x81"`, `"tag\udb40\udc01"`},
	"\u2028":             {`\u2028`, `\u2028`, `"\xe2\x80\xa8"`, `"\u2028"`},
}

func TestEscapes(t *testing.T) {
	for s, want := range hostile {
		assert.Equal(t, want.cell, output.CellText(s), "cell %q", s)
		assert.Equal(t, want.text, TerminalText(s), "text %q", s)
		assert.Equal(t, want.lua, output.QuoteLua(s), "lua %q", s)
		var b bytes.Buffer
		output.WriteJSONString(&b, s)
		assert.Equal(t, want.json, b.String(), "json %q", s)
	}
	assert.Equal(t, "plain", output.CellText("plain"))
}

// Nothing escaped reaches a terminal as a control: every byte of the
// escaped forms is printable ASCII or part of a printable character.
func TestEscapedFormsArePrintable(t *testing.T) {
	for _, s := range allBytesAndRandom() {
		for _, out := range []string{output.CellText(s), output.QuoteLua(s), jsonString(s)} {
			for _, r := range out {
				require.True(t, (r == ' ' || unicode.IsPrint(r)) && r != utf8.RuneError, "%q in %q from %q", r, out, s)
			}
		}
		assert.NotContains(t, TerminalText(s), "\x1b")
	}
}

// The Lua literal and the JSON string give back exactly the bytes they
// were made from: through gopher-lua's parser (which reads \xXX) and
// through kafka.json.decode (which reads \udcNN as the byte).
func TestEscapedFormsReadBackExactly(t *testing.T) {
	e := newBareEnv(t, Options{})
	for _, s := range allBytesAndRandom() {
		vals, err := e.rt.DoString(context.Background(), "t", "return "+output.QuoteLua(s))
		require.NoError(t, err, "%q", s)
		require.Equal(t, lua.LString(s), vals[0], "lua %q", s)

		js := jsonString(s)
		v, err := e.rt.decodeJSON(js, e.rt.null())
		require.NoError(t, err, js)
		require.Equal(t, lua.LString(s), v, "json %q", s)
		require.True(t, json.Valid([]byte(js)), js)
		if utf8.ValidString(s) { // any JSON reader gives valid UTF-8 back
			var got string
			require.NoError(t, json.Unmarshal([]byte(js), &got))
			require.Equal(t, s, got, js)
		}
	}
}

// kafka.json.decode is as strict as encoding/json on what JSON is, and
// reads the same values from valid UTF-8 text.
func FuzzJSONDecodeAgreesWithEncodingJSON(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"d\n\u00e9"}}`, `[]`, `{}`, `""`,
		`"\ud83d\ude00"`, `"\udcff"`, `[1,]`, `{"a" 1}`, `01`, `-`, `1.`, `.5`, `1e`, `"a`, `"\x41"`, `"\u12"`,
		`[1] x`, "\"\t\"", `nul`, `{"a":1,"a":2}`, ` [ 1 , { } ] `, `"\/"`, `1E+2`, `-0`, `[[[[]]]]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := New(Options{})
		defer r.Close()
		v, err := r.decodeJSON(in, r.null())
		if strings.Count(in, "[")+strings.Count(in, "{") > output.MaxDepth ||
			(err != nil && strings.Contains(err.Error(), "out of range")) {
			return // limits encoding/json does not have
		}
		require.Equal(t, json.Valid([]byte(in)), err == nil, "%q: %v", in, err)
		if err != nil || !utf8.ValidString(in) || strings.Contains(strings.ToLower(in), `\ud`) {
			return
		}
		var want any
		require.NoError(t, json.Unmarshal([]byte(in), &want))
		got, gerr := goValue(v, "value")
		require.NoError(t, gerr)
		assert.Equal(t, normalizeJSON(want), normalizeJSON(got), in)
	})
}

// normalizeJSON makes encoding/json's and fromLua's shapes comparable:
// kafka.json.null and nil are both null; an empty object is {} in both.
func normalizeJSON(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalizeJSON(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = normalizeJSON(e)
		}
		return out
	case string:
		if v == "userdata" { // how fromLua shows kafka.json.null
			return nil
		}
	}
	return v
}

func jsonString(s string) string {
	var b bytes.Buffer
	output.WriteJSONString(&b, s)
	return b.String()
}

// allBytesAndRandom: each byte alone, the hostile strings, and random
// byte strings (valid UTF-8 or not).
func allBytesAndRandom() []string {
	var out []string
	for c := range 256 {
		out = append(out, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for s := range hostile {
		out = append(out, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		out = append(out, string(b))
	}
	return out
}
