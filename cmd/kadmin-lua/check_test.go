package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/luaapi/meta"
)

// gcc-style lines, exit 2 on findings, then the changes as notes; no
// cluster is needed (unreachable brokers do not matter).
func TestCheckCommandFindings(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"bad.lua":  "lagg()\ndelete_topics(\"t\", {if_exist = true})\n",
		"good.lua": "local rows = list_topics()\nreturn rows\n",
	})
	bad, good := filepath.Join(dir, "bad.lua"), filepath.Join(dir, "good.lua")
	c := newCLI(t)
	c.env["KADMIN_BROKERS"] = closedPort(t)
	require.Equal(t, ExitUsage, c.run("check", good, bad))
	assert.Equal(t, bad+":1:1: unknown global 'lagg' (did you mean 'lag'?)\n"+
		bad+`:2:1: delete_topics: options: unknown key "if_exist" (did you mean "if_exists"?) (allowed: if_exists, partial)`+"\n"+
		bad+":2:1: note: changes the cluster, destructive: delete_topics\n", c.stdout.String())
	assert.Equal(t, "kadmin-lua: check: 2 findings in 2 files\n", c.stderr.String())

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("check", good))
	assert.Empty(t, c.stdout.String())
	assert.Empty(t, c.stderr.String())
}

func TestCheckCommandJSON(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"bad.lua": "create_topics{{name = \"t\", partitions = 0}}\nlocal x = = 1\n",
		"ok.lua":  "create_topics{\"t\"}\n",
	})
	bad, ok := filepath.Join(dir, "bad.lua"), filepath.Join(dir, "ok.lua")
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("check", "--json", ok, bad))
	var out struct {
		Files []struct {
			File     string `json:"file"`
			Findings []struct {
				Line    int    `json:"line"`
				Col     int    `json:"col"`
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"findings"`
			Changes []struct {
				Line        int    `json:"line"`
				Function    string `json:"function"`
				Destructive bool   `json:"destructive"`
			} `json:"changes"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &out), c.stdout.String())
	require.Len(t, out.Files, 2)
	assert.Equal(t, ok, out.Files[0].File)
	assert.Empty(t, out.Files[0].Findings)
	require.Len(t, out.Files[0].Changes, 1)
	assert.Equal(t, "create_topics", out.Files[0].Changes[0].Function)
	require.Len(t, out.Files[1].Findings, 1, "a syntax error stops the file's check")
	assert.Equal(t, "syntax", out.Files[1].Findings[0].Kind)
	assert.Equal(t, 2, out.Files[1].Findings[0].Line)
}

// A directory is its *.lua files, test files among them; what ships is
// clean, the runbooks' tests (scripts/tests) included.
func TestCheckCommandOnTheShippedRunbooks(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", "../../examples/plugins", "check", "../../scripts", "../../examples"))
	out := c.stdout.String()
	assert.Contains(t, out, "../../scripts/reset-offsets.lua:73:14: note: changes the cluster, destructive: reset_offsets\n")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		assert.Contains(t, line, ": note: ", "only notes: %s", line)
	}

	dir := testfiles.Tree(t, map[string]string{
		"x_test.lua": "test(\"x\", function() expect(lagg()):is(1) end)\n",
		"lib/y.lua":  "return {}\n",
	})
	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("check", dir))
	assert.Equal(t, filepath.Join(dir, "x_test.lua")+":1:29: unknown global 'lagg' (did you mean 'lag'?)\n", c.stdout.String())
}

func TestCheckCommandMistakes(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("check", filepath.Join(t.TempDir(), "missing.lua")))
	assert.Contains(t, c.stderr.String(), "missing.lua")
	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("check"))
	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("check", t.TempDir()))
	assert.Contains(t, c.stderr.String(), "no .lua file in")
}

func TestMetaCommandWritesTheDefinitions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "types")
	rc := filepath.Join(t.TempDir(), "kadmin.luacheckrc")
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", "../../examples/plugins", "meta", "--luals", dir, "--luacheck", rc))
	defs, err := os.ReadFile(filepath.Join(dir, meta.LuaLSFile))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(defs), "---@meta"))
	assert.Contains(t, string(defs), "function empty_topics(...) end", "the plugin's function")
	_, err = os.ReadFile(filepath.Join(dir, meta.LuaRCFile))
	require.NoError(t, err)
	testDefs, err := os.ReadFile(filepath.Join(dir, meta.LuaLSTestFile))
	require.NoError(t, err)
	assert.Contains(t, string(testDefs), "\nfunction test(name, fn, options) end\n", "the test functions")
	std, err := os.ReadFile(rc)
	require.NoError(t, err)
	assert.Contains(t, string(std), `std = "kadmin"`)
	assert.Contains(t, string(std), `files["/**/*_test.lua"] = {std = "+kadmin_test"}`)

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("meta", "--luacheck", "-"))
	assert.Equal(t, meta.Generate(nil).Luacheck, c.stdout.String())
	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("meta"))
	assert.Contains(t, c.stderr.String(), "give --luals DIR, --luacheck FILE or both")
}
