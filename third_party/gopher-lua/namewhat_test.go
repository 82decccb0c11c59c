package lua

import "testing"

// Patch 9: GetInfo "n" says what a called function's name is, as Lua
// 5.1's namewhat does, so a __call handler can tell a global from a field.
func TestGetInfoNameWhat(t *testing.T) {
	for _, tc := range []struct{ src, name, what string }{
		{`probe()`, "probe", "global"},
		{`local f = probe f()`, "f", "local"},
		{`local f = probe; (function() f() end)()`, "f", "upvalue"},
		{`local t = {g = probe} t.g()`, "g", "field"},
		{`local t = {g = probe} t:g()`, "g", "method"},
		{`local t = {probe} t[1]()`, "?", ""},
		{`pcall(probe)`, "(anonymous)", ""},
	} {
		L := NewState()
		var name, what string
		L.SetGlobal("probe", L.NewFunction(func(L *LState) int {
			dbg, ok := L.GetStack(0)
			if !ok {
				t.Fatal("no stack")
			}
			if _, err := L.GetInfo("n", dbg, LNil); err != nil {
				t.Fatal(err)
			}
			name, what = dbg.Name, dbg.NameWhat
			return 0
		}))
		if err := L.DoString(tc.src); err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if name != tc.name || what != tc.what {
			t.Errorf("%s: name %q namewhat %q, want %q %q", tc.src, name, what, tc.name, tc.what)
		}
		L.Close()
	}
}
