package main

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// A runaway script must end as a script error (exit 1) that says which
// limit it hit, never as the Go runtime's "fatal error: out of memory",
// which exits 2 (the code of usage errors, and not ours to change) or as
// the kernel's OOM kill. --max-memory sets both the runtime's soft limit
// (the GC works harder near it) and the limit luaapi's watchdog enforces.

const defaultMaxMemory = 2 << 30

// defaultMemoryLimit is --max-memory's default: 2 GiB, or three quarters
// of the container's memory (its cgroup limit) when that is less. A pod
// given 256 MiB by its manifest used to be killed by the kernel (exit 137,
// which a CronJob retries as if Kafka were down, with nothing said) long
// before a 2 GiB limit stopped the script with MEMORY and exit 1; the
// quarter left is for what the limit does not count (the binary, stacks,
// the runtime's own).
func defaultMemoryLimit(cgroupLimit int64) int64 {
	if cgroupLimit > 0 && cgroupLimit/4*3 < defaultMaxMemory {
		return cgroupLimit / 4 * 3
	}
	return defaultMaxMemory
}

// byteSize is the value of --max-memory: bytes, or a number with a unit K,
// M, G or T (also KB/KiB...; all powers of 1024). 0 means no limit.
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return "0"
	}
	return strings.ReplaceAll(luaapi.FormatBytes(int64(*b)), " ", "")
}

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	num := strings.TrimSpace(s)
	unit := strings.TrimLeft(num, "0123456789.")
	num = strings.TrimSpace(num[:len(num)-len(unit)])
	shift, ok := map[string]uint{"": 0, "b": 0,
		"k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
		"g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}[strings.ToLower(strings.TrimSpace(unit))]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v < 0 {
		return fmt.Errorf("want a size such as 512MiB, 2GiB or 0 for no limit, got %q", s)
	}
	v *= math.Exp2(float64(shift))
	if v >= math.MaxInt64 {
		return fmt.Errorf("%q is too large", s)
	}
	*b = byteSize(v)
	return nil
}

// setMemoryLimit sets the Go runtime's soft memory limit for the run and
// returns what puts the previous one back. A tighter limit already set
// (GOMEMLIMIT) is kept.
func setMemoryLimit(limit int64) (restore func()) {
	if limit > 0 && limit < startingHeap {
		endStartingHeap() // the run's limit is below the starting heap
	}
	heapStart.Lock()
	if heapStart.active { // the limit to put back when the starting heap ends
		prev := heapStart.limit
		if limit > 0 && limit < prev {
			heapStart.limit = limit
		}
		heapStart.Unlock()
		return func() {
			heapStart.Lock()
			defer heapStart.Unlock()
			heapStart.limit = prev
			if !heapStart.active {
				debug.SetMemoryLimit(prev)
			}
		}
	}
	heapStart.Unlock()
	prev := debug.SetMemoryLimit(-1)
	if limit <= 0 || limit >= prev {
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}

// runaway ends the process when memory keeps growing after the script was
// stopped (Go code that does not stop when canceled): exit 1 with the
// limit in the message now, rather than the runtime's fatal error later.
func (a *app) runaway(err error) {
	fmt.Fprintf(a.st.Stderr, "kadmin-lua: %s: %v\n", luaapi.CodeMemory, err)
	a.st.Exit(ExitScript)
}
