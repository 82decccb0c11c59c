package lua

import (
	"errors"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"
)

// String literals read \xXX, two hexadecimal digits, as the byte they name
// (Lua 5.2), so that strings printed with \x escapes read back exactly.

func TestHexEscapes(t *testing.T) {
	cases := map[string]string{
		`"\x1b[31m"`:     "\x1b[31m",
		`"\x41\x62"`:     "Ab",
		`'\xff\x00\x7F'`: "\xff\x00\x7f",
		`"a\x2Fb"`:       "a/b",
		`"\x4142"`:       "A42", // two digits only
	}
	for src, want := range cases {
		L := NewState()
		if err := L.DoString("s = " + src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := L.GetGlobal("s").String(); got != want {
			t.Errorf("%s: got %q, want %q", src, got, want)
		}
		L.Close()
	}
}

func TestHexEscapeNeedsTwoDigits(t *testing.T) {
	for _, src := range []string{`s = "\x4"`, `s = "\xZZ"`, `s = "\x`, `s = "ab\xg1"`} {
		_, err := parse.Parse(strings.NewReader(src), "t")
		var pe *parse.Error
		if !errors.As(err, &pe) || pe.Message != "hexadecimal digit expected" {
			t.Errorf("%s: got %v, want a hexadecimal digit error", src, err)
		}
	}
}
