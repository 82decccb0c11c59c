package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A run says what it cost: under --verbose a line per phase and per Kafka
// API after the run, and in --metrics-file the same figures by phase and
// api, which match the requests the cluster received.
func TestRunAccountsForItself(t *testing.T) {
	c, fetches := groupsCountingFetches(t, "billing", "audit", "search")
	script := writeFile(t, "sum.lua", `
local n = 0
for g in lag(nil, {summary = true, iterate = true}) do n = n + 1 end
return n`)
	prom := filepath.Join(t.TempDir(), "lag.prom")
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--verbose", "run", "--metrics-file", prom, script))
	assert.Equal(t, "3\n", cli.stdout.String())
	stderr := cli.stderr.String()
	assert.Regexp(t, `kadmin-lua: verbose: cost: phases: describe_groups \S+ \(1 times\), fetch_offsets \S+ \(1 times\), list_groups \S+ \(1 times\), list_offsets \S+ \(1 times\)\n`, stderr)
	m := regexp.MustCompile(`kadmin-lua: verbose: cost: OffsetFetch: (\d+) requests, \S+ \S+ written, \S+ \S+ read, \S+ round trips\n`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	assert.Equal(t, strconv.FormatInt(fetches.Load(), 10), m[1], "the requests the cluster received")

	samples, help := parseOpenMetrics(t, prom)
	assert.Equal(t, []string{"api=OffsetFetch,script=sum.lua " + strconv.FormatInt(fetches.Load(), 10)},
		filter(samples["kadmin_lua_requests"], "api=OffsetFetch,"))
	assert.Len(t, filter(samples["kadmin_lua_request_bytes_read"], "api=OffsetFetch,"), 1)
	assert.Equal(t, []string{"phase=fetch_offsets,script=sum.lua 1"}, filter(samples["kadmin_lua_phase_count"], "phase=fetch_offsets,"))
	require.Len(t, filter(samples["kadmin_lua_phase_seconds"], "phase=describe_groups,"), 1)
	assert.Contains(t, help["kadmin_lua_phase_seconds"], "each phase")

	// Without --verbose, nothing on stderr.
	cli = newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "run", script))
	assert.Empty(t, cli.stderr.String())
}

// A run that returns an iterator reads the cluster while its rows are
// printed, after the chunk has ended: that reading is the run's too, in
// --verbose and in --metrics-file (a script returning lag{iterate = true}
// used to account only for the listing of the groups).
func TestRunAccountsForTheIteratorItReturns(t *testing.T) {
	c, fetches := groupsCountingFetches(t, "billing", "audit")
	const chunk = `return lag(nil, {summary = true, iterate = true})`
	fetchLine := regexp.MustCompile(`kadmin-lua: verbose: cost: OffsetFetch: (\d+) requests`)

	// -e: printed by runScript.
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--verbose", "-o", "json", "-e", chunk))
	assert.Contains(t, cli.stdout.String(), `"group": "billing"`)
	assert.Regexp(t, `cost: phases: describe_groups \S+ \(1 times\), fetch_offsets \S+ \(1 times\), list_groups`, cli.stderr.String())
	m := fetchLine.FindStringSubmatch(cli.stderr.String())
	require.NotNil(t, m, cli.stderr.String())
	assert.Equal(t, strconv.FormatInt(fetches.Load(), 10), m[1])

	// run --metrics-file: printed by the scheduled run.
	fetches.Store(0)
	script := writeFile(t, "rows.lua", chunk)
	prom := filepath.Join(t.TempDir(), "lag.prom")
	cli = newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--verbose", "run", "--metrics-file", prom, script))
	m = fetchLine.FindStringSubmatch(cli.stderr.String())
	require.NotNil(t, m, cli.stderr.String())
	assert.Equal(t, strconv.FormatInt(fetches.Load(), 10), m[1])
	samples, _ := parseOpenMetrics(t, prom)
	assert.Equal(t, []string{"api=OffsetFetch,script=rows.lua " + strconv.FormatInt(fetches.Load(), 10)},
		filter(samples["kadmin_lua_requests"], "api=OffsetFetch,"))
	assert.Equal(t, []string{"phase=fetch_offsets,script=rows.lua 1"}, filter(samples["kadmin_lua_phase_count"], "phase=fetch_offsets,"))
}

// With --state kafka:TOPIC the state's own requests (taking the writer,
// reading the version, writing the new one in a transaction) are the
// run's: in --verbose and in --metrics-file, under the phases state_take,
// state_read and state_write (loop mode: each run's own).
func TestRunAccountsForItsStateInATopic(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(4, "orders"))
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 0, LeaderEpoch: -1})
	_, err := c.admin(t).CommitOffsets(ctx(t), "billing", os)
	require.NoError(t, err)
	var ends atomic.Int64
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		ends.Add(1)
		return nil, nil, false
	})
	script := writeFile(t, "judge.lua", `return #lag_status({"billing"})`)

	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--verbose", "--state", "kafka:kadmin-state/job", "run", script))
	stderr := cli.stderr.String()
	assert.Regexp(t, `cost: phases: .*state_read \S+ \(1 times\), state_take \S+ \(1 times\), state_write \S+ \(1 times\)`, stderr)
	assert.Regexp(t, `kadmin-lua: verbose: cost: EndTxn: 1 requests`, stderr)
	assert.Regexp(t, `kadmin-lua: verbose: cost: InitProducerId: 1 requests`, stderr)
	assert.Equal(t, int64(1), ends.Load())

	prom := filepath.Join(t.TempDir(), "lag.prom")
	cli = newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--state", "kafka:kadmin-state/job", "run", "--every", "1ms", "--max-runs", "2", "--metrics-file", prom, script))
	samples, _ := parseOpenMetrics(t, prom)
	assert.Equal(t, []string{"api=EndTxn,script=judge.lua 1"}, filter(samples["kadmin_lua_requests"], "api=EndTxn,"), "the last run's write, and only it")
	assert.Equal(t, []string{"phase=state_write,script=judge.lua 1"}, filter(samples["kadmin_lua_phase_count"], "phase=state_write,"))
	assert.Equal(t, int64(3), ends.Load())
}

// groupsCountingFetches is a cluster whose groups are committed on
// orders[0], and the count of the OffsetFetch requests it receives.
func groupsCountingFetches(t *testing.T, groups ...string) (*cluster, *atomic.Int64) {
	c := newCluster(t, kfake.SeedTopics(4, "orders"))
	adm := c.admin(t)
	for _, g := range groups {
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 0, LeaderEpoch: -1})
		_, err := adm.CommitOffsets(ctx(t), g, os)
		require.NoError(t, err)
	}
	var fetches atomic.Int64
	c.ControlKey(int16(kmsg.OffsetFetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fetches.Add(1)
		return nil, nil, false
	})
	return c, &fetches
}

func filter(samples []string, prefix string) []string {
	var out []string
	for _, s := range samples {
		if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
			out = append(out, s)
		}
	}
	return out
}
