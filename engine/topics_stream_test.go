package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// readTopicCursor reads a cursor to its end, page by page.
func readTopicCursor(t *testing.T, cur *TopicCursor) [][]TopicDescription {
	t.Helper()
	defer cur.Close()
	var pages [][]TopicDescription
	for {
		page, err := cur.Next()
		require.NoError(t, err)
		if page == nil {
			return pages
		}
		pages = append(pages, page)
	}
}

func topicNamesOf(ds []TopicDescription) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

// A streamed describe hands over pages of about PagePartitions partitions
// (a topic never split), the topics the filters leave out never made into
// rows, and the same descriptions as one DescribeTopics call; a cursor
// closed early lets go of its read.
func TestTopicCursorPagesAndFilters(t *testing.T) {
	cl, _, adm := newTestClient(t)
	ctx := context.Background()
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("a-%02d", i))
	}
	_, err := adm.CreateTopics(ctx, 3, 1, nil, append(slices.Clone(names), "b-00")...)
	require.NoError(t, err)
	chosen := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "a-07" })
	whole, err := cl.DescribeTopics(ctx, chosen)
	require.NoError(t, err)

	// 3 partitions and the topic count 4 toward a page of 8: two topics a page.
	pages := readTopicCursor(t, cl.OpenTopics(ctx, nil, TopicsOptions{
		Match: regexp.MustCompile(`^a-`), Exclude: regexp.MustCompile(`7$`), PagePartitions: 8}))
	require.Len(t, pages, 6)
	for _, p := range pages[:5] {
		assert.Len(t, p, 2)
	}
	assert.Equal(t, whole, slices.Concat(pages...))

	// Named topics, out of order and repeated: described once each, in name order.
	named := readTopicCursor(t, cl.OpenTopics(ctx, []string{"b-00", "a-03", "b-00"}, TopicsOptions{}))
	require.Len(t, named, 1)
	assert.Equal(t, []string{"a-03", "b-00"}, topicNamesOf(named[0]))

	early := cl.OpenTopics(ctx, nil, TopicsOptions{PagePartitions: 1})
	first, err := early.Next()
	require.NoError(t, err)
	require.Len(t, first, 1)
	early.Close()
	after, err := early.Next()
	require.NoError(t, err)
	assert.Nil(t, after, "a closed cursor has no more pages")
}

// A broker that drops the connection between two DescribeTopicPartitions
// pages: the read goes on from another broker, and every topic comes once
// and whole (the topics handed over before the drop are not repeated).
func TestTopicCursorBrokerDroppingMidRead(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	// 3,000 partitions: two broker pages of at most 2,000.
	_, err := adm.CreateTopics(ctx, 1500, 1, nil, "big-a", "big-b")
	require.NoError(t, err)
	var asked atomic.Int32
	c.ControlKey(int16(kmsg.DescribeTopicPartitions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if req.(*kmsg.DescribeTopicPartitionsRequest).Cursor != nil && asked.Add(1) == 1 {
			return nil, errors.New("dropped"), true
		}
		return nil, nil, false
	})
	pages := readTopicCursor(t, cl.OpenTopics(ctx, nil, TopicsOptions{Match: regexp.MustCompile(`^big-`), PagePartitions: 1}))
	got := slices.Concat(pages...)
	require.Equal(t, []string{"big-a", "big-b"}, topicNamesOf(got))
	for _, d := range got {
		assert.Len(t, d.Partitions, 1500, d.Name)
		assert.Nil(t, d.Err, d.Name)
	}
	assert.Equal(t, int32(2), asked.Load(), "the dropped continuation, then the other broker's")
}

// An answer's partitions out of order are put in order with their errors
// kept on the right partitions; a partition whose leader is not elected
// says to ask again, an offline one (replicas offline) does not.
func TestDescribedTopicOrdersPartitionsWithTheirErrors(t *testing.T) {
	a := topicAnswer{Topic: "orders"}
	a.addPartition(PartitionInfo{Partition: 2, Leader: -1, Replicas: []int32{1}, ISR: []int32{}, OfflineReplicas: []int32{1}}, kerr.LeaderNotAvailable)
	a.addPartition(PartitionInfo{Partition: 0, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}, OfflineReplicas: []int32{}}, nil)
	a.addPartition(PartitionInfo{Partition: 1, Leader: -1, Replicas: []int32{1}, ISR: []int32{}, OfflineReplicas: []int32{}}, kerr.LeaderNotAvailable)
	d, again := describedTopic(a)
	require.Len(t, d.Partitions, 3)
	for i, p := range d.Partitions {
		assert.Equal(t, int32(i), p.Partition)
	}
	assert.Nil(t, d.Partitions[0].Err)
	require.NotNil(t, d.Partitions[1].Err)
	assert.Equal(t, "orders[1]", d.Partitions[1].Err.Resource)
	require.NotNil(t, d.Partitions[2].Err)
	assert.Equal(t, "orders[2]", d.Partitions[2].Err.Resource)
	require.NotNil(t, again, "partition 1 has no leader yet")
	assert.Equal(t, "orders[1]", again.Resource)

	offline := topicAnswer{Topic: "orders"}
	offline.addPartition(PartitionInfo{Partition: 0, Leader: -1, Replicas: []int32{1}, OfflineReplicas: []int32{1}}, kerr.LeaderNotAvailable)
	_, again = describedTopic(offline)
	assert.Nil(t, again, "an offline partition is described as it is")
}
