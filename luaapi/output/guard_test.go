package output

import (
	"testing"

	"github.com/stretchr/testify/assert"
	lua "github.com/yuin/gopher-lua"
)

func TestGuardPaths(t *testing.T) {
	g := NewGuard("value")
	assert.Equal(t, "value", g.path(nil))
	assert.Equal(t, `value.a[2]["a b"][boolean]`, (&Guard{root: "value",
		keys: []lua.LValue{lua.LNil, lua.LString("a"), lua.LNumber(2), lua.LString("a b")}}).path(lua.LTrue))
}
