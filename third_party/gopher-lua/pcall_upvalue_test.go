package lua

import (
	"testing"
)

// Regression tests for yuin/gopher-lua#448: an error caught by pcall must
// close (detach) only the upvalues of the frames that the error unwinds,
// never those of the frames that are still live below the pcall.

// runChunkResult runs src (which must end with `return <value>`) and returns
// the single returned value as a string.
func runChunkResult(t *testing.T, L *LState, src string) string {
	t.Helper()
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	ret := L.Get(-1)
	L.Pop(1)
	return ret.String()
}

func TestPCallUpvalueCases(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "issue448_pcall_error_builtin",
			src: `
local n = 0
local function inc() n = n + 1 end
inc()
pcall(error, "x")
inc()
return n`,
			want: "2",
		},
		{
			name: "issue448_upstream_reproducer",
			src: `
local a
local function use_a() return a("test") end
pcall(function() error("an error") end)
a = function(p) return "called " .. p end
return use_a()`,
			want: "called test",
		},
		{
			name: "pcall_lua_function_that_errors",
			src: `
local n = 0
local function inc() n = n + 1 end
inc()
local ok, err = pcall(function()
  local unused = 1
  inc()
  error("boom")
end)
assert(not ok and string.find(err, "boom"))
inc()
return n`,
			want: "3",
		},
		{
			name: "pcall_runtime_error",
			src: `
local n = 0
local function inc() n = n + 1 end
local ok = pcall(function() local t = nil; return t.x end)
assert(not ok)
inc()
n = n + 10
inc()
return n`,
			want: "12",
		},
		{
			name: "nested_pcall",
			src: `
local n = 0
local function inc() n = n + 1 end
local ok1, r = pcall(function()
  local m = 0
  local function incm() m = m + 1 end
  local ok2 = pcall(function() inc(); incm(); error("inner") end)
  assert(not ok2)
  -- the inner error must not have detached m from this (live) frame
  incm()
  inc()
  m = m + 100
  incm()
  return m
end)
assert(ok1, r)
assert(r == 103, "m was " .. tostring(r))
inc()
return n`,
			want: "3",
		},
		{
			name: "nested_pcall_outer_catches",
			src: `
local n = 0
local function inc() n = n + 1 end
local ok = pcall(function()
  pcall(error, "first")
  inc()
  error("second")
end)
assert(not ok)
inc()
return n`,
			want: "2",
		},
		{
			name: "error_with_table_value",
			src: `
local n = 0
local function inc() n = n + 1 end
local ok, e = pcall(error, {code = 42})
assert(not ok and type(e) == "table" and e.code == 42)
inc()
local ok2, e2 = pcall(function() inc(); error({code = 7}) end)
assert(not ok2 and e2.code == 7)
inc()
return n`,
			want: "3",
		},
		{
			name: "xpcall",
			src: `
local n = 0
local function inc() n = n + 1 end
inc()
local ok, msg = xpcall(function() inc(); error("x") end,
  function(e) inc(); return "handled: " .. tostring(e) end)
assert(not ok and string.find(msg, "handled:"))
inc()
return n`,
			want: "4",
		},
		{
			name: "xpcall_handler_sees_live_locals",
			src: `
local n = 0
local function inc() n = n + 1 end
local seen
xpcall(function()
  local k = 5
  local function getk() return k end
  k = 6
  error(getk)
end, function(f) seen = f(); return seen end)
inc()
n = n + seen
inc()
return n`,
			want: "8",
		},
		{
			name: "coroutine_with_pcall_inside",
			src: `
local n = 0
local function inc() n = n + 1 end
local co = coroutine.create(function()
  local c = 0
  local function incc() c = c + 1 end
  incc()
  local ok = pcall(error, "in co")
  assert(not ok)
  incc()
  coroutine.yield(c)
  incc()
  inc()
  return c
end)
local ok1, v1 = coroutine.resume(co)
assert(ok1 and v1 == 2, tostring(v1))
local ok2, v2 = coroutine.resume(co)
assert(ok2 and v2 == 3, tostring(v2))
inc()
return n`,
			want: "2",
		},
		{
			name: "pcall_around_failing_coroutine",
			src: `
local n = 0
local function inc() n = n + 1 end
inc()
local ok = pcall(coroutine.wrap(function() inc(); error("co fail") end))
assert(not ok)
local ok2 = coroutine.resume(coroutine.create(function() inc(); error("co fail 2") end))
assert(not ok2)
inc()
return n`,
			want: "4",
		},
		{
			name: "closure_escaping_failed_coroutine_keeps_value",
			src: `
local getter
local co = coroutine.create(function()
  local v = "kept"
  getter = function() return v end
  error("die")
end)
assert(not coroutine.resume(co))
local junk = {}
for i = 1, 50 do junk[i] = i end
return getter()`,
			want: "kept",
		},
		{
			name: "closure_created_in_unwound_frame_sees_closed_value",
			src: `
local get, set
local ok = pcall(function()
  local v = "inner"
  get = function() return v end
  set = function(x) v = x end
  set("changed")
  error("unwind")
end)
assert(not ok)
-- reuse the stack slots the unwound frame occupied
local a, b, c, d, e, f = 1, 2, 3, 4, 5, 6
local r1 = get()
set("again")
local r2 = get()
return r1 .. "," .. r2 .. "," .. tostring(a + f)`,
			want: "changed,again,7",
		},
		{
			name: "closure_created_in_unwound_frame_xpcall",
			src: `
local get
xpcall(function()
  local v = "inner"
  get = function() return v end
  error("unwind")
end, function(e) return e end)
local a, b, c, d, e, f = 1, 2, 3, 4, 5, 6
local x = {a, b, c}
return get()`,
			want: "inner",
		},
		{
			name: "shared_upvalue_between_outer_and_unwound_closure",
			src: `
local n = 0
local bump
pcall(function()
  bump = function() n = n + 1 end
  bump()
  error("x")
end)
bump()
n = n + 10
bump()
return n`,
			want: "13",
		},
		{
			name: "upvalue_in_loop_with_pcall",
			src: `
local total = 0
local function add(x) total = total + x end
for i = 1, 5 do
  pcall(function() add(i); if i % 2 == 0 then error("even") end end)
end
return total`,
			want: "15",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			L := NewState()
			defer L.Close()
			if got := runChunkResult(t, L, c.src); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// Errors raised from Go functions (RaiseError, ArgError, Error, a Go panic)
// inside pcall must behave the same way.
func TestPCallUpvalueGoErrors(t *testing.T) {
	raisers := map[string]LGFunction{
		"raise": func(L *LState) int {
			L.RaiseError("raised from go: %d", 1)
			return 0
		},
		"argerr": func(L *LState) int {
			L.ArgError(1, "bad thing")
			return 0
		},
		"checkint": func(L *LState) int {
			L.CheckInt(1)
			return 0
		},
		"errtable": func(L *LState) int {
			tb := L.NewTable()
			tb.RawSetString("code", LNumber(9))
			L.Error(tb, 1)
			return 0
		},
		"gopanic": func(L *LState) int {
			panic("go panic value")
		},
	}
	for name, fn := range raisers {
		t.Run(name, func(t *testing.T) {
			L := NewState()
			defer L.Close()
			L.SetGlobal("goraise", L.NewFunction(fn))
			src := `
local n = 0
local function inc() n = n + 1 end
inc()
local ok, e = pcall(goraise, "notanumber")
assert(not ok, "pcall should fail")
inc()
local ok2 = pcall(function() inc(); goraise("x") end)
assert(not ok2)
inc()
return n`
			if got := runChunkResult(t, L, src); got != "4" {
				t.Errorf("got %q, want %q", got, "4")
			}
		})
	}
}

// Go code calling L.PCall directly (not through the pcall builtin) must leave
// the upvalues of the Lua frames below it open, too.
func TestPCallUpvalueFromGoAPI(t *testing.T) {
	L := NewState()
	defer L.Close()
	L.SetGlobal("gocall", L.NewFunction(func(L *LState) int {
		f := L.CheckFunction(1)
		L.Push(f)
		err := L.PCall(0, 0, nil)
		if err == nil {
			L.RaiseError("expected an error")
		}
		L.Push(LString(err.Error()))
		return 1
	}))
	src := `
local n = 0
local function inc() n = n + 1 end
inc()
local msg = gocall(function() inc(); error("from lua") end)
assert(string.find(msg, "from lua"), msg)
inc()
return n`
	if got := runChunkResult(t, L, src); got != "3" {
		t.Errorf("got %q, want %q", got, "3")
	}

	// And with an error handler passed to PCall from Go.
	L2 := NewState()
	defer L2.Close()
	L2.SetGlobal("gocallh", L2.NewFunction(func(L *LState) int {
		f := L.CheckFunction(1)
		h := L.CheckFunction(2)
		L.Push(f)
		err := L.PCall(0, 0, h)
		if err == nil {
			L.RaiseError("expected an error")
		}
		L.Push(LString(err.Error()))
		return 1
	}))
	src2 := `
local n = 0
local function inc() n = n + 1 end
inc()
local msg = gocallh(function() inc(); error("from lua") end,
  function(e) inc(); return "handled" end)
assert(msg == "handled", msg)
inc()
return n`
	if got := runChunkResult(t, L2, src2); got != "4" {
		t.Errorf("got %q, want %q", got, "4")
	}
}
