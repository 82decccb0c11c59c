package meta

import (
	"encoding/json"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// The file names `kadmin-lua meta --luals DIR` writes into DIR.
const (
	LuaLSFile = "kadmin.lua"
	// LuaLSTestFile defines the test functions of *_test.lua files.
	LuaLSTestFile = "kadmin-test.lua"
	LuaRCFile     = ".luarc.json"
)

// Files are the generated definitions, ready to write.
type Files struct {
	LuaLS, LuaLSTest, LuaRC, Luacheck string
}

// Generate renders every file from the declarations, a fresh runtime and
// the plugins loaded (nil: none).
func Generate(plugins []*luaapi.Plugin) Files {
	s := LiveSurface()
	var pfs []PluginFunc
	for _, p := range plugins {
		for _, f := range p.Functions {
			pfs = append(pfs, PluginFunc{Name: f.Name, Args: f.Args, Summary: f.Summary, Doc: f.Doc, Plugin: p.Name})
		}
	}
	var extras []string
	for _, m := range s.ClientMethods {
		if f := luaapi.Lookup(m); f == nil || !f.IsAdmin() {
			extras = append(extras, m)
		}
	}
	return Files{LuaLS: LuaLS(pfs, extras), LuaLSTest: LuaLSTest(), LuaRC: luaRC(s), Luacheck: Luacheck(s, pfs) + "\n" + luacheckTest()}
}

// luaRC is the language server's configuration for a folder of runbooks:
// Lua 5.1 (gopher-lua's), without the standard libraries the runtime
// leaves out.
func luaRC(s *Surface) string {
	builtin := map[string]string{}
	for _, lib := range []string{"debug", "bit", "bit32", "utf8", "ffi", "jit"} {
		if s.globals.fields[lib] == nil {
			builtin[lib] = "disable"
		}
	}
	rc := map[string]any{
		"$schema":                   "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
		"runtime.version":           "Lua 5.1",
		"runtime.builtin":           builtin,
		"workspace.checkThirdParty": false,
	}
	b, _ := json.MarshalIndent(rc, "", "  ")
	return string(b) + "\n"
}
