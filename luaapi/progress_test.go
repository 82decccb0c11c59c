package luaapi

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func newProgressEnv(t *testing.T, every time.Duration) *env {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return newEnvOn(t, c, Options{ProgressEvery: every})
}

var progressLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ INFO wait_reassignments: \d+s: (1 partition\(s\) moving: orders\[1\]; 0 finished|0 partition\(s\) moving; 1 finished)$`)

// Piped into a log, a long wait says what it waits for every interval, as
// kafka.log lines, and stops when the call returns.
func TestProgressLinesWhenStderrIsNotATerminal(t *testing.T) {
	e := newProgressEnv(t, 40*time.Millisecond)
	craftListing(e, 12, moving("orders", 1, []int32{0, 1, 2}, []int32{2}, []int32{0}))
	e.run(`local done = wait_reassignments{interval_ms = 30, timeout = 10000}; assert(#done == 1)`)
	lines := strings.Split(strings.TrimSpace(e.stderr.String()), "\n")
	require.GreaterOrEqual(t, len(lines), 3, e.stderr.String())
	for _, l := range lines {
		assert.Regexp(t, progressLine, l)
	}
	n := len(e.stderr.String())
	time.Sleep(120 * time.Millisecond)
	assert.Equal(t, n, len(e.stderr.String()), "no line after the call returned")

	// A quick call says nothing.
	e.stderr.Reset()
	e.run(`list_topics()`)
	assert.Empty(t, e.stderr.String())
}

// On a terminal the line is kept up to date in place and erased at the end.
func TestProgressInPlaceOnATerminal(t *testing.T) {
	old := stderrIsTerminal
	stderrIsTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { stderrIsTerminal = old })
	e := newProgressEnv(t, 40*time.Millisecond)
	craftListing(e, 12, moving("orders", 1, []int32{0, 1, 2}, []int32{2}, []int32{0}))
	e.run(`wait_reassignments{interval_ms = 30, timeout = 10000}`)
	out := e.stderr.String()
	assert.NotContains(t, out, "\n", "no new lines on a terminal")
	assert.NotContains(t, out, " INFO ")
	assert.GreaterOrEqual(t, strings.Count(out, "\r\x1b[Kwait_reassignments: "), 2, "%q", out)
	assert.Contains(t, out, "1 partition(s) moving: orders[1]; 0 finished")
	assert.True(t, strings.HasSuffix(out, "\r\x1b[K"), "the line is erased: %q", out)
}

// Retries until the deadline say so: what failed and which attempt.
func TestProgressReportsRetries(t *testing.T) {
	e := newProgressEnv(t, 40*time.Millisecond)
	e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeConfigs}, Err: kerr.CoordinatorLoadInProgress, Count: 4, TopLevel: false})
	e.run(`create_topics{"slow"}`)
	e.run(`describe_configs{topic = "slow"}`)
	assert.Regexp(t, `INFO describe_configs: \d+s: retrying .*COORDINATOR_LOAD_IN_PROGRESS`, e.stderr.String())
}

// ProgressEvery < 0 turns the reports off.
func TestProgressOff(t *testing.T) {
	e := newProgressEnv(t, -1)
	craftListing(e, 5, moving("orders", 1, []int32{0, 1, 2}, []int32{2}, []int32{0}))
	e.run(`wait_reassignments{interval_ms = 30, timeout = 10000}`)
	assert.Empty(t, e.stderr.String())
}

// A call's reporter and timer are the last call's: a call that ends
// before its own interval says nothing though the timer was armed for an
// earlier call's, and a slow call after quick ones still reports.
func TestProgressReusedFromCallToCall(t *testing.T) {
	e := newProgressEnv(t, 80*time.Millisecond)
	e.run(`list_topics()`)
	slowMetadata := func(d time.Duration) {
		e.cluster.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
			e.cluster.DropControl() // one request, then answered as usual
			e.cluster.SleepControl(func() { time.Sleep(d) })
			return nil, nil, false
		})
	}
	slowMetadata(200 * time.Millisecond)
	e.run(`list_topics()`)
	require.Contains(t, e.stderr.String(), "list_topics: ", "a slow call reports")
	time.Sleep(150 * time.Millisecond) // its timer fires once more, finds it over
	e.stderr.Reset()

	e.run(`list_topics()`) // arms the timer for its first report
	time.Sleep(50 * time.Millisecond)
	slowMetadata(60 * time.Millisecond)
	e.run(`list_topics()`) // ends past the last call's first report, before its own
	assert.Empty(t, e.stderr.String())

	slowMetadata(200 * time.Millisecond)
	e.run(`list_topics()`)
	assert.Contains(t, e.stderr.String(), "list_topics: ")
}

// A name in a progress line comes from the cluster (a crafted answer can
// carry any bytes): bidi overrides and C1 controls are escaped, as in a
// table cell, not only C0.
func TestProgressLineEscapesWhatCouldDriveATerminal(t *testing.T) {
	e := newProgressEnv(t, 40*time.Millisecond)
	craftListing(e, 12, moving("ord\u202eers\u009b2J\x1b", 1, []int32{0, 1, 2}, []int32{2}, []int32{0}))
	e.run(`wait_reassignments{interval_ms = 30, timeout = 10000}`)
	out := e.stderr.String()
	assert.Contains(t, out, `ord\u202eers\u009b2J\x1b[1]`, out)
	for _, r := range "\u202e\u009b\x1b" {
		assert.NotContains(t, out, string(r))
	}
}
