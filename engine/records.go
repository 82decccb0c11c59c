package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// RecordsDeletion asks to delete a partition's records below Offset; -1
// means below the high watermark (everything), as in Kafka.
type RecordsDeletion struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// DeletedRecords is one partition's outcome of DeleteRecords.
type DeletedRecords struct {
	Topic        string `json:"topic"`
	Partition    int32  `json:"partition"`
	LowWatermark int64  `json:"low_watermark"` // the new log start offset; -1 on error
	Err          *Error `json:"error,omitempty"`
}

func (d DeletedRecords) Key() string     { return vocab.PartitionKey(d.Topic, d.Partition) }
func (d DeletedRecords) Failure() *Error { return d.Err }

func checkDeletions(dels []RecordsDeletion) ([]TopicPartition, map[TopicPartition]int64, *Error) {
	offsets := map[TopicPartition]int64{}
	var tps []TopicPartition
	for _, d := range dels {
		tp := TopicPartition{Topic: d.Topic, Partition: d.Partition}
		switch {
		case d.Topic == "":
			return nil, nil, Errorf(CodeInvalidArgument, "", "topic must not be empty")
		case d.Partition < 0:
			return nil, nil, Errorf(CodeInvalidArgument, tp.String(), "partition must be >= 0")
		case d.Offset < -1:
			return nil, nil, Errorf(CodeInvalidArgument, tp.String(), "offset must be >= 0, or -1 for the high watermark, got %d", d.Offset)
		}
		if _, dup := offsets[tp]; dup {
			return nil, nil, ErrGivenTwice(tp)
		}
		offsets[tp] = d.Offset
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, compareTP)
	return tps, offsets, nil
}

// DeleteRecords deletes records below the given offsets (moving each
// partition's log start offset), one result per partition sorted by topic
// then partition. Offsets above the high watermark fail with
// OFFSET_OUT_OF_RANGE. Retriable errors are retried per partition until
// the deadline: deleting below an offset is idempotent (Kafka ignores an
// offset below the log start), so even REQUEST_TIMED_OUT is safely sent
// again. With -1 a retry deletes up to the high watermark of that moment.
func (c *Client) DeleteRecords(ctx context.Context, dels []RecordsDeletion) ([]DeletedRecords, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	tps, offsets, cerr := checkDeletions(dels)
	if cerr != nil {
		return nil, cerr
	}
	keys := make([]string, len(tps))
	dels = make([]RecordsDeletion, len(tps))
	for i, tp := range tps {
		keys[i], dels[i] = tp.String(), RecordsDeletion{Topic: tp.Topic, Partition: tp.Partition, Offset: offsets[tp]}
	}
	return mutate(ctx, c, mutation[[]PartitionOffset, []DeletedRecords]{
		op: "delete_records", keys: keys,
		args: struct {
			Deletions []RecordsDeletion `json:"deletions"`
		}{dels},
		before: func(ctx context.Context) ([]PartitionOffset, error) { return c.lowWatermarks(ctx, tps) },
		send: func(ctx context.Context, _ []PartitionOffset) ([]DeletedRecords, error) {
			return c.deleteRecords(ctx, tps, offsets), nil
		},
		items: asItems[DeletedRecords],
	})
}

// lowWatermarks lists the partitions' log start offsets (-1 where that
// fails): delete_records' before-state.
func (c *Client) lowWatermarks(ctx context.Context, tps []TopicPartition) ([]PartitionOffset, error) {
	ls, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtEarliest})
	if err != nil {
		return nil, err
	}
	out := make([]PartitionOffset, len(tps))
	for i, tp := range tps {
		out[i] = PartitionOffset{Topic: tp.Topic, Partition: tp.Partition, Offset: -1}
		if i < len(ls) && ls[i].Err == nil {
			out[i].Offset = ls[i].Offset
		}
	}
	return out, nil
}

func (c *Client) deleteRecords(ctx context.Context, tps []TopicPartition, offsets map[TopicPartition]int64) []DeletedRecords {
	low := map[TopicPartition]int64{}
	errs := retryItems(ctx, tps, TopicPartition.String, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
		req := kmsg.NewPtrDeleteRecordsRequest()
		req.TimeoutMillis = int32(c.cfg.timeout().Milliseconds())
		byTopic := map[string][]TopicPartition{}
		for _, tp := range pending {
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp)
		}
		for _, t := range slices.Sorted(maps.Keys(byTopic)) {
			rt := kmsg.NewDeleteRecordsRequestTopic()
			rt.Topic = t
			for _, tp := range byTopic[t] {
				rp := kmsg.NewDeleteRecordsRequestTopicPartition()
				rp.Partition, rp.Offset = tp.Partition, offsets[tp]
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		answers := map[TopicPartition]*Error{}
		for _, shard := range c.kgo.RequestSharded(ctx, req) {
			if shard.Err != nil {
				for _, t := range shard.Req.(*kmsg.DeleteRecordsRequest).Topics {
					for _, p := range t.Partitions {
						tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
						answers[tp] = AsError(shard.Err, tp.String())
					}
				}
				continue
			}
			for _, t := range shard.Resp.(*kmsg.DeleteRecordsResponse).Topics {
				for _, p := range t.Partitions {
					tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
					answers[tp] = kafkaErr(p.ErrorCode, nil, tp.String())
					if answers[tp] == nil {
						low[tp] = p.LowWatermark
					}
				}
			}
		}
		return answers, nil
	})
	out := make([]DeletedRecords, 0, len(tps))
	for _, tp := range tps {
		r := DeletedRecords{Topic: tp.Topic, Partition: tp.Partition, LowWatermark: -1, Err: errs[tp]}
		if r.Err == nil {
			r.LowWatermark = low[tp]
		}
		out = append(out, r)
	}
	return out
}

// PlanDeleteRecords is DeleteRecords without deleting (Kafka has no
// validate-only delete): it checks each partition exists and its offset is
// not above the high watermark, and returns what DeleteRecords would return
// (the low watermark each partition would get) plus a line per partition
// saying what would be deleted. An offset below the log start deletes
// nothing, as in Kafka.
func (c *Client) PlanDeleteRecords(ctx context.Context, dels []RecordsDeletion) ([]DeletedRecords, []string, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	tps, offsets, cerr := checkDeletions(dels)
	if cerr != nil {
		return nil, nil, cerr
	}
	var topics []string
	for _, tp := range tps {
		topics = append(topics, tp.Topic)
	}
	known, missing, err := c.topicPartitions(ctx, slices.Compact(slices.Sorted(slices.Values(topics))))
	if err != nil {
		return nil, nil, err
	}
	topicErr := map[string]*Error{}
	for _, m := range missing {
		topicErr[m.Topic] = m.Err
	}
	exists := make(map[TopicPartition]bool, len(known))
	for _, tp := range known {
		exists[tp] = true
	}
	var ask []TopicPartition
	for _, tp := range tps {
		if exists[tp] {
			ask = append(ask, tp)
		}
	}
	lows, err := c.listOffsets(ctx, ask, OffsetQuery{Kind: OffsetAtEarliest})
	if err != nil {
		return nil, nil, err
	}
	highs, err := c.listOffsets(ctx, ask, OffsetQuery{Kind: OffsetAtLatest})
	if err != nil {
		return nil, nil, err
	}
	listed := map[TopicPartition][2]ListedOffset{}
	for i, tp := range ask {
		listed[tp] = [2]ListedOffset{lows[i], highs[i]}
	}
	out := make([]DeletedRecords, 0, len(tps))
	var plan []string
	for _, tp := range tps {
		r := DeletedRecords{Topic: tp.Topic, Partition: tp.Partition, LowWatermark: -1}
		lh, ok := listed[tp]
		switch {
		case topicErr[tp.Topic] != nil:
			e := *topicErr[tp.Topic]
			e.Resource = tp.String()
			r.Err = &e
		case !ok:
			r.Err = &Error{Code: kerr.UnknownTopicOrPartition.Message, Message: fmt.Sprintf("%s has no partition %d", tp.Topic, tp.Partition), Resource: tp.String()}
		case lh[0].Err != nil:
			r.Err = lh[0].Err
		case lh[1].Err != nil:
			r.Err = lh[1].Err
		}
		if r.Err != nil {
			out = append(out, r)
			continue
		}
		lo, hi, to := lh[0].Offset, lh[1].Offset, offsets[tp]
		if to == -1 {
			to = hi
		}
		switch {
		case to > hi:
			r.Err = &Error{Code: kerr.OffsetOutOfRange.Message, Resource: tp.String(),
				Message: fmt.Sprintf("offset %d is above the high watermark %d", to, hi)}
		case to <= lo:
			r.LowWatermark = lo
			plan = append(plan, fmt.Sprintf("%s: nothing to delete (low watermark %d, offset %d)", tp, lo, to))
		default:
			r.LowWatermark = to
			plan = append(plan, fmt.Sprintf("%s: delete %d records: offsets %d..%d (low watermark %d -> %d, high watermark %d)", tp, to-lo, lo, to-1, lo, to, hi))
		}
		out = append(out, r)
	}
	return out, plan, nil
}
