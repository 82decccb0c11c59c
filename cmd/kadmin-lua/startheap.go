package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Most kadmin-lua runs are short: a cron job's check, a peek, one admin
// call. The Go runtime starts collecting at a 4 MB heap, so such a run
// spent a quarter to a third of its CPU in two or three collections (and
// the write barriers they switch on) that freed nothing it needed: peek of
// 1,000 records took 18 ms of CPU with them and 13 ms without. The process
// therefore starts with the collector off under a soft limit of
// startingHeap, as the Go compiler does (cmd/compile's
// AdjustStartingHeap). The first collection, which that limit triggers if
// the run gets that far, ends it: GOGC is 100 again and the memory limit
// is the one in force (--max-memory's). A run that stays under the limit
// is never collected; a big one pays one collection at startingHeap
// instead of several small ones, and grows as before after it.
//
// Not done when the operator set GOGC or a tighter GOMEMLIMIT, nor when
// --max-memory is below it. In a container with little memory (a cgroup
// limit under 4 x startingHeap) the starting heap is a quarter of the
// limit, so a pod sized for a small job is not pushed into the OOM killer.

const startingHeap = 64 << 20

var heapStart struct {
	sync.Mutex
	active bool
	limit  int64 // the memory limit to put back when it ends
}

// adjustStartingHeap is called once, first thing in main.
func adjustStartingHeap() {
	if os.Getenv("GOGC") != "" {
		return
	}
	start := int64(startingHeap)
	if c := cgroupMemoryLimit(); c > 0 && c < 4*start {
		start = c / 4
	}
	prev := debug.SetMemoryLimit(-1)
	if prev <= start || start < 8<<20 {
		return
	}
	heapStart.Lock()
	defer heapStart.Unlock()
	heapStart.active, heapStart.limit = true, prev
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(start)
	// A cleanup runs once the collector has found its object garbage: at
	// the first collection. (A pointer keeps the object out of the tiny
	// allocator, whose objects may never be collected alone.)
	type sentinel struct{ _ *byte }
	runtime.AddCleanup(new(sentinel), func(struct{}) { endStartingHeap() }, struct{}{})
}

// endStartingHeap puts the collector back to GOGC=100 under the memory
// limit in force.
func endStartingHeap() {
	heapStart.Lock()
	defer heapStart.Unlock()
	if !heapStart.active {
		return
	}
	heapStart.active = false
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(heapStart.limit)
}

// cgroupMemoryLimit is the process's cgroup memory limit in bytes (v2,
// then v1), 0 when there is none or it cannot be read. Plain system calls:
// os.Open and its *File cost this a tenth of a millisecond, more than the
// rest of main before the script runs.
func cgroupMemoryLimit() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		fd, err := syscall.Open(f, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var b [32]byte // a number or "max"
		got, err := syscall.Read(fd, b[:])
		_ = syscall.Close(fd)
		if err != nil || got <= 0 {
			return 0
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b[:got])), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // "max", or v1's "no limit"
			return 0
		}
		return n
	}
	return 0
}
