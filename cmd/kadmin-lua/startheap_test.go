package main

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gcLines are the collections GODEBUG=gctrace=1 reported on stderr.
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @`)

// The real binary: a short run is never collected; a run that allocates
// hundreds of MB is, first near the starting heap, then as GOGC=100 paces
// it (more collections, each goal about twice the live heap); GOGC set by
// the operator is left alone (collections from the first 4 MB).
func TestStartingHeapInTheBinary(t *testing.T) {
	bin := buildBinary(t)
	run := func(env []string, script string) string {
		cmd := exec.Command(bin, "-e", script)
		cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "GODEBUG=gctrace=1"), env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	// About 20 MB of tables: several collections at the runtime's own
	// 4 MB start, none under the 64 MiB starting heap. (20,000 tables, 2
	// to 4 MB, was too close to the runtime's first goal to be sure of a
	// collection on every machine.)
	start := int64(startingHeap)
	if c := cgroupMemoryLimit(); c > 0 && c < 4*start {
		start = c / 4 // a small container: the starting heap is a quarter of it
	}
	small := `local t = {} for i = 1, 100000 do t[i] = {i} end return #t`
	if start >= 48<<20 {
		assert.Empty(t, gcLine.FindAllString(run(nil, small), -1), "a short run is not collected")
	} else {
		t.Logf("cgroup limit: starting heap %d MiB, too small to hold the 20 MB run uncollected", start>>20)
	}
	assert.GreaterOrEqual(t, len(gcLine.FindAllString(run([]string{"GOGC=100"}, small), -1)), 2, "GOGC set: the runtime's own pacing")

	big := run(nil, `local t = {} for i = 1, 1500000 do t[i] = {i} end return #t`)
	gcs := gcLine.FindAllString(big, -1)
	require.GreaterOrEqual(t, len(gcs), 2, "%s", big)
	first := regexp.MustCompile(`(\d+) MB goal`).FindStringSubmatch(big)
	require.NotNil(t, first, big)
	goal, err := strconv.Atoi(first[1])
	require.NoError(t, err)
	mb := int(start >> 20)
	assert.True(t, goal >= mb*6/10 && goal <= mb, "the first collection comes near the %d MiB starting heap:\n%s", mb, big)
}

// In process: the collector is off until the first collection, then GOGC
// is 100 under the limit setMemoryLimit asked for meanwhile; a
// --max-memory below the starting heap ends it at once.
func TestStartingHeapEndsAtTheFirstCollection(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: adjustStartingHeap leaves it")
	}
	origGC, origLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { endStartingHeap(); debug.SetGCPercent(origGC); debug.SetMemoryLimit(origLimit) })

	adjustStartingHeap()
	require.True(t, heapStart.active)
	assert.Equal(t, int64(startingHeap), debug.SetMemoryLimit(-1))
	assert.Equal(t, -1, debug.SetGCPercent(-1), "the collector is off")

	restore := setMemoryLimit(1 << 30)
	assert.Equal(t, int64(startingHeap), debug.SetMemoryLimit(-1), "the starting heap holds until the first collection")
	runtime.GC()
	require.Eventually(t, func() bool { heapStart.Lock(); defer heapStart.Unlock(); return !heapStart.active },
		5*time.Second, 5*time.Millisecond, "the first collection ends the starting heap")
	assert.Equal(t, int64(1<<30), debug.SetMemoryLimit(-1), "--max-memory's limit is in force")
	assert.Equal(t, 100, debug.SetGCPercent(100))
	restore()
	assert.Equal(t, origLimit, debug.SetMemoryLimit(-1))

	adjustStartingHeap()
	require.True(t, heapStart.active)
	restore = setMemoryLimit(16 << 20)
	assert.False(t, heapStart.active, "a limit below the starting heap ends it")
	assert.Equal(t, int64(16<<20), debug.SetMemoryLimit(-1))
	assert.Equal(t, 100, debug.SetGCPercent(100))
	restore()
	assert.Equal(t, origLimit, debug.SetMemoryLimit(-1))
}
