package four

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The runbooks of issue 30 on a real cluster, one after another on one
// topic: set-replication-factor raises it from 1 to 3 and lowers it to 2
// (the leaders kept, every record still readable, each partition with N
// replicas); drain-broker empties broker 4 of every replica and leader;
// rebalance spreads the topic over the four brokers again. Each runs the
// shipped script through the binary, paced at 2 moves per broker and
// written ahead to an audit log.
func TestRunbooksMoveDataOnARealCluster(t *testing.T) {
	need(t)
	const topic, partitions, records = "runbooks", 4, 200
	res := runBinary(ctxFor(t, time.Minute), t, "--yes", "-e",
		fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {1}, [1] = {2}, [2] = {3}, [3] = {4}}}}`, topic))
	require.Equal(t, 0, res.Code, res.Stderr)
	waitLayout(t, topic, map[int32][]int32{0: {1}, 1: {2}, 2: {3}, 3: {4}})
	produce(t, topic, partitions, records, 512)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	runbook := func(args ...string) []map[string]any {
		t.Helper()
		r := runBinary(ctxFor(t, 3*time.Minute), t, append([]string{"--yes", "--audit-log", audit, "-o", "json", "run",
			filepath.Join("..", "..", "scripts", args[0]+".lua")}, append(args[1:], "--max-moves-per-broker", "2")...)...)
		require.Equal(t, 0, r.Code, "%s: %s", args[0], r.Stderr)
		var rows []map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows), r.Stdout)
		return rows
	}

	leaders := map[int32]int32{}
	for p, l := range layout(t, topic) {
		leaders[p] = l.replicas[0]
	}
	rows := runbook("set-replication-factor", topic, "3")
	assert.Len(t, rows, partitions)
	for p, l := range layout(t, topic) {
		assert.Len(t, l.replicas, 3, "partition %d", p)
		assert.Equal(t, leaders[p], l.replicas[0], "partition %d: new replicas go last", p)
	}
	readAll(t, topic, partitions, records)

	runbook("set-replication-factor", topic, "2")
	for p, l := range layout(t, topic) {
		assert.Len(t, l.replicas, 2, "partition %d", p)
		assert.Contains(t, l.replicas, l.leader, "partition %d: the leader is kept", p)
	}
	readAll(t, topic, partitions, records)

	rows = runbook("drain-broker", "4")
	require.Len(t, rows, 1)
	assert.Equal(t, true, rows[0]["empty"], "%v", rows[0])
	for p, l := range layout(t, topic) {
		assert.NotContains(t, l.replicas, int32(4), "partition %d", p)
		assert.NotEqual(t, int32(4), l.leader, "partition %d", p)
	}
	readAll(t, topic, partitions, records)

	runbook("rebalance", topic)
	count := map[int32]int{}
	for _, l := range layout(t, topic) {
		for _, b := range l.replicas {
			count[b]++
		}
	}
	assert.Equal(t, map[int32]int{1: 2, 2: 2, 3: 2, 4: 2}, count, "8 replicas over 4 brokers, broker 4 included again")
	readAll(t, topic, partitions, records)
	assert.Empty(t, throttles(t, topic), "no throttle is left behind")
}

// readAll reads every partition of topic from the start and checks each
// holds n records: what moved between brokers is all there.
func readAll(t *testing.T, topic string, partitions int32, n int) {
	t.Helper()
	offsets := map[int32]kgo.Offset{}
	for p := int32(0); p < partitions; p++ {
		offsets[p] = kgo.NewOffset().AtStart()
	}
	cl, err := need(t).Client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}))
	require.NoError(t, err)
	defer cl.Close()
	got := map[int32]int{}
	ctx := ctxFor(t, time.Minute)
	for total := 0; total < int(partitions)*n; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "read %v of %d records a partition", got, n)
		fs.EachError(func(_ string, p int32, err error) { t.Logf("partition %d: %v", p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition]++
			total++
		})
	}
	for p := int32(0); p < partitions; p++ {
		assert.Equal(t, n, got[p], "partition %d", p)
	}
}
