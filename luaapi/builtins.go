package luaapi

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Built-in globals cannot be reassigned. A plugin's top-level code runs
// with the same globals as the user's script, so without this a plugin
// could wrap create_topics, replace kafka.dry_run or hand out a fake
// require("kafka"), and every script run with that plugin path would call
// the plugin's code believing it calls the tool's. The rule that a plugin
// function may not shadow a built-in (plugins_load.go) meant nothing while
// plain assignment could do it. The user's own script cannot reassign them
// either (docs/decisions.md): a local of the same name works and says
// what it means.
//
// Lua 5.1 calls __newindex only for a key that is absent, so a built-in
// cannot stay in the raw table it is assigned through:
//   - the globals present when the runtime is built (the base library,
//     the libraries, print, help, kafka, every admin function and alias)
//     stay in their table, which moves behind the __index of a new, empty
//     _G; assigning one of those names raises, any other name is the
//     user's global as before;
//   - kafka and its plain sub-tables (kafka.json, kafka.log, ...) become
//     empty proxies whose __index is the real table and whose __newindex
//     raises for any key;
//   - package.loaded keeps its built-in entries (kafka, string, ...) behind
//     __index the same way, so require("kafka") is always the tool's.
// The metatables carry __metatable: setmetatable on them raises and
// getmetatable (which here honours __metatable, as Lua's does) returns a
// string. rawset, rawget, pairs, setfenv and module, the base functions
// that reach around metatables, are wrapped (sandboxBase).
//
// The cost is one more table lookup for each read of a built-in global
// (the __index chain stays tables, which the VM follows without a call):
// docs/benchmarks.md has the numbers.

// builtinGuard is what protects the built-ins of one runtime.
type builtinGuard struct {
	tables  map[*lua.LTable]*sealed // _G, package.loaded and the kafka proxies
	loading string                  // the plugin whose module runs now, "" when none
	plugins map[string]string       // a plugin's file (chunk name) -> its name
}

// sealed is a protected table: its protected entries live in real.
type sealed struct {
	real *lua.LTable
	name string // "" for _G; "kafka", "kafka.json", "package.loaded"
	all  bool   // every key is refused (the kafka tables), not only real's
}

// refuses reports whether assigning k in the sealed table raises.
func (s *sealed) refuses(k lua.LValue) bool {
	return s.all || s.real.RawGet(k) != lua.LNil
}

// what names k in t for a message: "create_topics", "kafka.dry_run".
func (s *sealed) what(k lua.LValue) string {
	key := TerminalText(lua.LVAsString(k))
	if _, ok := k.(lua.LString); !ok {
		key = "[" + TerminalText(k.String()) + "]"
	}
	if s.name == "" {
		return key
	}
	return s.name + "." + key
}

// protectBuiltins moves the built-ins out of reach of assignment. It
// returns the table the built-in globals now live in, behind _G's __index.
func (r *Runtime) protectBuiltins() *lua.LTable {
	L := r.L
	g := r.guard()

	// The kafka proxies first: _G and package.loaded then hold the proxy.
	var kafka *lua.LTable
	if k, ok := L.G.Global.RawGetString("kafka").(*lua.LTable); ok {
		kafka = g.seal(L, k, "kafka")
		L.G.Global.RawSetString("kafka", kafka)
	}
	var loadedReal *lua.LTable
	if pkg, ok := L.G.Global.RawGetString("package").(*lua.LTable); ok {
		if loaded, ok := pkg.RawGetString("loaded").(*lua.LTable); ok {
			if kafka != nil {
				loaded.RawSetString("kafka", kafka)
			}
			loadedReal = g.moveBehind(L, loaded, "package.loaded")
		}
	}
	g.sandboxBase(L)
	// The table holding the globals so far becomes the built-ins table,
	// and a new empty table becomes _G: cheaper than moving a few hundred
	// entries. No Lua function exists yet whose environment is the old
	// table, and getfenv of a Go function answers _G.
	builtins, globals := L.G.Global, L.NewTable()
	builtins.RawSetString("_G", globals)
	if loadedReal != nil {
		loadedReal.RawSetString("_G", globals)
	}
	L.G.Global, L.Env = globals, globals
	globals.Metatable = g.metatable(L, globals, &sealed{real: builtins})
	return builtins
}

// seal makes a proxy of t (and of its plain sub-tables) that refuses every
// assignment.
func (g *builtinGuard) seal(L *lua.LState, t *lua.LTable, name string) *lua.LTable {
	var subs []lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		if sub, ok := v.(*lua.LTable); ok && sub.Metatable == lua.LNil {
			if _, ok := k.(lua.LString); ok {
				subs = append(subs, k)
			}
		}
	})
	for _, k := range subs {
		t.RawSet(k, g.seal(L, t.RawGet(k).(*lua.LTable), name+"."+lua.LVAsString(k)))
	}
	s := &sealed{real: t, name: name, all: true}
	proxy := L.NewTable()
	proxy.Metatable = g.metatable(L, proxy, s)
	return proxy
}

// moveBehind moves t's entries into a table behind t's __index, so that
// assigning one of them calls __newindex, which refuses. t keeps taking
// new keys (rawset there).
func (g *builtinGuard) moveBehind(L *lua.LState, t *lua.LTable, name string) *lua.LTable {
	real := L.NewTable()
	var keys []lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		real.RawSet(k, v)
		keys = append(keys, k)
	})
	for _, k := range keys {
		t.RawSet(k, lua.LNil)
	}
	s := &sealed{real: real, name: name}
	t.Metatable = g.metatable(L, t, s)
	return real
}

// metatable is the protected metatable of t, sealed as s.
func (g *builtinGuard) metatable(L *lua.LState, t *lua.LTable, s *sealed) *lua.LTable {
	g.tables[t] = s
	mt := L.NewTable()
	mt.RawSetString("__index", s.real)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		k, v := L.Get(2), L.Get(3)
		if s.refuses(k) {
			if !calledFromLua(L) && !s.all {
				s.real.RawSet(k, v) // the runtime's own Go code installing a built-in
				return 0
			}
			g.refuse(L, s.what(k))
		}
		L.RawSet(t, k, v)
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("protected: built-ins cannot be replaced"))
	return mt
}

// refuse raises the error for assigning the built-in what, naming the
// plugin that tried.
func (g *builtinGuard) refuse(L *lua.LState, what string) {
	if p := g.pluginAt(L); p != "" {
		L.RaiseError("plugin %q: cannot replace built-in %s", p, what)
	}
	hint := ""
	if !strings.ContainsAny(what, ".[") {
		hint = fmt.Sprintf(" (use a local of your own: local %s = ...)", what)
	}
	L.RaiseError("cannot replace built-in %s%s", what, hint)
}

// pluginAt is the plugin whose code is running: the one being loaded, or
// the one whose file the Lua function calling now comes from; "" for the
// user's own code.
func (g *builtinGuard) pluginAt(L *lua.LState) string {
	if g.loading != "" {
		return g.loading
	}
	for level := 1; level < 4; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return ""
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
			return ""
		}
		if dbg.What == "G" {
			continue // the base function (rawset) that called us
		}
		return g.plugins[dbg.Source]
	}
	return ""
}

// lookup is rawget through the protected tables: the value of k in t,
// including a built-in kept behind t's __index.
func (g *builtinGuard) lookup(t *lua.LTable, k lua.LValue) lua.LValue {
	if v := t.RawGet(k); v != lua.LNil {
		return v
	}
	if s, ok := g.tables[t]; ok {
		return s.real.RawGet(k)
	}
	return lua.LNil
}

// sandboxBase replaces the base functions that reach around a metatable.
// It runs while L.G.Global still holds every global (it becomes the
// built-ins table): the wrappers replace the originals there, and look the
// globals up as L.G.Global when called.
func (g *builtinGuard) sandboxBase(L *lua.LState) {
	G := L.G.Global
	orig := func(name string) lua.LGFunction {
		if fn, ok := G.RawGetString(name).(*lua.LFunction); ok && fn.IsG {
			return fn.GFunction
		}
		return nil
	}
	set := func(name string, fn lua.LGFunction) { G.RawSetString(name, L.NewFunction(fn)) }

	set("rawset", func(L *lua.LState) int {
		t := L.CheckTable(1)
		k := L.CheckAny(2)
		if s, ok := g.tables[t]; ok && s.refuses(k) {
			g.refuse(L, s.what(k))
		}
		L.RawSet(t, k, L.CheckAny(3))
		L.SetTop(1)
		return 1
	})
	set("rawget", func(L *lua.LState) int {
		L.Push(g.lookup(L.CheckTable(1), L.CheckAny(2)))
		return 1
	})
	// getmetatable honours __metatable, as Lua 5.1's does (gopher-lua's
	// returns the metatable itself).
	set("getmetatable", func(L *lua.LState) int {
		mt := L.GetMetatable(L.CheckAny(1))
		if t, ok := mt.(*lua.LTable); ok {
			if p := t.RawGetString("__metatable"); p != lua.LNil {
				mt = p
			}
		}
		L.Push(mt)
		return 1
	})
	// pairs over kafka (a proxy) walks the real table.
	if pairs, ok := G.RawGetString("pairs").(*lua.LFunction); ok && len(pairs.Upvalues) == 1 {
		iter := pairs.Upvalues[0].Value() // gopher-lua's pairs returns this iterator
		G.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
			t := L.CheckTable(1)
			if s, ok := g.tables[t]; ok && s.all {
				t = s.real
			}
			L.Push(iter)
			L.Push(t)
			L.Push(lua.LNil)
			return 3
		}))
	}
	// setfenv may give a function of the calling chunk (or one already
	// off the globals) another environment; it may not replace the
	// thread's globals (level 0) nor a caller's: either would let code
	// run another's calls through a table of its choosing.
	if setfenv := orig("setfenv"); setfenv != nil {
		set("setfenv", func(L *lua.LState) int {
			switch v := L.Get(1).(type) {
			case lua.LNumber:
				if v != 1 {
					L.RaiseError("setfenv: only level 1 (the calling function) can be given an environment")
				}
			case *lua.LFunction:
				if !v.IsG && v.Env == L.G.Global && v.Proto.SourceName != callerSource(L) {
					L.RaiseError("setfenv: cannot change the environment of a function of another chunk")
				}
			}
			return setfenv(L)
		})
	}
	// module("create_topics") would create the global table raw.
	if module := orig("module"); module != nil {
		set("module", func(L *lua.LState) int {
			name := L.CheckString(1)
			first, _, _ := strings.Cut(name, ".")
			if s := g.tables[L.G.Global]; s != nil && s.refuses(lua.LString(first)) {
				g.refuse(L, first)
			}
			return module(L)
		})
	}
}

// callerSource is the chunk name of the Lua function that called the
// running Go function.
func callerSource(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
		return ""
	}
	return dbg.Source
}

// isBuiltinGlobal reports whether name is a built-in global.
func (r *Runtime) isBuiltinGlobal(name string) bool {
	s := r.guard().tables[r.L.G.Global]
	return s != nil && s.real.RawGetString(name) != lua.LNil
}

// isBuiltinModule reports whether require(name) is one of the runtime's
// own modules (kafka, string, ...).
func (r *Runtime) isBuiltinModule(name string) bool {
	for t, s := range r.guard().tables {
		if s.name == "package.loaded" {
			return t.RawGetString(name) == lua.LNil && s.real.RawGetString(name) != lua.LNil
		}
	}
	return false
}

// loadingPlugin marks the plugin whose module runs until done is called:
// its assignments to built-ins are refused naming it.
func (r *Runtime) loadingPlugin(name, file string) (done func()) {
	g := r.guard()
	g.loading = name
	g.plugins[file] = name
	return func() { g.loading = "" }
}

// guard is the runtime's builtinGuard, made on first use.
func (r *Runtime) guard() *builtinGuard {
	if r.builtins == nil {
		r.builtins = &builtinGuard{tables: map[*lua.LTable]*sealed{}, plugins: map[string]string{}}
	}
	return r.builtins
}

// guardClientObject keeps a client object's methods (kafka.default's
// create_topics, ...) from being replaced by assigning the object's field,
// which would shadow the method behind __index; other fields stay free.
func (r *Runtime) guardClientObject(obj, mt, methods *lua.LTable) {
	g := r.guard()
	s := &sealed{real: methods, name: "client"}
	g.tables[obj] = s // for rawset
	mt.RawSetString("__newindex", r.L.NewFunction(func(L *lua.LState) int {
		t, k := L.CheckTable(1), L.Get(2)
		if s.refuses(k) {
			g.refuse(L, s.what(k))
		}
		L.RawSet(t, k, L.Get(3))
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("protected: built-ins cannot be replaced"))
}
