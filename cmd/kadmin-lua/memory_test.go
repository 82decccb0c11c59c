package main

import (
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A script that allocates without end ends as a script error that names
// the limit and the flag (exit 1), not as the Go runtime's fatal error
// (exit 2) or an OOM kill.
func TestMaxMemoryEndsARunawayScript(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	c := newCLI(t)
	start := time.Now()
	code := c.run("--max-memory", "64MiB", "-e", `local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 100) .. i end`)
	assert.Equal(t, ExitScript, code)
	// A guard against a script that is never stopped, not a speed
	// target: under -race on a loaded 2-core machine it takes ~90 s.
	assert.Less(t, time.Since(start), 5*time.Minute)
	assert.Regexp(t, `^kadmin-lua: MEMORY: the script was stopped: memory in use reached [0-9.]+ MiB, `+
		`over --max-memory 64 MiB \(raise it, or 0 for no limit\)\n$`, c.stderr.String())
	assert.Empty(t, c.stdout.String())
	assert.Empty(t, c.exits, "ended by the script's error, not by the runaway exit")
	assert.Equal(t, before, debug.SetMemoryLimit(-1), "the Go runtime's limit is put back")
}

func TestMaxMemoryCapsOneHugeString(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("--max-memory", "64MiB", "-e", `return #string.rep("x", 1e12)`))
	assert.Equal(t, "kadmin-lua: string.rep: MEMORY: the result would be 931.32 GiB, over half of --max-memory 64 MiB\n",
		c.stderr.String())

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("--max-memory", "0", "-e", `return #string.rep("x", 2^25)`), c.stderr.String())
	assert.Equal(t, "33554432\n", c.stdout.String(), "0 is no limit")
}

func TestMaxMemoryFlagValue(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("--max-memory", "lots", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), `invalid argument "lots" for "--max-memory" flag: want a size such as 512MiB, 2GiB or 0 for no limit`)

	for in, want := range map[string]int64{
		"0": 0, "1048576": 1 << 20, "512MiB": 512 << 20, "512M": 512 << 20, "512mb": 512 << 20,
		"2GiB": 2 << 30, "1.5G": 3 << 29, "64 KiB": 64 << 10, "1t": 1 << 40,
	} {
		var b byteSize
		require.NoError(t, b.Set(in), in)
		assert.Equal(t, want, int64(b), in)
	}
	for _, in := range []string{"", "-1", "12X", "GiB", "1e30G"} {
		var b byteSize
		assert.Error(t, b.Set(in), in)
	}
	b := byteSize(defaultMaxMemory)
	assert.Equal(t, "2GiB", b.String())
}

// Format runs a __tostring metamethod after the chunk, outside its
// protected call; an error there used to crash the process (exit 2).
func TestToStringErrorWhilePrintingIsAScriptError(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("-e",
		`local p = newproxy(true) getmetatable(p).__tostring = function() error("boom") end return {p}`))
	assert.Equal(t, "kadmin-lua: printing the result: value[1]: __tostring failed: (command line):1: boom\n", c.stderr.String())
}

// A panic in kadmin-lua itself is a bug: exit 1 with a stack, not the
// runtime's exit 2.
func TestPanicIsAnInternalErrorNotExit2(t *testing.T) {
	c := newCLI(t)
	st := c.state([]string{"-e", "return 1"})
	st.Env = func(string) string { panic("boom\x1b[31m") }
	require.Equal(t, ExitScript, run(st))
	assert.Contains(t, c.stderr.String(), "kadmin-lua: internal error (a bug, please report it): boom\\x1b[31m\n")
	assert.Contains(t, c.stderr.String(), "goroutine ")
}

// In a container the default limit is three quarters of its memory, so a
// script near it stops with MEMORY (exit 1) rather than being killed by
// the kernel (exit 137, retried by a CronJob as an outage).
func TestMaxMemoryDefaultFollowsTheContainer(t *testing.T) {
	for cgroup, want := range map[int64]int64{
		0:         defaultMaxMemory, // no container limit
		256 << 20: 192 << 20,        // deploy/'s CronJob
		1 << 30:   768 << 20,
		8 << 30:   defaultMaxMemory, // more than enough: 2 GiB as before
		-1:        defaultMaxMemory,
	} {
		assert.Equal(t, want, defaultMemoryLimit(cgroup), "cgroup limit %d", cgroup)
	}
}
