package luaapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A long string.gsub or pattern match is stopped by Ctrl-C (the run's
// context canceled): the patched gopher-lua looks at the context while it
// matches (third_party/gopher-lua/PATCHES.md, 6).
func TestInterruptStopsLongPatternMatching(t *testing.T) {
	for name, src := range map[string]string{
		"gsub":    `return string.rep("a", 5e7):gsub("a", "bb")`,
		"find":    `return string.rep("a", 1e5):find(".-.-.-b")`,
		"gmatch":  `for w in string.rep("a", 1e5):gmatch(".-.-.-b") do end`,
		"matches": `return string.rep("a", 5e7):gsub("a", function(c) return c end)`,
	} {
		t.Run(name, func(t *testing.T) {
			e := newBareEnv(t, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(100*time.Millisecond, cancel)
			_, err := e.rt.DoString(ctx, "test", src)
			var re *RunError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, KindCanceled, re.Kind, re.Message)
			assert.Equal(t, "interrupted", re.Message)
		})
	}
}

// --max-memory bounds a gsub whose result grows past it: the watchdog
// cancels the run and the gsub stops with a MEMORY error.
func TestMaxMemoryStopsAGrowingGsub(t *testing.T) {
	limit := heapBytes() + 64<<20
	e := newBareEnv(t, Options{MaxMemory: limit})
	re := e.runErr(`local s = string.rep("x", 4e6) return #s:gsub("x", string.rep("y", 100))`)
	assert.Equal(t, CodeMemory, re.Code, re.Message)
	assert.Contains(t, re.Message, "MEMORY: the script was stopped: memory in use reached ")
	// An ordinary gsub under the same limit is untouched.
	assert.Equal(t, "1500000", e.run(`return tostring(#(string.rep("ab", 5e5):gsub("a", "xy")))`).String())
}

// BenchmarkGsub: string.rep("a", n):gsub("a", "bb") in a kadmin-lua
// runtime (the memory watchdog on), 100 kB and 1 MB of matches: the time
// per byte stays the same (issue 17: 1 MB in well under a second).
func BenchmarkGsub(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rt := New(Options{MaxMemory: 2 << 30})
			defer rt.Close()
			src := fmt.Sprintf(`local s, k = string.rep("a", %d):gsub("a", "bb") assert(k == %d)`, n, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := rt.DoString(context.Background(), "bench", src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
