package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A whole-cluster lag_status iterated while one coordinator times out on
// its share of OffsetFetch: the loop gets every group, that coordinator's
// as ERR saying the phase, the others judged; the run ends with the Kafka
// exit code naming the groups that failed; and no sample was taken of the
// failed groups (samples 0: nothing is judged or recorded from half data).
func TestLagStatusIteratedWithOneCoordinatorTimingOut(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "orders"))
	adm := c.admin(t)
	groups := commitGroups(t, adm, 9)
	slow := c.CoordinatorFor("g0")
	var slowGroups []string
	for _, g := range groups {
		if c.CoordinatorFor(g) == slow {
			slowGroups = append(slowGroups, g)
		}
	}
	require.Less(t, len(slowGroups), len(groups), "another coordinator has groups")
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Nodes: []int32{slow}, Err: kerr.RequestTimedOut, Count: -1})
	script := writeFile(t, "status.lua", `
for g in lag_status(nil, {summary = true, iterate = true}) do
  print(g.group, g.status, g.failed_in or "-", g.samples)
end`)
	stateFile := filepath.Join(t.TempDir(), "lag.state")

	cli := newCLI(t)
	require.Equal(t, ExitKafka, cli.run("-b", c.addrs, "--timeout", "500ms", "--state", stateFile, "run", script), cli.stderr.String())
	rows := strings.Split(strings.TrimSpace(cli.stdout.String()), "\n")
	require.Len(t, rows, len(groups), "every group is a row")
	for i, g := range groups {
		if c.CoordinatorFor(g) == slow {
			assert.Equal(t, g+"\tERR\tfetch_offsets\t0", rows[i])
		} else {
			assert.Equal(t, g+"\tOK\t-\t1", rows[i])
		}
	}
	assert.Contains(t, cli.stderr.String(), fmt.Sprintf("%d of %d groups failed in fetch_offsets: %s", len(slowGroups), len(groups), strings.Join(slowGroups, ", ")))
}

// check-lag of named groups whose coordinator times out: the groups it
// could not read are a Kafka outage, exit 3 (a CronJob's podFailurePolicy
// retries it), as the same fault over the whole cluster is, not a failed
// check (exit 4: FailJob); a missing group beside them is a failed check.
func TestCheckLagOfNamedGroupsWithTheirCoordinatorTimingOut(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(2, "orders"))
	adm := c.admin(t)
	groups := commitGroups(t, adm, 9)
	slow := c.CoordinatorFor("g0")
	var fine string
	for _, g := range groups {
		if c.CoordinatorFor(g) != slow {
			fine = g
			break
		}
	}
	require.NotEmpty(t, fine, "another coordinator has groups")
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Nodes: []int32{slow}, Err: kerr.RequestTimedOut, Count: -1})

	cli := newCLI(t)
	require.Equal(t, ExitKafka, cli.run("-b", c.addrs, "--timeout", "500ms", "run", "check-lag", "g0", fine), cli.stderr.String())
	assert.Contains(t, cli.stderr.String(), "g0")
	assert.Contains(t, cli.stderr.String(), "could not be read")

	cli = newCLI(t)
	require.Equal(t, ExitCheck, cli.run("-b", c.addrs, "--timeout", "500ms", "run", "check-lag", "g0", fine, "no-such-group"), cli.stderr.String())
	assert.Contains(t, cli.stderr.String(), "no-such-group: NOTFOUND")
}
