package starter

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// What new writes passes its own tests, as written.
func TestNewRunbookAndPluginPassTheirTests(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			wrote, err := Write(kind, "rotate-"+kind, dir, false)
			require.NoError(t, err)
			assert.Contains(t, wrote, filepath.Join(dir, "rotate-"+kind+"_test.lua"))
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			sum, err := luatest.Run(ctx, luatest.Options{Paths: []string{dir}, Stdout: &out})
			require.NoError(t, err)
			assert.Equal(t, 0, sum.Failed, out.String())
			assert.GreaterOrEqual(t, sum.Passed, 3, out.String())
		})
	}
}

func TestNewRefusesBadNamesAndOverwrites(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"", "a/b", "../x", "1abc", "x_test", "a b"} {
		_, err := Write("runbook", name, dir, false)
		assert.Error(t, err, name)
	}
	_, err := Write("script", "x", dir, false)
	assert.ErrorContains(t, err, "kind must be one of runbook, plugin")

	_, err = Write("runbook", "x", dir, false)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.lua"), []byte("-- mine"), 0o644))
	_, err = Write("runbook", "x.lua", dir, false)
	assert.ErrorContains(t, err, "exists already (--force overwrites)")
	b, _ := os.ReadFile(filepath.Join(dir, "x.lua"))
	assert.Equal(t, "-- mine", string(b), "nothing overwritten")
	wrote, err := Write("runbook", "x", dir, true)
	require.NoError(t, err)
	assert.NotContains(t, wrote, filepath.Join(dir, "lib", "args.lua"), "the library there is kept")
}
