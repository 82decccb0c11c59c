package luaapi

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

const runaway = `local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 100) .. i end`

// A script that allocates without end is stopped with a MEMORY error
// (exit 1 in the CLI) once the heap passes the limit.
func TestMaxMemoryStopsARunawayScript(t *testing.T) {
	limit := heapBytes() + 64<<20
	e := newBareEnv(t, Options{MaxMemory: limit})
	start := time.Now()
	re := e.runErr(runaway)
	assert.Less(t, time.Since(start), 60*time.Second)
	assert.Equal(t, KindScript, re.Kind)
	assert.Equal(t, CodeMemory, re.Code)
	assert.Contains(t, re.Message, "MEMORY: the script was stopped: memory in use reached ")
	assert.Contains(t, re.Message, "over --max-memory "+FormatBytes(limit)+" (raise it, or 0 for no limit)")

	// pcall does not keep it going: the chunk stays canceled.
	re = e.runErr(`local ok = pcall(function() ` + runaway + ` end) while true do end`)
	assert.Equal(t, CodeMemory, re.Code)

	// The runtime is usable again (the REPL goes on after such a line).
	vals, _, err := e.rt.EvalLine(context.Background(), "1 + 1")
	require.NoError(t, err)
	assert.Equal(t, lua.LNumber(2), vals[0])
}

func TestMaxMemoryLeavesOrdinaryScriptsAlone(t *testing.T) {
	e := newBareEnv(t, Options{MaxMemory: heapBytes() + 512<<20})
	assert.Equal(t, lua.LNumber(100000), e.run(`local t = {} for i = 1, 100000 do t[i] = "row " .. i end return #t`))
	assert.Equal(t, lua.LNumber(1000), e.run(`return #string.rep("ab", 500)`))
	assert.Equal(t, lua.LString("b-c"), e.run(`return table.concat({"a", "b", "c", "d"}, "-", 2, 3)`))
	assert.Equal(t, lua.LString("1,2.5,x"), e.run(`return table.concat({1, 2.5, "x"}, ",")`))
	assert.Equal(t, lua.LString("abab"), e.run(`return ("ab"):rep(2)`))
	assert.Equal(t, lua.LString(""), e.run(`return string.rep("ab", -1)`))
	re := e.runErr(`return table.concat({1, {}, 3})`)
	assert.Contains(t, re.Message, "invalid value (table) at index 2 in table for concat", "the original's errors")
}

// One call that would build a string bigger than half the limit fails
// before allocating it: no sampling could stop it once under way.
func TestMaxMemoryCapsStringBuilders(t *testing.T) {
	e := newBareEnv(t, Options{MaxMemory: 64 << 20})
	for src, want := range map[string]string{
		`return string.rep("x", 1e9)`: "string.rep: MEMORY: the result would be 953.67 MiB, over half of --max-memory 64 MiB",
		`return ("xy"):rep(1e300)`:    "string.rep: MEMORY: the result would be 4 EiB, over half of --max-memory 64 MiB",
		`local s = string.rep("x", 1e6) local t = {} for i = 1, 40 do t[i] = s end return table.concat(t, ",")`: "table.concat: MEMORY: the result would be 38.15 MiB, over half of --max-memory 64 MiB",
	} {
		start := time.Now()
		re := e.runErr(src)
		assert.Equal(t, want, re.Message, src)
		assert.Equal(t, CodeMemory, re.Code, src)
		assert.Equal(t, KindScript, re.Kind, src)
		assert.Less(t, time.Since(start), 5*time.Second, src)
	}
	assert.Equal(t, lua.LString("MEMORY"), e.run(`local ok, err = pcall(string.rep, "x", 1e9) return err.code`))
}

// Without a limit nothing is capped or watched.
func TestNoMaxMemoryNoCap(t *testing.T) {
	e := newBareEnv(t, Options{})
	assert.Equal(t, lua.LNumber(40<<20), e.run(`return #string.rep("x", 40 * 2^20)`))
}

func TestWatchMemoryCancelsThenCallsRunaway(t *testing.T) {
	var heap atomic.Int64
	heap.Store(10)
	old := heapBytes
	heapBytes = func() int64 { return heap.Load() }
	ran := make(chan error, 1)
	ctx, stop := watchMemory(context.Background(), 100, func(err error) { ran <- err }, true)
	t.Cleanup(func() { stop(); heapBytes = old })

	time.Sleep(5 * memorySampleEvery)
	require.NoError(t, ctx.Err(), "under the limit")
	heap.Store(150)
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not canceled over the limit")
	}
	me := memoryCause(ctx)
	require.NotNil(t, me)
	assert.Equal(t, int64(100), me.limit)
	assert.True(t, errors.Is(ctx.Err(), context.Canceled))
	select {
	case <-ran:
		t.Fatal("runaway called before the heap doubled")
	case <-time.After(5 * memorySampleEvery):
	}
	heap.Store(250)
	select {
	case err := <-ran:
		assert.Contains(t, err.Error(), "memory in use reached 250 B, over --max-memory 100 B")
	case <-time.After(5 * time.Second):
		t.Fatal("runaway not called")
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1 KiB", 64 << 20: "64 MiB", 3 << 29: "1.5 GiB", 2 << 30: "2 GiB",
		2<<30 + 11<<20: "2.01 GiB", 1e12: "931.32 GiB",
	} {
		assert.Equal(t, want, FormatBytes(n))
	}
}
