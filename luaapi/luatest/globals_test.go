package luatest

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Every name Globals lists is set in a test file's state, and nothing else
// is added there.
func TestGlobalsAreInstalled(t *testing.T) {
	before := luaapi.New(luaapi.Options{Stdout: io.Discard, Stderr: io.Discard})
	defer before.Close()
	rt := luaapi.New(luaapi.Options{Stdout: io.Discard, Stderr: io.Discard})
	defer rt.Close()
	(&testEnv{r: &runner{}, rt: rt, collect: &collected{}}).install()

	var added []string
	rt.L.G.Global.ForEach(func(k, _ lua.LValue) {
		if before.L.G.Global.RawGet(k) == lua.LNil {
			added = append(added, lua.LVAsString(k))
		}
	})
	var listed []string
	for _, g := range Globals {
		name, field, isField := strings.Cut(g.Name, ".")
		if !isField {
			listed = append(listed, name)
			continue
		}
		v, err := rt.DoString(context.Background(), "check", "return type("+name+"."+field+")")
		require.NoError(t, err)
		assert.Equal(t, "function", v[0].String(), g.Name)
	}
	assert.ElementsMatch(t, listed, added)
}
