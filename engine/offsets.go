package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// OffsetQuery says which offset ListOffsets asks for. The zero value is
// "latest".
type OffsetQuery struct {
	Kind      string // one of the OffsetAt* constants; "" means latest
	Timestamp int64  // for OffsetAtTimestamp: milliseconds since the epoch
}

// What ListOffsets can ask for.
const (
	OffsetAtEarliest      = "earliest"       // log start offset
	OffsetAtLatest        = "latest"         // high watermark
	OffsetAtMaxTimestamp  = "max_timestamp"  // the record with the largest timestamp (Kafka 3.0+)
	OffsetAtEarliestLocal = "earliest_local" // first offset on the brokers' disks (tiered storage; Kafka 3.4+)
	OffsetAtLatestTiered  = "latest_tiered"  // last offset in remote storage (Kafka 3.9+); -1 when nothing is tiered
	// OffsetAtEarliestPendingUpload: the first offset not yet copied to
	// remote storage (KIP-1023, ListOffsets v11, Kafka 4.2+); -1 when the
	// topic is not tiered.
	OffsetAtEarliestPendingUpload = "earliest_pending_upload"
	OffsetAtCommitted             = "committed" // last stable offset: the end under read_committed
	OffsetAtTimestamp             = "timestamp" // first offset whose record timestamp is >= Timestamp
)

// OffsetKinds lists the named queries, for argument errors.
var OffsetKinds = []string{OffsetAtEarliest, OffsetAtLatest, OffsetAtMaxTimestamp, OffsetAtEarliestLocal, OffsetAtLatestTiered, OffsetAtEarliestPendingUpload, OffsetAtCommitted}

// request returns the ListOffsets timestamp and isolation level for q.
func (q OffsetQuery) request() (timestamp int64, isolation int8, err *Error) {
	switch q.Kind {
	case OffsetAtEarliest:
		return -2, 0, nil
	case OffsetAtLatest, "":
		return -1, 0, nil
	case OffsetAtMaxTimestamp:
		return -3, 0, nil
	case OffsetAtEarliestLocal:
		return -4, 0, nil
	case OffsetAtLatestTiered:
		return -5, 0, nil
	case OffsetAtEarliestPendingUpload:
		return -6, 0, nil
	case OffsetAtCommitted:
		return -1, 1, nil
	case OffsetAtTimestamp:
		if q.Timestamp < 0 {
			return 0, 0, Errorf(CodeInvalidArgument, "", "timestamp must be >= 0 (milliseconds since the epoch), got %d", q.Timestamp)
		}
		return q.Timestamp, 0, nil
	}
	return 0, 0, Errorf(CodeInvalidArgument, "", "unknown offset query %q (want %s or a timestamp)", q.Kind, strings.Join(OffsetKinds, ", "))
}

// ListedOffset is one partition's answer from ListOffsets.
type ListedOffset struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"` // -1 for a topic that does not exist
	Offset      int64  `json:"offset"`
	Timestamp   int64  `json:"timestamp"`    // -1 unless the query was by time or max_timestamp
	LeaderEpoch int32  `json:"leader_epoch"` // -1 when unknown
	Err         *Error `json:"error,omitempty"`
}

func (o ListedOffset) Key() string     { return vocab.PartitionKey(o.Topic, o.Partition) }
func (o ListedOffset) Failure() *Error { return o.Err }

// ListOffsets lists an offset of every partition of the topics, sorted by
// topic then partition. A topic that does not exist gets one result with
// partition -1 and UNKNOWN_TOPIC_OR_PARTITION. Retriable per-partition
// errors (LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, ...) are retried for
// that partition until the deadline.
//
// For a query by timestamp, a partition with no record at or after the time
// answers its end offset (the high watermark) with timestamp -1: the
// position a consumer seeking to that time would start from, as kadm and
// kafka-consumer-groups --to-datetime do. max_timestamp on an empty
// partition, and latest_tiered without tiered storage, answer offset -1 as
// Kafka does.
func (c *Client) ListOffsets(ctx context.Context, topics []string, q OffsetQuery) ([]ListedOffset, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	if _, _, qerr := q.request(); qerr != nil {
		return nil, qerr
	}
	if q.Kind == OffsetAtEarliestPendingUpload {
		if ok, err := c.reportsPendingUpload(ctx); err != nil {
			return nil, err
		} else if !ok {
			return nil, errNoPendingUpload
		}
	}
	tps, missing, err := c.topicPartitions(ctx, topics)
	if err != nil {
		return nil, err
	}
	out, err := c.listOffsets(ctx, tps, q)
	if err != nil {
		return nil, err
	}
	out = append(out, missing...)
	slices.SortFunc(out, func(a, b ListedOffset) int {
		return compareTP(TopicPartition{Topic: a.Topic, Partition: a.Partition}, TopicPartition{Topic: b.Topic, Partition: b.Partition})
	})
	return out, nil
}

// topicPartitions resolves topics to their partitions with a fresh
// metadata request (retrying topics still being created). Topics that
// failed come back as results carrying the error.
func (c *Client) topicPartitions(ctx context.Context, topics []string) ([]TopicPartition, []ListedOffset, error) {
	descs, err := c.DescribeTopics(ctx, topics)
	if err != nil {
		return nil, nil, err
	}
	var tps []TopicPartition
	var failed []ListedOffset
	for _, d := range descs {
		if d.Err != nil {
			failed = append(failed, ListedOffset{Topic: d.Name, Partition: -1, Offset: -1, Timestamp: -1, LeaderEpoch: -1, Err: d.Err})
			continue
		}
		for _, p := range d.Partitions {
			tps = append(tps, TopicPartition{Topic: d.Name, Partition: p.Partition})
		}
	}
	return tps, failed, nil
}

// ListOffsetsAt lists, for each partition, the first offset whose record
// timestamp is at or after that partition's own time (milliseconds since
// the epoch): one ListOffsets request per leader, however many partitions
// and times, as the API allows. A partition with no record at or after its
// time answers its end offset with timestamp -1, as ListOffsets does for
// one time. Sorted by topic then partition; a partition that does not
// exist gets UNKNOWN_TOPIC_OR_PARTITION.
func (c *Client) ListOffsetsAt(ctx context.Context, times map[TopicPartition]int64) ([]ListedOffset, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	tps := make([]TopicPartition, 0, len(times))
	for tp, ms := range times {
		if ms < 0 {
			return nil, Errorf(CodeInvalidArgument, tp.String(), "timestamp must be >= 0 (milliseconds since the epoch), got %d", ms)
		}
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, compareTP)
	out, err := c.listOffsetsBy(ctx, tps, func(tp TopicPartition) int64 { return times[tp] }, 0)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// listOffsets lists q for known partitions, retrying per partition.
func (c *Client) listOffsets(ctx context.Context, tps []TopicPartition, q OffsetQuery) ([]ListedOffset, error) {
	ts, isolation, qerr := q.request()
	if qerr != nil {
		return nil, qerr
	}
	return c.listOffsetsBy(ctx, tps, func(TopicPartition) int64 { return ts }, isolation)
}

// listOffsetsBy lists each partition at its own timestamp (tsOf: -1 the
// end, -2 the start, ..., or a time), retrying per partition.
func (c *Client) listOffsetsBy(ctx context.Context, tps []TopicPartition, tsOf func(TopicPartition) int64, isolation int8) ([]ListedOffset, error) {
	got := map[TopicPartition]ListedOffset{}
	unknownSeen := map[TopicPartition]int{}
	errs := retryItems(ctx, tps, TopicPartition.String, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		answers, res, err := c.listOffsetsOnce(ctx, pending, tsOf, isolation)
		if err != nil {
			return nil, err
		}
		for tp, e := range answers {
			if e != nil && e.Code == kerr.UnknownTopicOrPartition.Message && unknownSeen[tp] < 2 {
				// The partition was in fresh metadata a moment ago: a
				// broker that has not caught up yet. Look twice more.
				unknownSeen[tp]++
				r := *e
				r.Retriable = true
				answers[tp] = &r
			}
		}
		var toEnd []TopicPartition
		for tp, r := range res {
			got[tp] = r
			if tsOf(tp) >= 0 && r.Offset == -1 && answers[tp] == nil {
				toEnd = append(toEnd, tp)
			}
		}
		if len(toEnd) > 0 {
			// Nothing at or after the time: the answer is the end.
			endAnswers, endRes, err := c.listOffsetsOnce(ctx, toEnd, func(TopicPartition) int64 { return -1 }, 0)
			if err != nil {
				return nil, err
			}
			for _, tp := range toEnd {
				answers[tp] = endAnswers[tp]
				if r, ok := endRes[tp]; ok {
					r.Timestamp = -1
					got[tp] = r
				}
			}
		}
		return answers, nil
	})
	out := make([]ListedOffset, 0, len(tps))
	for _, tp := range tps {
		r, ok := got[tp]
		if !ok || errs[tp] != nil {
			r = ListedOffset{Topic: tp.Topic, Partition: tp.Partition, Offset: -1, Timestamp: -1, LeaderEpoch: -1}
		}
		r.Err = errs[tp]
		out = append(out, r)
	}
	return out, nil
}

// listOffsetsOnce sends one (sharded) ListOffsets request. answers holds
// every partition that got an answer (nil for success); res the successful
// ones. A shard that failed as a whole answers its partitions with its error.
func (c *Client) listOffsetsOnce(ctx context.Context, tps []TopicPartition, tsOf func(TopicPartition) int64, isolation int8) (map[TopicPartition]*Error, map[TopicPartition]ListedOffset, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.IsolationLevel = isolation
	req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
	byTopic := map[string][]int32{}
	for _, tp := range tps {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	for _, t := range slices.Sorted(maps.Keys(byTopic)) {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		for _, p := range byTopic[t] {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition, rp.Timestamp = p, tsOf(TopicPartition{Topic: t, Partition: p})
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	answers := map[TopicPartition]*Error{}
	res := map[TopicPartition]ListedOffset{}
	for _, shard := range c.kgo.RequestSharded(ctx, req) {
		if shard.Err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			sreq := shard.Req.(*kmsg.ListOffsetsRequest)
			for _, t := range sreq.Topics {
				for _, p := range t.Partitions {
					tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
					answers[tp] = AsError(shard.Err, tp.String())
				}
			}
			continue
		}
		resp := shard.Resp.(*kmsg.ListOffsetsResponse)
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
				if e := kafkaErr(p.ErrorCode, nil, tp.String()); e != nil {
					answers[tp] = e
					continue
				}
				answers[tp] = nil
				res[tp] = ListedOffset{Topic: t.Topic, Partition: p.Partition, Offset: p.Offset, Timestamp: p.Timestamp, LeaderEpoch: p.LeaderEpoch}
			}
		}
	}
	return answers, res, nil
}
