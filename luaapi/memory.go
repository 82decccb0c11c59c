package luaapi

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// A script that keeps allocating (a loop filling a table) would grow until
// the kernel kills the process or the Go runtime dies with "fatal error:
// out of memory" and exit code 2, in the middle of whatever it was
// changing. With Options.MaxMemory set, a watchdog samples the heap while a
// chunk runs and, past the limit, cancels the chunk: the Lua VM stops at
// its next instruction, the Kafka call in flight is canceled, and the run
// ends with a MEMORY error (exit 1). The Lua primitives that build one big
// string in a single step are capped as well, since no sampling can stop an
// allocation that is already under way.

// CodeMemory is the error code of a run stopped by the memory limit.
const CodeMemory = "MEMORY"

// memorySampleEvery is how often the watchdog looks: a loop allocating a
// gigabyte a second overshoots by about 20 MB.
const memorySampleEvery = 20 * time.Millisecond

// heapMetric is the memory of live and not yet swept heap objects: all
// Lua tables and strings are there. It is cheap to read (no stop).
const heapMetric = "/memory/classes/heap/objects:bytes"

// memoryError is the cause the watchdog cancels a chunk with.
type memoryError struct{ used, limit int64 }

func (e *memoryError) Error() string {
	return fmt.Sprintf("the script was stopped: memory in use reached %s, over --max-memory %s "+
		"(raise it, or 0 for no limit)", FormatBytes(e.used), FormatBytes(e.limit))
}

// heapBytes reads the heap in use; a variable so tests can fake it.
var heapBytes = func() int64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watchMemory returns ctx canceled with a *memoryError once the heap
// passes limit, and a stop function to call when the chunk is done. If the
// heap goes on growing past twice the limit after that (Go code that does
// not look at the context, such as one string.gsub building gigabytes),
// runaway is called: the process cannot be saved by canceling. settle
// first collects the garbage an earlier chunk (the REPL) left, when the
// heap is already past the limit: it is not this chunk's. (The first chunk
// has none, and reading the heap the first time costs a process's
// start-up a twentieth: runtime/metrics builds its tables.)
func watchMemory(ctx context.Context, limit int64, runaway func(error), settle bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if settle && heapBytes() > limit {
		runtime.GC()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(memorySampleEvery)
		defer tick.Stop()
		var fired *memoryError
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			used := heapBytes()
			switch {
			case fired == nil && used > limit:
				fired = &memoryError{used: used, limit: limit}
				cancel(fired)
			case fired != nil && used > 2*limit && runaway != nil:
				runaway(&memoryError{used: used, limit: limit})
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		wg.Wait()
		cancel(nil)
	}
}

// memoryCause is the *memoryError that canceled ctx, if one did.
func memoryCause(ctx context.Context) *memoryError {
	if e, ok := context.Cause(ctx).(*memoryError); ok {
		return e
	}
	return nil
}

// capStringBuilders replaces string.rep and table.concat with versions
// that refuse, before allocating, a result over half the memory limit
// (building a string briefly needs its parts or buffer too).
func (r *Runtime) capStringBuilders() { capStringBuilders(r.L, r.opts.MaxMemory) }

// capStringBuilders caps L's string.rep and table.concat under maxMemory
// (a runtime's or a spec's state); 0: no cap.
func capStringBuilders(L *lua.LState, maxMemory int64) {
	limit := maxMemory / 2
	if limit <= 0 {
		return
	}
	tooBig := func(L *lua.LState, fn string, size int64) {
		L.Error(errorTable(L, fn, &engine.Error{Code: CodeMemory, Message: fmt.Sprintf(
			"the result would be %s, over half of --max-memory %s", FormatBytes(size), FormatBytes(maxMemory))}, nil), 1)
	}
	wrap := func(lib, name string, size func(L *lua.LState) int64) {
		t, ok := L.GetGlobal(lib).(*lua.LTable)
		if !ok {
			return
		}
		orig, ok := t.RawGetString(name).(*lua.LFunction)
		if !ok {
			return
		}
		fn := lib + "." + name
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if n := size(L); n > limit {
				tooBig(L, fn, n)
			}
			// The original, with the same arguments and results.
			L.Insert(orig, 1)
			L.Call(L.GetTop()-1, lua.MultRet)
			return L.GetTop()
		}))
	}
	wrap("string", "rep", func(L *lua.LState) int64 {
		s, n := L.CheckString(1), L.CheckNumber(2)
		if n <= 0 || len(s) == 0 {
			return 0
		}
		if float64(n) > float64(limit) { // before multiplying: no overflow
			return int64(min(float64(n)*float64(len(s)), 1<<62))
		}
		return int64(n) * int64(len(s))
	})
	wrap("table", "concat", func(L *lua.LState) int64 {
		t := L.CheckTable(1)
		sep := int64(len(L.OptString(2, "")))
		i, j := max(L.OptInt(3, 1), 1), min(L.OptInt(4, t.Len()), t.Len()) // as the original clamps
		var n int64
		for k := i; k <= j; k++ {
			if v, ok := t.RawGetInt(k).(lua.LString); ok {
				n += int64(len(v))
			} else {
				n += 24 // a number's text at most; others are the original's error
			}
			if k < j {
				n += sep
			}
		}
		return n
	})
}

// FormatBytes writes n as people read memory sizes: 64 MiB, 1.5 GiB,
// 2.01 GiB (two decimals, so a size just over a limit does not read as it).
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[i]
}
