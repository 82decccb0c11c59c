package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestWaitReassignmentsReportsBytesCopied: while orders[0] moves from
// broker 0 to brokers 1 and 2, the progress says how much of the source's
// size the new replicas hold, from the log dirs, and a future replica (a
// move between dirs) counts against the replica it replaces.
func TestWaitReassignmentsReportsBytesCopied(t *testing.T) {
	cl, c, adm := newTestClient(t)
	// Replicas 1 and 2 once done: kfake's replicas are the leader and the
	// brokers after it.
	_, err := adm.CreateTopic(context.Background(), 1, 2, nil, "orders")
	require.NoError(t, err)
	require.NoError(t, c.MoveTopicPartition("orders", 0, 1))
	var mu sync.Mutex
	polls := 0
	c.ControlKey(int16(kmsg.ListPartitionReassignments), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		polls++
		resp := r.(*kmsg.ListPartitionReassignmentsRequest).ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		if polls <= 2 {
			rt := kmsg.NewListPartitionReassignmentsResponseTopic()
			rt.Topic = "orders"
			rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas = 0, []int32{0, 1, 2}, []int32{1, 2}, []int32{0}
			rt.Partitions = append(rt.Partitions, rp)
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	// Broker 0 has the source (4000 bytes) and a future copy of it in a
	// second dir (1000); brokers 1 and 2 hold 3000 and 1000 of it.
	sizes := map[int32]int64{0: 4000, 1: 3000, 2: 1000}
	c.ControlKey(int16(kmsg.DescribeLogDirs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		node := c.CurrentNode()
		resp := r.(*kmsg.DescribeLogDirsRequest).ResponseKind().(*kmsg.DescribeLogDirsResponse)
		dir := func(name string, size int64, future bool) {
			d := kmsg.NewDescribeLogDirsResponseDir()
			d.Dir = name
			rt := kmsg.NewDescribeLogDirsResponseDirTopic()
			rt.Topic = "orders"
			rp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
			rp.Partition, rp.Size, rp.IsFuture = 0, size, future
			rt.Partitions = append(rt.Partitions, rp)
			d.Topics = append(d.Topics, rt)
			resp.Dirs = append(resp.Dirs, d)
		}
		dir("/a", sizes[node], false)
		if node == 0 {
			dir("/b", 1000, true)
		}
		return resp, nil, true
	})
	var lines []string
	var copied []*ReassignBytes
	ctx := WithProgress(context.Background(), func(s string) { lines = append(lines, s) })
	var done []FinishedReassignment
	done, err = cl.WaitReassignments(ctx, WaitOptions{Interval: 10 * time.Millisecond, Timeout: 10 * time.Second,
		Progress: func(_ []Reassignment, _ int, _ time.Duration, b *ReassignBytes) { copied = append(copied, b) }})
	require.NoError(t, err)
	require.Len(t, done, 1)
	require.NotEmpty(t, copied)
	require.NotNil(t, copied[0])
	// Adding: 3000 + 1000 of 2 x 4000; the future replica: 1000 of 4000.
	assert.Equal(t, ReassignBytes{Copied: 5000, Total: 12000, Percent: 41.7}, *copied[0])
	assert.Equal(t, "1 partition(s) moving: orders[0]; 0 finished; 4.9 KiB of 11.7 KiB copied (41.7%)", lines[0])
	assert.Nil(t, copied[len(copied)-1], "nothing moving: nothing to measure")
}

func TestSpreadIsMaxOverMean(t *testing.T) {
	assert.Equal(t, 100.0, maxOverMean(nil))
	assert.Equal(t, 100.0, maxOverMean([]float64{0, 0}))
	assert.Equal(t, 100.0, maxOverMean([]float64{5, 5, 5}))
	assert.Equal(t, 300.0, maxOverMean([]float64{3, 0, 0}))
	assert.Equal(t, 150.0, maxOverMean([]float64{2, 1, 1}))
	assert.Equal(t, 133.3, maxOverMean([]float64{4, 2, 3}))
}
