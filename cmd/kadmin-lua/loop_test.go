package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
)

// connections counts the connections clients open to c from now on: each
// starts with an ApiVersions request.
func connections(c *cluster) *atomic.Int64 {
	var n atomic.Int64
	c.ControlKey(int16(kmsg.ApiVersions), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		return nil, nil, false
	})
	return &n
}

var runLineRE = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (INFO|WARN|ERROR) run=(\d+) exit=(\d+) duration=\S+ checks_failed=(\d+)( error=".*")?$`)

func TestLoopRunsEveryPeriodOnOneConnection(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "orders"))
	script := writeFile(t, "count.lua", `
local n = #list_topics()
kafka.check(n == 1, "one topic")
return n`)
	conns := connections(c)
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "run", "--every", "30ms", "--max-runs", "1", script))
	once := conns.Load()
	require.Positive(t, once)

	conns.Store(0)
	cli = newCLI(t)
	began := time.Now()
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "run", "--every", "100ms", "--max-runs", "5", script))
	assert.GreaterOrEqual(t, time.Since(began), 4*100*time.Millisecond, "runs 2..5 waited for their period")
	assert.Equal(t, once, conns.Load(), "five runs open the connections one run opens: one Kafka connection is kept")
	assert.Equal(t, "1\n1\n1\n1\n1\n", cli.stdout.String())
	lines := runLineRE.FindAllStringSubmatch(cli.stderr.String(), -1)
	require.Len(t, lines, 5, cli.stderr.String())
	for i, l := range lines {
		assert.Equal(t, []string{"INFO", strconv.Itoa(i + 1), "0", "0"}, l[1:5])
	}
	// A loaded machine may make a run overrun its period: that line is
	// the loop's to write; nothing else is.
	var other []string
	for _, l := range strings.Split(strings.TrimSuffix(cli.stderr.String(), "\n"), "\n") {
		if !runLineRE.MatchString(l) && !strings.Contains(l, "overran its period") {
			other = append(other, l)
		}
	}
	assert.Empty(t, other, "one line per run, nothing else")
}

func TestLoopReportsChecksAndErrorsPerRun(t *testing.T) {
	c := newCluster(t)
	// The script changes between runs: each run reads it anew.
	script := writeFile(t, "flaky.lua", `kafka.check(false, "lag too high")`)
	cli := newCLI(t)
	require.Equal(t, ExitCheck, cli.run("-b", c.addrs, "run", "--every", "10ms", "--max-runs", "2", script))
	lines := runLineRE.FindAllStringSubmatch(cli.stderr.String(), -1)
	require.Len(t, lines, 2, cli.stderr.String())
	assert.Equal(t, []string{"WARN", "2", "4", "1", ""}, lines[1][1:])
	assert.Contains(t, cli.stderr.String(), "check failed: lag too high\n")
	assert.True(t, strings.HasSuffix(cli.stderr.String(), "kadmin-lua: the last run ended with exit 4\n"), cli.stderr.String())

	require.NoError(t, os.WriteFile(script, []byte(`error("broken")`), 0o600))
	cli = newCLI(t)
	require.Equal(t, ExitScript, cli.run("-b", c.addrs, "run", "--every", "10ms", "--max-runs", "2", script))
	lines = runLineRE.FindAllStringSubmatch(cli.stderr.String(), -1)
	require.Len(t, lines, 2, cli.stderr.String())
	assert.Equal(t, fmt.Sprintf(` error=%q`, script+":1: broken"), lines[0][5])
}

func TestLoopStopsOnASyntaxError(t *testing.T) {
	script := writeFile(t, "bad.lua", "local x = = 1")
	cli := newCLI(t)
	require.Equal(t, ExitUsage, cli.run("-b", "127.0.0.1:1", "run", "--every", "10ms", script))
	lines := runLineRE.FindAllStringSubmatch(cli.stderr.String(), -1)
	require.Len(t, lines, 1, "exit 2 will not go away: no second run")
	assert.Contains(t, cli.stderr.String(), "stopping: exit 2 (a syntax or usage error) will not go away by running again")
}

// A run that takes longer than the period is reported, and the next starts
// only once it has ended, at the next period's start.
func TestLoopOverrunIsReportedNeverOverlapped(t *testing.T) {
	trace := writeFile(t, "trace.txt", "")
	script := writeFile(t, "slow.lua", fmt.Sprintf(`
local f = io.open(%q, "a") f:write("start\n") f:close()
kafka.sleep(130)
f = io.open(%q, "a") f:write("end\n") f:close()`, trace, trace))
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", "127.0.0.1:1", "run", "--every", "50ms", "--max-runs", "3", script))
	raw, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("start\nend\n", 3), string(raw), "runs never overlap")
	overruns := regexp.MustCompile(`WARN run=\d overran its period: took \S+, every 50ms; (\d+) runs? skipped`).FindAllStringSubmatch(cli.stderr.String(), -1)
	require.Len(t, overruns, 2, cli.stderr.String())
	for _, o := range overruns {
		skipped, _ := strconv.Atoi(o[1])
		assert.GreaterOrEqual(t, skipped, 2, "a 130ms run every 50ms skips at least two periods (more on a loaded machine)")
	}
}

func TestLoopSIGTERMDuringARunCancelsItsRequestAndExits143(t *testing.T) {
	l := testnet.SilentBroker(t) // a broker that never answers: the call waits for the signal
	script := writeFile(t, "hang.lua", `print("calling") return list_topics()`)
	c := newCLI(t)
	r := startCLI(c, nil, "-b", l, "--timeout", "5m", "run", "--every", "1h", script)
	waitFor(t, "the call to start", func() bool { return strings.Contains(c.stdout.String(), "calling") })
	time.Sleep(50 * time.Millisecond)
	c.sigs <- syscall.SIGTERM
	assert.Equal(t, "canceled", r.action(t), "SIGTERM cancels the run rather than exiting at once")
	require.Equal(t, ExitTerminated, waitCode(t, r.done), c.stderr.String())
	assert.Empty(t, r.exits, "the process was not ended at once: the run wound down")
	lines := runLineRE.FindAllStringSubmatch(c.stderr.String(), -1)
	require.Len(t, lines, 1, c.stderr.String())
	assert.Equal(t, []string{"ERROR", "1", "143", "0", ""}, lines[0][1:])
	assert.True(t, strings.HasSuffix(c.stderr.String(), "kadmin-lua: terminated\n"), c.stderr.String())
}

func TestLoopSIGTERMBetweenRunsExits143(t *testing.T) {
	c := newCLI(t)
	script := writeFile(t, "quick.lua", `return "done"`)
	r := startCLI(c, nil, "-b", "127.0.0.1:1", "run", "--every", "1h", script)
	waitFor(t, "run 1 to be reported", func() bool { return strings.Contains(c.stderr.String(), "run=1 exit=0") })
	began := time.Now()
	c.sigs <- syscall.SIGTERM
	assert.Equal(t, "canceled", r.action(t))
	require.Equal(t, ExitTerminated, waitCode(t, r.done))
	assert.Less(t, time.Since(began), 5*time.Second, "the wait for the next period ends at once")
	assert.Equal(t, "done\n", c.stdout.String())
	assert.Empty(t, r.exits)
}

// Memory stays flat over 1,000 runs: every run's Lua state is released,
// and the one connection does not grow.
func TestLoopMemoryIsFlatOver1000Runs(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 runs; run without -short")
	}
	c := newCluster(t, kfake.SeedTopics(3, "orders", "payments"))
	script := writeFile(t, "lag.lua", `
local topics = list_topics()
local t = {}
for i = 1, 500 do t[i] = {topic = topics[1].name, partition = i, figure = string.rep("x", 64)} end
kafka.metric("kafka_topics", #topics)
kafka.check(#t == 500, "built")
return #topics`)
	heap := map[int]uint64{}
	var ends []time.Time
	st := quietLoop([]string{"-b", c.addrs, "run", "--every", "1ms", "--max-runs", "1000", script}, func(n int) {
		ends = append(ends, time.Now())
		if n == 100 || n == 1000 {
			heap[n], _ = heapAfterGC()
		}
	})
	began := time.Now()
	require.Equal(t, ExitOK, run(st))
	require.Len(t, ends, 1000)
	growth := int64(heap[1000]) - int64(heap[100])
	t.Logf("1,000 runs in %s; heap after GC: run 100 %.2f MiB, run 1000 %.2f MiB (%+.1f KiB)",
		time.Since(began).Round(time.Millisecond), mib(heap[100]), mib(heap[1000]), float64(growth)/1024)
	assert.Less(t, growth, int64(2<<20), "900 more runs grew the heap by less than 2 MiB")
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// quietLoop is a process State for a loop-mode run of args that prints
// nowhere and calls onRun after each run.
func quietLoop(args []string, onRun func(n int)) *State {
	return &State{
		Args:       args,
		Env:        func(string) string { return "" },
		Stdin:      strings.NewReader(""),
		Stdout:     io.Discard,
		Stderr:     io.Discard,
		IsTerminal: func(any) bool { return false },
		Exit:       func(int) {},
		onRun:      onRun,
	}
}

// heapAfterGC is the live heap after two collections, and the goroutines.
func heapAfterGC() (uint64, int) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

// Memory stays flat when every run makes (and at its end closes) a client
// of its own with kafka.connect{} (issue 17: RSS grew from 25 to 245 MB over
// 20,000 runs at 1 ms): heap after GC and goroutines bounded over thousands
// of runs.
func TestLoopMemoryIsFlatWithKafkaConnectInEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of runs; run without -short")
	}
	c := newCluster(t, kfake.SeedTopics(3, "orders", "payments"))
	script := writeFile(t, "connect.lua", fmt.Sprintf(`
local other = kafka.connect{brokers = %q}
local n = #other:list_topics()
kafka.metric("kafka_topics", n)
return n`, c.addrs))
	const runs, first = 2000, 200
	heap, goroutines := map[int]uint64{}, map[int]int{}
	st := quietLoop([]string{"-b", c.addrs, "run", "--every", "1ms", "--max-runs", strconv.Itoa(runs), script}, func(n int) {
		if n == first || n == runs {
			heap[n], goroutines[n] = heapAfterGC()
		}
	})
	began := time.Now()
	require.Equal(t, ExitOK, run(st))
	growth := int64(heap[runs]) - int64(heap[first])
	t.Logf("%d runs with kafka.connect in %s; heap after GC: run %d %.2f MiB, run %d %.2f MiB (%+.1f KiB); goroutines %d -> %d",
		runs, time.Since(began).Round(time.Millisecond), first, mib(heap[first]), runs, mib(heap[runs]), float64(growth)/1024,
		goroutines[first], goroutines[runs])
	// Before the contact let go of its timer at Close, each closed client
	// (and the Lua state its last call's context led to) stayed reachable
	// until its deadline: +620 KiB here, and 0.98 to 36.7 MiB over 7,000 runs.
	assert.Less(t, growth, int64(256<<10), "1,800 more runs, each with its own client, grew the heap by less than 256 KiB")
	assert.LessOrEqual(t, goroutines[runs], goroutines[first]+10, "no goroutine left behind per client")
}
