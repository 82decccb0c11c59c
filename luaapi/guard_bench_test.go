package luaapi

import (
	"context"
	"testing"
)

// Global reads are hot: every call of a built-in from Lua looks its name
// up in _G (builtins.go moved the built-ins behind _G's __index). These
// run a Lua loop of 1,000 calls per iteration.

func benchLoop(b *testing.B, body string) {
	rt := New(Options{})
	defer rt.Close()
	fn, err := rt.Compile("bench", "for i = 1, 1000 do "+body+" end")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := rt.Call(context.Background(), fn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGlobalCallBase calls a base library global (type).
func BenchmarkGlobalCallBase(b *testing.B) { benchLoop(b, "local _ = type(i)") }

// BenchmarkGlobalCallKafka calls a kafka library function (kafka.now).
func BenchmarkGlobalCallKafka(b *testing.B) { benchLoop(b, "local _ = kafka.now()") }

// BenchmarkGlobalReadAdmin reads an admin function's global (list_topics)
// without calling it: the lookup alone.
func BenchmarkGlobalReadAdmin(b *testing.B) { benchLoop(b, "local _ = list_topics") }

// BenchmarkGlobalUser reads and writes a user's global.
func BenchmarkGlobalUser(b *testing.B) { benchLoop(b, "n = (n or 0) + 1") }

// BenchmarkNewRuntime is New and Close: part of every start-up (the
// built-ins' protection is made there).
func BenchmarkNewRuntime(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		rt := New(Options{})
		rt.Close()
	}
}
