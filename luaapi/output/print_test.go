package output

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	lua "github.com/yuin/gopher-lua"
)

func TestAppendLuaNumberIsToString(t *testing.T) {
	for _, f := range []float64{0, -0.0, 1, -1, 0.5, 1e15, 1e16, 1e21, 123456789012, 1.0 / 3, -2.5e-7, 9007199254740993} {
		n := lua.LNumber(f)
		assert.Equal(t, n.String(), string(appendLuaNumber(nil, n)), fmt.Sprint(f))
	}
}
