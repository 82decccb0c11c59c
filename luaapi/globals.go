package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// A misspelt function name in Lua reads an undefined global, which is nil,
// and calling nil fails with gopher-lua's nameless "attempt to call a
// non-function object". Lua gives no other hint, and in a runbook the typo
// may sit in a branch that runs once, in production. So calling nil says
// which name was called and, for a global or a method, which one it most
// likely misspells: "attempt to call nil 'lagg': did you mean 'lag'?".
//
// Reading an undefined global is nil, as Lua users expect, whatever its
// name: `seen = (seen or 0) + 1` must not break the day a built-in named
// `peek` is added. `kadmin-lua check` finds misspelt reads before a run
// (docs/decisions.md).

// installCallHint gives nil a metatable whose __call raises the named
// error. Lua calls it only where calling nil would fail anyway, so nothing
// that works changes; getmetatable(nil) answers the __metatable string.
func (r *Runtime) installCallHint() {
	L := r.L
	mt := L.NewTable()
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s", r.nilCallMessage(L))
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("protected: built-ins cannot be replaced"))
	L.SetMetatable(lua.LNil, mt)
}

// nilCallMessage says what was called: "attempt to call nil 'lagg': did
// you mean 'lag'?", or Lua's "attempt to call a nil value" when the call
// has no name (a table item, a call from Go).
func (r *Runtime) nilCallMessage(L *lua.LState) string {
	dbg, ok := L.GetStack(0)
	if !ok {
		return "attempt to call a nil value"
	}
	if _, err := L.GetInfo("n", dbg, lua.LNil); err != nil || dbg.NameWhat == "" {
		return "attempt to call a nil value"
	}
	msg := fmt.Sprintf("attempt to call nil '%s'", TerminalText(dbg.Name))
	var near string
	switch dbg.NameWhat {
	case "global":
		near = suggest(dbg.Name, r.callableGlobals())
	case "method":
		// __call gets nil, then the call's arguments: the receiver first.
		if recv, ok := L.Get(2).(*lua.LTable); ok {
			near = suggest(dbg.Name, callableKeys(recv))
		}
	}
	if near != "" {
		msg += fmt.Sprintf(": did you mean '%s'?", near)
	}
	return msg
}

// callableGlobals are the global functions and tables, the built-in ones
// and the script's own: what a misspelt call meant.
func (r *Runtime) callableGlobals() []string {
	var names []string
	add := func(k, v lua.LValue) {
		if ks, ok := k.(lua.LString); ok && isCallable(v) {
			names = append(names, string(ks))
		}
	}
	r.L.G.Global.ForEach(add)
	if mt, ok := r.L.G.Global.Metatable.(*lua.LTable); ok {
		if builtins, ok := mt.RawGetString("__index").(*lua.LTable); ok {
			builtins.ForEach(add)
		}
	}
	return names
}

// callableKeys are t's function-valued keys, and those of the tables its
// __index chain leads to (a client object's methods).
func callableKeys(t *lua.LTable) []string {
	var names []string
	ForEachField(t, func(k, v lua.LValue) {
		if ks, ok := k.(lua.LString); ok && isCallable(v) {
			names = append(names, string(ks))
		}
	})
	return names
}

// ForEachField calls fn with t's entries, then with those of the tables
// its __index chain leads to (a client's methods, the built-ins behind
// _G), at most 8 tables deep. Metatables are read raw: the sealed ones say
// __metatable. A key found again further down is given again.
func ForEachField(t *lua.LTable, fn func(k, v lua.LValue)) {
	for range 8 {
		t.ForEach(fn)
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			return
		}
		next, ok := mt.RawGetString("__index").(*lua.LTable)
		if !ok {
			return
		}
		t = next
	}
}

// isCallable: what a misspelt name was meant to be, a function or a
// library table (kafak.connect).
func isCallable(v lua.LValue) bool {
	switch v.(type) {
	case *lua.LFunction, *lua.LTable:
		return true
	}
	return false
}

// calledFromLua reports whether the function running now was called by
// Lua code rather than by Go.
func calledFromLua(L *lua.LState) bool {
	dbg, ok := L.GetStack(1)
	if !ok {
		return false
	}
	if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
		return false
	}
	return dbg.What != "G"
}

// unknownGlobalHint is for help(name) and the like: " (did you mean
// 'lag'?)" or "".
func unknownGlobalHint(name string, candidates []string) string {
	if s := suggest(name, candidates); s != "" {
		return fmt.Sprintf(" (did you mean '%s'?)", s)
	}
	return ""
}
