package scripts_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// The runbooks' own tests, written in Lua (scripts/tests/*_test.lua), as
// `kadmin-lua test scripts/tests` runs them: each on a fresh in-process
// cluster, through the runbooks on disk.
func TestRunbooksLuaTests(t *testing.T) {
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sum, err := luatest.Run(ctx, luatest.Options{Paths: []string{"tests"}, Stdout: &out})
	require.NoError(t, err)
	t.Log("\n" + out.String())
	assert.Zero(t, sum.Failed, out.String())
	// Every runbook has its tests.
	tested := map[string]bool{}
	for _, r := range sum.Results {
		tested[r.File] = true
	}
	for _, name := range scripts.Names() {
		assert.True(t, tested["tests/"+name+"_test.lua"], "runbook %s has no tests/%s_test.lua", name, name)
	}
}
