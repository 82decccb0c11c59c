package engine

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// topicPageSize is the partitions a DescribeTopicPartitions answer may
// carry (Kafka's own default and cap is 2000); topicNamesPerRequest the
// names one request asks for. Together they bound what one answer holds,
// however large the cluster.
const (
	topicPageSize        = 2000
	topicNamesPerRequest = 1000
)

// topicAnswer is one topic of a describe, its partitions already the
// rows a description hands over (with ELR when the broker answered
// DescribeTopicPartitions): no map of kadm details in between, which was a
// third of a streamed describe's engine time at a million partitions.
type topicAnswer struct {
	Topic      string
	ID         [16]byte
	IsInternal bool
	Err        error
	parts      []PartitionInfo
	// partErrs are the partitions' errors as Kafka gave them, by index in
	// parts; nil when none has one (the common case).
	partErrs map[int]error
}

// addPartition appends a partition and its error.
func (t *topicAnswer) addPartition(p PartitionInfo, err error) {
	if err != nil {
		if t.partErrs == nil {
			t.partErrs = map[int]error{}
		}
		t.partErrs[len(t.parts)] = err
	}
	t.parts = append(t.parts, p)
}

// eachTopic describes names (every topic when names is nil) and calls fn
// once per topic, in name order. It asks with DescribeTopicPartitions
// (KIP-966, Kafka 3.8+), paged by the cursor, so no answer holds more than
// topicPageSize partitions; a broker without that API is asked with
// Metadata (one answer, and no ELR). All the pages come from one broker.
func (c *Client) eachTopic(ctx context.Context, names []string, fn func(topicAnswer)) error {
	var lastErr error
	for _, b := range c.candidateBrokers() {
		err := c.pagedTopics(ctx, b, names, fn)
		if err == nil {
			return nil
		}
		if e := AsError(err, ""); e.Code == kerr.UnsupportedVersion.Message {
			return c.metadataTopics(ctx, names, fn)
		}
		lastErr = err
		if ctx.Err() != nil || !isNetErr(err) {
			break
		}
	}
	if lastErr == nil {
		lastErr = Errorf(CodeNetwork, "", "no broker to ask")
	}
	return lastErr
}

// requester is what a kgo broker handle can do.
type requester interface {
	Request(context.Context, kmsg.Request) (kmsg.Response, error)
}

func (c *Client) pagedTopics(ctx context.Context, b requester, names []string, fn func(topicAnswer)) error {
	chunks := [][]string{nil}
	if names != nil {
		chunks = slices.Collect(slices.Chunk(names, topicNamesPerRequest))
	}
	var cur *topicAnswer // a topic may continue on the next page
	flush := func() {
		if cur != nil {
			fn(*cur)
			cur = nil
		}
	}
	for _, chunk := range chunks {
		req := kmsg.NewPtrDescribeTopicPartitionsRequest()
		req.ResponsePartitionLimit = topicPageSize
		for _, n := range chunk {
			rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
			rt.Topic = n
			req.Topics = append(req.Topics, rt)
		}
		for {
			// Each page within a call's timeout of its own: describing a
			// million partitions takes longer than one call's.
			rctx, cancel := c.callCtx(ctx)
			done := c.phase(PhaseDescribeTopics)
			kresp, err := b.Request(rctx, req)
			done()
			cancel()
			if err != nil {
				return err
			}
			resp := kresp.(*kmsg.DescribeTopicPartitionsResponse)
			for _, t := range resp.Topics {
				if t.Topic == nil {
					continue
				}
				if cur == nil || cur.Topic != *t.Topic {
					flush()
					// Sized for this page's share: growing the maps of a
					// 1,000-partition topic was a tenth of a streamed describe.
					cur = &topicAnswer{Topic: *t.Topic, ID: t.TopicID, IsInternal: t.IsInternal,
						Err: kerr.ErrorForCode(t.ErrorCode), parts: make([]PartitionInfo, 0, len(t.Partitions))}
				}
				for _, p := range t.Partitions {
					cur.addPartition(PartitionInfo{Partition: p.Partition, Leader: p.LeaderID, LeaderEpoch: p.LeaderEpoch,
						Replicas: orEmpty(p.Replicas), ISR: orEmpty(p.ISR), OfflineReplicas: orEmpty(p.OfflineReplicas),
						ELR: orEmpty(p.EligibleLeaderReplicas), LastKnownELR: orEmpty(p.LastKnownELR)}, kerr.ErrorForCode(p.ErrorCode))
				}
			}
			if resp.NextCursor == nil {
				break
			}
			cursor := kmsg.NewDescribeTopicPartitionsRequestCursor()
			cursor.Topic, cursor.Partition = resp.NextCursor.Topic, resp.NextCursor.Partition
			req.Cursor = &cursor
		}
	}
	flush()
	return nil
}

// metadataTopics is eachTopic for brokers before Kafka 3.8.
func (c *Client) metadataTopics(ctx context.Context, names []string, fn func(topicAnswer)) error {
	m, err := c.freshMetadata(ctx, names...)
	if err != nil {
		return err
	}
	for _, t := range m.Topics.Sorted() {
		a := topicAnswer{Topic: t.Topic, ID: t.ID, IsInternal: t.IsInternal, Err: t.Err, parts: make([]PartitionInfo, 0, len(t.Partitions))}
		for _, p := range t.Partitions.Sorted() {
			a.addPartition(PartitionInfo{Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				Replicas: orEmpty(p.Replicas), ISR: orEmpty(p.ISR), OfflineReplicas: orEmpty(p.OfflineReplicas)}, p.Err)
		}
		fn(a)
	}
	return nil
}
