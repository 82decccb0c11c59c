package lua

import (
	"fmt"
	"testing"
)

// plainFormatArgs must not change what string.format prints (PATCHES.md, 5):
// each case is formatted with the Lua values, as upstream does, and with
// the plain ones.
func TestPlainFormatArgsSameOutput(t *testing.T) {
	vals := []LValue{LString("abc"), LString("12"), LString(""), LNumber(42), LNumber(-7), LNumber(3.25),
		LNumber(1e21), LNumber(0), LTrue, LNil}
	formats := []string{"%s", "%d", "%5d", "%-5d|", "%05d", "%x", "%X", "%o", "%c", "%e", "%E", "%f", "%.2f",
		"%10.3f", "%g", "%G", "%q", "%v", "%i", "%5s|", "%-5s|", "%.1s", "%+d", "% d", "%#x", "%%", "%s%05d",
		"%d %s %f", "%*d", "%[1]d", "a%", "%", "%d%%%s", "%u", "%b", "%U"}
	for _, f := range formats {
		for _, a := range vals {
			for _, b := range vals {
				args := []interface{}{a, b}
				want := fmt.Sprintf(f, args...)
				plain := []interface{}{a, b}
				plainFormatArgs(f, plain)
				if got := fmt.Sprintf(f, plain...); got != want {
					t.Errorf("format %q with %#v, %#v: %q, want %q", f, a, b, got, want)
				}
			}
		}
	}
}

func TestStringFormatInLua(t *testing.T) {
	L := NewState()
	defer L.Close()
	errorIfNotNil(t, L.DoString(`
		assert(string.format("%s%05d", "c-", 42) == "c-00042")
		assert(string.format("%.2f|%5s|%-3d|", 1/3, "ab", 7) == "0.33|   ab|7  |")
		assert(string.format("%d items", 3) == "3 items")
	`))
}
