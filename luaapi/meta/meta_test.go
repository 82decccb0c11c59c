package meta

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// -update (or KADMIN_UPDATE_DOCS=1, as make docs sets for the other
// generated files) rewrites the committed copy in types/.
var update = flag.Bool("update", false, "rewrite types/ from the declarations")

// typesDir is the committed copy of the generated definitions.
const typesDir = "../../types"

// LuacheckFile is the committed luacheck configuration's name in types/.
const luacheckFile = "kadmin.luacheckrc"

func committed() map[string]string {
	f := Generate(nil)
	return map[string]string{LuaLSFile: f.LuaLS, LuaLSTestFile: f.LuaLSTest, LuaRCFile: f.LuaRC, luacheckFile: f.Luacheck}
}

func TestDefinitionsAreFresh(t *testing.T) {
	files := committed()
	if *update || os.Getenv("KADMIN_UPDATE_DOCS") == "1" {
		require.NoError(t, os.MkdirAll(typesDir, 0o755))
		for name, text := range files {
			require.NoError(t, os.WriteFile(filepath.Join(typesDir, name), []byte(text), 0o644))
		}
	}
	for name, text := range files {
		got, err := os.ReadFile(filepath.Join(typesDir, name))
		require.NoError(t, err, "types/%s is missing: run make docs", name)
		assert.Equal(t, text, string(got), "types/%s is stale: run make docs and commit it", name)
	}
}

// Every declared function is in every file, under each of its names; the
// admin functions as globals and as client methods; destructive ones say
// so where the editor shows a function's documentation.
func TestDefinitionsCoverEveryFunction(t *testing.T) {
	f := Generate(nil)
	for _, fn := range luaapi.Funcs() {
		for _, name := range append([]string{fn.Name}, fn.Aliases...) {
			if fn.IsAdmin() {
				assert.Contains(t, f.LuaLS, "\nfunction "+name+"(", name)
				assert.Contains(t, f.LuaLS, "\nfunction Client:"+name+"(", name)
				assert.Regexp(t, `\n {4}`+regexp.QuoteMeta(name)+` = \{\},`, f.Luacheck, name)
			} else {
				assert.Contains(t, f.LuaLS, "\nfunction "+name+"(", name)
				last := name[strings.LastIndex(name, ".")+1:]
				assert.Regexp(t, `\n +`+regexp.QuoteMeta(last)+` = \{\},`, f.Luacheck, name)
			}
		}
		stub := regexp.MustCompile(`(?s)---[^\n]*\n(?:---[^\n]*\n)*function ` + regexp.QuoteMeta(fn.Name) + `\(`).FindString(f.LuaLS)
		require.NotEmpty(t, stub, fn.Name)
		assert.Equal(t, fn.Destructive, strings.Contains(stub, "**DESTRUCTIVE**"), fn.Name)
		for _, o := range fn.AllOptions() {
			assert.Contains(t, f.LuaLS, "---@field "+o.Name, "%s option %s", fn.Name, o.Name)
		}
	}
	assert.Contains(t, f.LuaLS, "---@return kadmin.Client\nfunction kafka.connect(args) end")
	assert.Contains(t, f.LuaLS, "function Client:close() end", "client methods beyond the admin functions come from a live client")
	assert.Contains(t, f.LuaLS, `---@field resource_type "topic"|"group"|"cluster"|"transactional_id"|"delegation_token"|"user"`,
		"an enum is a union of literals")
	assert.NotContains(t, f.Luacheck, "exit = ", "os.exit is not in the runtime")
	assert.NotContains(t, f.LuaRC, "Error", "severities differ between language servers: none are set")
}

// Plugins' functions are globals in both files.
func TestDefinitionsIncludePluginFunctions(t *testing.T) {
	rt := luaapi.New(luaapi.Options{PluginPath: []string{"../../examples/plugins"}})
	defer rt.Close()
	require.NoError(t, rt.LoadPlugins(t.Context()))
	f := Generate(rt.Plugins())
	assert.Contains(t, f.LuaLS, "function empty_topics(...) end")
	assert.Contains(t, f.LuaLS, "From plugin topic-tools.")
	assert.Contains(t, f.Luacheck, "    empty_topics = {},")
}

// Every test function is in the test definitions and the test standard,
// from the list the runner installs them from; none is in the runbooks'.
func TestTestDefinitionsCoverEveryTestFunction(t *testing.T) {
	f := Generate(nil)
	for _, g := range luatest.Globals {
		owner, key, method := g.Owner()
		switch {
		case g.Is != "":
			assert.Contains(t, f.LuaLSTest, "\n"+ownerLocal(owner)+"."+key+" = nil\n", g.Name)
		case owner == "" && g.Declared():
			assert.Contains(t, f.LuaLSTest, "\nfunction "+g.Name+"(", g.Name)
		case method:
			assert.Contains(t, f.LuaLSTest, "\nfunction "+ownerLocal(owner)+":"+key+"(", g.Name)
		case owner != "":
			assert.Contains(t, f.LuaLSTest, "\nfunction "+ownerLocal(owner)+"."+key+"(", g.Name)
		}
		if !method && (owner == "" || globalNamed(owner) != nil) { // an expectation is no global
			assert.Regexp(t, `\n +`+regexp.QuoteMeta(key)+` = \{`, f.Luacheck[strings.Index(f.Luacheck, "stds.kadmin_test"):], g.Name)
		}
		if owner == "" {
			assert.NotContains(t, f.LuaLS, "\nfunction "+g.Name+"(", g.Name)
		}
	}
	assert.Contains(t, f.LuaLSTest, "---@return kadmin.test.Expectation\nfunction expect(got) end")
	assert.Contains(t, f.Luacheck, `files["/**/*_test.lua"] = {std = "+kadmin_test"}`)
}

func ownerLocal(owner string) string { _, local := ownerClass(owner); return local }
