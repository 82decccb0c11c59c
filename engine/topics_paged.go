package engine

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
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

// elrSets are a partition's eligible leader replicas and last known ELR
// (KIP-966), as DescribeTopicPartitions reports them.
type elrSets struct{ elr, lastKnown []int32 }

// topicAnswer is one topic of a describe: its metadata and, when the
// broker answered DescribeTopicPartitions, its partitions' ELR.
type topicAnswer struct {
	kadm.TopicDetail
	elr map[int32]elrSets // nil from a Metadata answer
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
					cur = &topicAnswer{TopicDetail: kadm.TopicDetail{Topic: *t.Topic, ID: t.TopicID, IsInternal: t.IsInternal,
						Partitions: make(kadm.PartitionDetails, len(t.Partitions)), Err: kerr.ErrorForCode(t.ErrorCode)},
						elr: make(map[int32]elrSets, len(t.Partitions))}
				}
				for _, p := range t.Partitions {
					cur.Partitions[p.Partition] = kadm.PartitionDetail{Topic: cur.Topic, Partition: p.Partition,
						Leader: p.LeaderID, LeaderEpoch: p.LeaderEpoch, Replicas: p.Replicas, ISR: p.ISR,
						OfflineReplicas: p.OfflineReplicas, Err: kerr.ErrorForCode(p.ErrorCode)}
					cur.elr[p.Partition] = elrSets{orEmpty(p.EligibleLeaderReplicas), orEmpty(p.LastKnownELR)}
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
		fn(topicAnswer{TopicDetail: t})
	}
	return nil
}
