//go:build linux

package luaapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A script cannot open a file of procfs, whichever path or library
// function leads there: the process's environment (KADMIN_AUDIT_KEY, a
// fleet's other passwords), command line and memory are there.
func TestScriptsCannotOpenProcFS(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "innocent.txt")
	require.NoError(t, os.Symlink("/proc/self/environ", link))
	paths := []string{
		"/proc/self/environ",
		fmt.Sprintf("/proc/%d/environ", os.Getpid()),
		"/proc/thread-self/environ",
		"/proc/self/task/../environ",
		"/proc/self/cmdline",
		"/proc/self/mem",
		"/dev/fd/../environ", // /dev/fd is /proc/self/fd
		"/proc",
		link, // a name that does not say /proc
	}
	r := newBareRuntime(t)
	for _, p := range paths {
		for _, src := range []string{
			`local f, err = io.open(%q); assert(f == nil, "opened"); error(err, 0)`,
			`local f, err = io.open(%q, "r+"); assert(f == nil, "opened"); error(err, 0)`,
			`local f, err = loadfile(%q); assert(f == nil, "loaded"); error(err, 0)`,
			`dofile(%q)`,
			`io.input(%q)`,
			`for l in io.lines(%q) do error("read " .. l) end error("no lines", 0)`,
			`return coroutine.wrap(function() local f, err = io.open(%q); assert(f == nil, "opened"); error(err, 0) end)()`,
		} {
			src := fmt.Sprintf(src, p)
			_, err := r.DoString(context.Background(), "t", src)
			require.Error(t, err, src)
			assert.NotContains(t, err.Error(), "opened", src)
			assert.NotContains(t, err.Error(), "read ", src)
		}
		// The message says why (io.open and dofile name the path).
		vals, err := r.DoString(context.Background(), "t", fmt.Sprintf(`return select(2, io.open(%q))`, p))
		require.NoError(t, err)
		assert.Equal(t, lua.LString("open "+p+": "+errProcFS.Error()), vals[0], p)
	}
	// require, through a package.path into /proc.
	_, err := r.DoString(context.Background(), "t", `package.path = "/proc/self/?"; return require("environ")`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scripts may not open it")

	// Other files open as before, for reading and writing.
	out := filepath.Join(dir, "out.txt")
	vals, err := r.DoString(context.Background(), "t", fmt.Sprintf(`
		local f = assert(io.open(%q, "w")); f:write("kept"); f:close()
		return io.open(%q):read("*a")`, out, out))
	require.NoError(t, err)
	assert.Equal(t, lua.LString("kept"), vals[0])
}
