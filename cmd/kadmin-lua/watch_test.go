package main

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watch in a script: stdout is no terminal, so one block per refresh with
// no escapes, bounded by count, or by a signal.
func TestWatchInAScriptIsPiped(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-e", `watch("1 + 1", 0.1, {count = 2}) print("after")`), c.stderr.String())
	out := c.stdout.String()
	assert.NotContains(t, out, "\x1b")
	assert.Equal(t, 2, strings.Count(out, "watch 1 + 1  every 100ms  refresh "), out)
	assert.True(t, strings.HasSuffix(out, "\n2\n\nafter\n"), out)
}

func TestWatchInAScriptEndsOnSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			c := newCLI(t)
			r := startCLI(c, nil, "-e", `watch("1 + 1", 0.1) print("after")`)
			waitFor(t, "two refreshes", func() bool { return strings.Contains(c.stdout.String(), "refresh 2 ") })
			c.sigs <- tc.sig
			require.Equal(t, tc.code, waitCode(t, r.done), c.stderr.String())
			assert.NotContains(t, c.stdout.String(), "after")
		})
	}
}
