package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/kadmin-lua/kadmin-lua/engine/redact"
)

// A spec is data (DESIGN.md, invariant 8): reading one sends no request,
// reads no secret and changes nothing, within bounded memory and time. A
// Lua spec is therefore not run in a script's runtime (which has the
// cluster, io, require and the whole environment) but in a state of its
// own that has only what computing a table needs: the base functions
// without file access, string, table, math, os.time/date/clock/difftime,
// and kafka.env, which refuses kadmin-lua's own variables and secrets.
// Everything else a script has is absent, and naming it raises an error
// that says so. Most specs never get here: a data-only chunk is read by
// spec_literal.go without running anything.

// DefaultSpecTimeLimit bounds how long a Lua spec may compute: far above
// any real spec (generating thousands of rows takes milliseconds), low
// enough that `while true do end` in a pull request fails its CI job
// instead of hanging it.
const DefaultSpecTimeLimit = 10 * time.Second

// SpecOptions bound the reading of a spec (ReadSpec).
type SpecOptions struct {
	// Env is what kafka.env reads (os.Getenv when nil). Whatever it says,
	// kafka.env refuses KADMIN_* variables, secret-looking names
	// (redact.IsSecretKey: *_PASSWORD, *_TOKEN, ...) and the names Secret
	// reports (the CLI: every profile's credential variables).
	Env    func(string) string
	Secret func(string) bool
	// MaxMemory stops a Lua spec whose heap passes it, as --max-memory
	// stops a script, and caps string.rep and table.concat; 0: no limit.
	// Runaway is Options.Runaway.
	MaxMemory int64
	Runaway   func(error)
	// TimeLimit stops a Lua spec computing longer (DefaultSpecTimeLimit
	// when 0).
	TimeLimit time.Duration
	// Stderr is where print writes (os.Stderr when nil): standard output
	// is the plan's.
	Stderr io.Writer
}

// specAbsent are the globals of a script that a spec does not have,
// besides the admin functions: each is an error to name, rather than a nil
// to call.
var specAbsent = []string{"io", "require", "module", "package", "dofile", "loadfile", "debug", "coroutine", "channel", "help"}

// errSpecTimeLimit is the cause of a spec stopped by its time limit.
var errSpecTimeLimit = errors.New("spec time limit")

// newSpecState is the state a spec is read in: only the libraries above.
func newSpecState(o SpecOptions) *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024, RegistryMaxSize: 1024 * 1024 * 8,
		RegistryGrowStep: 1024, CallStackSize: 1024, MinimizeStackMemory: true})
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.OsLibName, lua.OpenOs}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	if osLib, ok := L.GetGlobal("os").(*lua.LTable); ok {
		kept := L.NewTable()
		for _, name := range []string{"time", "date", "clock", "difftime"} {
			kept.RawSetString(name, osLib.RawGetString(name))
		}
		// The rest of os (getenv, remove, exit, ...) is named as absent,
		// rather than read as a nil to call.
		L.SetMetatable(kept, absentMeta(L, func(k string) string { return "os." + k }))
		L.SetGlobal("os", kept)
	}
	for _, name := range append([]string{"_printregs"}, specAbsent...) {
		L.SetGlobal(name, lua.LNil)
	}
	L.SetGlobal("collectgarbage", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LNumber(0)); return 1 }))
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		_, _ = io.WriteString(stderr, strings.Join(parts, "\t")+"\n")
		return 0
	}))
	installErrorType(L)
	capStringBuilders(L, o.MaxMemory)

	kafka := L.NewTable()
	kafka.RawSetString("env", L.NewFunction(specEnv(o)))
	L.SetMetatable(kafka, absentMeta(L, func(k string) string { return "kafka." + k }))
	L.SetGlobal("kafka", kafka)
	absent := map[string]bool{}
	for _, f := range Funcs() {
		if f.IsAdmin() {
			for _, n := range append([]string{f.Name}, f.Aliases...) {
				absent[n] = true
			}
		}
	}
	for _, n := range specAbsent {
		absent[n] = true
	}
	L.SetMetatable(L.Get(lua.GlobalsIndex), absentMeta(L, func(k string) string {
		if absent[k] {
			return k
		}
		return ""
	}))
	return L
}

// absentMeta is a metatable whose __index raises an error for the names
// name says (name returns "" for those that are merely nil).
func absentMeta(L *lua.LState, name func(string) string) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k, ok := L.Get(2).(lua.LString)
		if !ok || name(string(k)) == "" {
			L.Push(lua.LNil)
			return 1
		}
		L.RaiseError("%s is not available in a spec: a spec is data, read with no cluster, no files and no secrets "+
			"(docs/reconcile.md); compute the table, and let plan read the cluster", name(string(k)))
		return 0
	}))
	return mt
}

// specEnv is a spec's kafka.env(name[, default]).
func specEnv(o SpecOptions) lua.LGFunction {
	env := o.Env
	if env == nil {
		env = os.Getenv
	}
	return func(L *lua.LState) int {
		name := L.CheckString(1)
		if why := refusedSpecEnv(name, o.Secret); why != "" {
			L.RaiseError("kafka.env: %q: %s", name, why)
		}
		if v := env(name); v != "" {
			L.Push(lua.LString(v))
		} else {
			L.Push(L.Get(2))
		}
		return 1
	}
}

// refusedSpecEnv says why a spec may not read the variable name ("" when
// it may). A plan is printed, reviewed and kept as a CI artifact: what a
// spec reads can end up in it.
func refusedSpecEnv(name string, secret func(string) bool) string {
	switch {
	case strings.HasPrefix(strings.ToUpper(name), "KADMIN_"):
		return "a spec cannot read kadmin-lua's own variables (its credentials are among them)"
	case redact.IsSecretKey(name) || secret != nil && secret(name):
		return "a spec cannot read a secret: what it reads may be printed in the plan (scram_users name a password_env instead)"
	}
	return ""
}

// evalLuaSpec runs a Lua spec's chunk in L under o's limits and returns
// the value it returns, with the location tree of its returned table.
func evalLuaSpec(ctx context.Context, L *lua.LState, path string, src []byte, o SpecOptions) (lua.LValue, *loc, error) {
	chunk, err := parse.Parse(strings.NewReader(string(src)), path)
	if err != nil {
		return nil, nil, luaSyntaxErr(L, path, src, err)
	}
	where, dup := returnedTable(chunk)
	if dup != nil {
		return nil, nil, dup.err(path)
	}
	proto, err := lua.Compile(chunk, path)
	if err != nil {
		return nil, nil, luaSyntaxErr(L, path, src, err)
	}
	limit := o.TimeLimit
	if limit <= 0 {
		limit = DefaultSpecTimeLimit
	}
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errSpecTimeLimit)
	defer cancel()
	if o.MaxMemory > 0 {
		var stop func()
		ctx, stop = watchMemory(ctx, o.MaxMemory, o.Runaway, false)
		defer stop()
	}
	L.SetContext(ctx)
	defer L.RemoveContext()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		if errors.Is(context.Cause(ctx), errSpecTimeLimit) {
			return nil, nil, specErr(path, 0, "", "the spec computed for longer than %s, its time limit: a spec returns a table, it does not wait or loop", limit)
		}
		return nil, nil, classify(L, ctx, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		return nil, nil, specErr(path, 0, "", "the file must return the spec table, returns nothing")
	}
	return v, where, nil
}

// luaSyntaxErr says a spec's syntax error as every script's is said
// ("file:line:column: message near 'token'").
func luaSyntaxErr(L *lua.LState, path string, src []byte, err error) error {
	if _, lerr := L.Load(strings.NewReader(string(src)), path); lerr != nil {
		var api *lua.ApiError
		if errors.As(lerr, &api) {
			return &RunError{Kind: KindSyntax, Message: syntaxMessage(api)}
		}
		return &RunError{Kind: KindSyntax, Message: lerr.Error()}
	}
	return &RunError{Kind: KindSyntax, Message: fmt.Sprintf("%s: %v", path, err)}
}
