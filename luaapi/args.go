package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// argErr is a bad-argument error. The dispatcher prefixes the function name:
// "create_topics: spec #2: partitions must be a positive integer, got "x"".
func argErr(where, format string, args ...any) *engine.Error {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	return &engine.Error{Code: engine.CodeInvalidArgument, Message: msg}
}

// maxDescribed is how much of a string an error message quotes.
const maxDescribed = 64

// describe renders a Lua value for "got ..." in error messages.
func describe(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		// A long value is cut: an error message must not carry a megabyte.
		if len(v) > maxDescribed {
			return fmt.Sprintf("%q... (%d bytes)", string(v[:maxDescribed]), len(v))
		}
		return fmt.Sprintf("%q", string(v))
	case lua.LNumber, lua.LBool:
		return v.String()
	case *lua.LNilType:
		return "nil"
	default:
		return v.Type().String()
	}
}
