package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// An iterator returned from -e prints as the table form of the same call
// prints, in every output format: the rows of lag (summaries),
// describe_topics and list_offsets (1,200 partitions: more than one block
// of rows, which go on under one header).
func TestReturnedIteratorPrintsItsRows(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(3, "orders", "payments"), kfake.SeedTopics(1200, "wide"))
	adm := c.admin(t)
	for i := range 3 {
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: "orders", Partition: int32(i), At: 0, LeaderEpoch: -1})
		_, err := adm.CommitOffsets(ctx(t), fmt.Sprintf("g%d", i), os)
		require.NoError(t, err)
	}
	calls := []struct{ call, options string }{
		{"describe_topics(nil, {%s})", "exclude = '^wide$'"},
		{"list_offsets(nil, 'latest', {%s})", "match = '.'"},
		{"lag(nil, {%s})", "summary = true"},
	}
	for _, format := range []string{"table", "json", "ndjson", "yaml"} {
		for _, k := range calls {
			whole := newCLI(t)
			require.Equal(t, 0, whole.run("-b", c.addrs, "-o", format, "-e", "return "+fmt.Sprintf(k.call, k.options)), whole.stderr.String())
			iterated := newCLI(t)
			require.Equal(t, 0, iterated.run("-b", c.addrs, "-o", format, "-e", "return "+fmt.Sprintf(k.call, k.options+", iterate = true")), iterated.stderr.String())
			require.NotEmpty(t, whole.stdout.String())
			assert.Equal(t, whole.stdout.String(), iterated.stdout.String(), "%s -o %s", k.call, format)
		}
	}
	cli := newCLI(t)
	require.Equal(t, 0, cli.run("-b", c.addrs, "-e", "return list_offsets('wide', 'latest', {iterate = true})"), cli.stderr.String())
	lines := strings.Split(strings.TrimSpace(cli.stdout.String()), "\n")
	assert.Len(t, lines, 1201, "one header, then a line a partition")
	assert.Equal(t, 1, strings.Count(cli.stdout.String(), "PARTITION"))
}

// An iterator whose rows failed prints every row, then fails the run as the
// table form's call would have: the Kafka exit code, the failed groups
// named; under -o json the array is left open, so no reader takes it for
// a whole answer.
func TestReturnedIteratorWithFailedRowsFailsTheRun(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "orders"))
	adm := c.admin(t)
	groups := commitGroups(t, adm, 6)
	slow := c.CoordinatorFor("g0")
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Nodes: []int32{slow}, Err: kerr.RequestTimedOut, Count: -1})
	for _, format := range []string{"ndjson", "json", "table"} {
		cli := newCLI(t)
		code := cli.run("-b", c.addrs, "--timeout", "500ms", "-o", format, "-e", "return lag(nil, {summary = true, iterate = true})")
		require.Equal(t, ExitKafka, code, cli.stderr.String())
		out := cli.stdout.String()
		for _, g := range groups {
			assert.Contains(t, out, g, "%s: every group is a row", format)
		}
		assert.Contains(t, cli.stderr.String(), "g0")
		assert.Contains(t, cli.stderr.String(), "groups failed")
		if format == "json" {
			assert.False(t, strings.HasSuffix(strings.TrimSpace(out), "]"), "the array is left open")
		}
		if format == "ndjson" {
			assert.Len(t, strings.Split(strings.TrimSpace(out), "\n"), len(groups))
		}
	}
}

// commitGroups commits offset 0 of orders' partition 0 for n groups, g0 to
// g(n-1), and returns their names.
func commitGroups(t *testing.T, adm *kadm.Client, n int) []string {
	var groups []string
	for i := range n {
		g := fmt.Sprintf("g%d", i)
		groups = append(groups, g)
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 0, LeaderEpoch: -1})
		_, err := adm.CommitOffsets(ctx(t), g, os)
		require.NoError(t, err)
	}
	return groups
}
