package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// A misspelt function name in Lua reads an undefined global, which is nil,
// and calling nil fails with gopher-lua's nameless "attempt to call a
// non-function object". Lua gives no other hint, and in a runbook the typo
// may sit in a branch that runs once, in production. So reading an
// undefined global whose name is close to a global function or library
// table raises "unknown global 'lagg' (did you mean 'lag'?)". Any other
// undefined global still reads as nil: `if x == nil` keeps working.

// maxGlobalMemo bounds the answers remembered per name: a script that
// reads _G["k"..i] for a million i must not grow the memo a million.
const maxGlobalMemo = 4096

// globalGuard is the metatable of _G and what it remembers.
type globalGuard struct {
	names []string          // global functions and tables; nil: to be listed
	memo  map[string]string // undefined name -> suggestion ("" for none)
}

// installGlobalGuard moves the built-ins behind _G's __index, where
// assignment cannot replace them (builtins.go), and gives that table an
// __index that suggests: reading an absent global ends there.
func (r *Runtime) installGlobalGuard() {
	L := r.L
	g := &globalGuard{memo: map[string]string{}}
	r.globalsChanged = func() { g.names, g.memo = nil, map[string]string{} } // a new global: forget
	builtins := r.protectBuiltins()
	lookup := func(name string) lua.LValue { return r.builtins.lookup(L.G.Global, lua.LString(name)) }
	each := func(fn func(k, v lua.LValue)) {
		L.G.Global.ForEach(fn)
		builtins.ForEach(fn)
	}
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name, ok := L.Get(2).(lua.LString)
		// Only a read by Lua code raises. Go code (GetGlobal) reading a
		// global that may be absent gets nil, as it expects.
		if ok && calledFromLua(L) {
			if s := g.suggestion(lookup, each, string(name)); s != "" {
				L.RaiseError("unknown global '%s' (did you mean '%s'?)", TerminalText(string(name)), s)
			}
		}
		L.Push(lua.LNil)
		return 1
	}))
	builtins.Metatable = mt
}

// suggestion is the global function or table that name misspells, or "".
// Setting a global to nil goes unnoticed (__newindex is not called for a
// key that exists), so a remembered name is checked before it is used.
func (g *globalGuard) suggestion(lookup func(string) lua.LValue, each func(func(k, v lua.LValue)), name string) string {
	if s, ok := g.memo[name]; ok && (s == "" || isCallable(lookup(s))) {
		return s
	}
	for {
		if g.names == nil {
			g.names = []string{}
			each(func(k, v lua.LValue) {
				if ks, ok := k.(lua.LString); ok && isCallable(v) {
					g.names = append(g.names, string(ks))
				}
			})
		}
		s := suggest(name, g.names)
		if s != "" && !isCallable(lookup(s)) {
			g.names, g.memo = nil, map[string]string{} // gone since listed: list again
			continue
		}
		if len(g.memo) >= maxGlobalMemo {
			g.memo = map[string]string{}
		}
		g.memo[name] = s
		return s
	}
}

// isCallable: what a misspelt global name was meant to be, a function or
// a library table (kafak.connect).
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
