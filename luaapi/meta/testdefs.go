package meta

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// The test functions `kadmin-lua test` gives a *_test.lua file (test,
// fixture, run, expect, assert.same, fault, ...) are written from
// luatest.Globals, the list the test runner installs them from, with the
// same typer as the built-ins: a LuaLS file of their own, and a luacheck
// standard applied to test files.

// ownerClass is the class of a table of test functions ("assert",
// "expectation") and the local the stubs are written on.
func ownerClass(owner string) (class, local string) {
	local = strings.ToUpper(owner[:1]) + owner[1:]
	return "kadmin.test." + local, local
}

// owners are the tables the test functions belong to, in order.
func owners() []string {
	var out []string
	for _, g := range luatest.Globals {
		if owner, _, _ := g.Owner(); owner != "" && !slices.Contains(out, owner) {
			out = append(out, owner)
		}
	}
	return out
}

// LuaLSTest renders the definition file of the test functions.
func LuaLSTest() string {
	ty := newTyper()
	ty.wordClasses = map[string]string{}
	var body strings.Builder
	for _, owner := range owners() {
		class, local := ownerClass(owner)
		ty.wordClasses[owner] = class
		doc := "What `expect(got)` returns: its checks are methods, `expect(got):is(want)`."
		if g := globalNamed(owner); g != nil {
			doc = oneLine(g.Summary)
		}
		fmt.Fprintf(&body, "---%s\n---@class %s\n", doc, class)
		if g := globalNamed(owner); g != nil {
			// A global table that is also called: assert(v, msg) is Lua's.
			fmt.Fprintf(&body, "---@overload fun(v: any, msg?: any, ...: any): any\n")
		}
		fmt.Fprintf(&body, "local %s = {}\n\n", local)
	}
	for _, g := range luatest.Globals {
		owner, key, method := g.Owner()
		stub := g.Name
		if owner != "" {
			_, local := ownerClass(owner)
			stub = local + "." + key
			if method {
				stub = local + ":" + key
			}
		}
		switch {
		case g.Is != "":
			class, _ := ownerClass(g.Is)
			fmt.Fprintf(&body, "---%s\n---@type %s\n%s = nil\n\n", oneLine(g.Summary), class, stub)
		case slices.Contains(owners(), g.Name): // assert: its class says it
			class, _ := ownerClass(g.Name)
			fmt.Fprintf(&body, "---%s\n---@type %s\n%s = nil\n\n", oneLine(g.Summary), class, g.Name)
		case !g.Declared():
			fmt.Fprintf(&body, "---%s\n---\n---%s%s\n---@param ... any\n---@return any\nfunction %s(...) end\n\n",
				oneLine(g.Summary), g.Name, g.Args, stub)
		default:
			writeFunc(&body, ty, g.Func, g.Name, stub, g.Results...)
		}
	}
	var b strings.Builder
	b.WriteString("---@meta kadmin-lua-test\n")
	b.WriteString("-- The functions kadmin-lua test gives a test file (*_test.lua), for the Lua language server, generated\n")
	b.WriteString("-- by `kadmin-lua meta --luals DIR` (`make docs`) from the list the test runner installs them from.\n")
	b.WriteString("-- Do not edit: regenerate. An editor defines them in every file of the folder; kadmin-lua check and the\n")
	b.WriteString("-- luacheck standard know them in *_test.lua files only.\n\n")
	for _, c := range ty.classes {
		writeClass(&b, c)
	}
	b.WriteString(body.String())
	return b.String()
}

// globalNamed is the test function or table called name, or nil.
func globalNamed(name string) *luatest.Global {
	for i := range luatest.Globals {
		if luatest.Globals[i].Name == name {
			return &luatest.Globals[i]
		}
	}
	return nil
}

// luacheckTest renders the standard "kadmin_test", the test functions as
// read-only globals with assert's fields, and applies it to test files.
// The pattern is absolute: luacheck matches a relative one only below
// the directory it runs in, and test files are found wherever they are.
func luacheckTest() string {
	tables := map[string]*node{}
	for _, owner := range owners() {
		tables[owner] = &node{fields: map[string]*node{}}
	}
	top := map[string]*node{}
	var aliases []luatest.Global
	for _, g := range luatest.Globals {
		owner, key, method := g.Owner()
		switch {
		case method:
			continue // a method of a value, not of a global
		case g.Is != "":
			aliases = append(aliases, g)
		case owner == "" && tables[g.Name] != nil:
			top[g.Name] = tables[g.Name]
		case owner == "":
			top[g.Name] = &node{}
		default:
			tables[owner].fields[key] = &node{}
		}
	}
	// assert.are.same: an alias holds its table's functions, one level deep.
	for _, g := range aliases {
		owner, key, _ := g.Owner()
		fields := map[string]*node{}
		for k, n := range tables[g.Is].fields {
			fields[k] = n
		}
		tables[owner].fields[key] = &node{fields: fields}
	}
	var b strings.Builder
	b.WriteString("-- kadmin-lua test's functions, in test files (*_test.lua) only.\n")
	b.WriteString("stds.kadmin_test = {\n  read_globals = {\n")
	for _, name := range sortedKeys(top) {
		writeNode(&b, name, top[name], 2)
	}
	b.WriteString("  },\n}\nfiles[\"/**/*_test.lua\"] = {std = \"+kadmin_test\"}\n")
	return b.String()
}
