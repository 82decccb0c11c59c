package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Reading the first record at or after an offset: what lag in time needs
// (the timestamp of the first record a group has not read) and what peek
// builds on. It is a raw Fetch sent to each partition's leader, one
// request per leader for all its partitions, read with franz-go's own
// batch parser (kgo.ProcessFetchPartition: decompression, CRCs, control
// records dropped, aborted transactions under read_committed). It never
// joins a group and commits nothing.

// Timestamp types as Kafka's tools print them.
const (
	TimestampCreateTime    = "CreateTime"
	TimestampLogAppendTime = "LogAppendTime"
)

// firstRecord is what a partition holds at or after an offset.
type firstRecord struct {
	Found         bool   // a record was read
	Offset        int64  // its offset (after a compaction gap or control records, above the one asked)
	Timestamp     int64  // its timestamp, ms
	TimestampType string // TimestampCreateTime or TimestampLogAppendTime
	HighWatermark int64
	LogStart      int64 // -1 when the broker did not say
	Err           *Error
}

// recordAtBytes bounds what one partition's answer may hold: Kafka returns
// the first batch whole even when it is larger (KIP-74), so this only
// keeps the answer small when batches are.
const recordAtBytes = 64 << 10

// recordAtRounds bounds how often a partition is fetched again because a
// fetch held only records to skip (control records, aborted ones).
const recordAtRounds = 4

// firstRecords reads, for each partition, the first record at or after its
// offset. A partition whose offset is at or past its end has no record
// (Found false, no error); one whose offset is below the log start answers
// OFFSET_OUT_OF_RANGE with LogStart set, as the broker says.
func (c *Client) firstRecords(ctx context.Context, want map[TopicPartition]int64, isolation int8) (map[TopicPartition]firstRecord, error) {
	out := make(map[TopicPartition]firstRecord, len(want))
	pos := maps.Clone(want)
	keys := slices.SortedFunc(maps.Keys(want), compareTP)
	for round := 0; round < recordAtRounds && len(keys) > 0; round++ {
		errs := retryItems(ctx, keys, TopicPartition.String, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
			return c.fetchFirst(ctx, pending, pos, isolation, out)
		})
		var again []TopicPartition
		for _, tp := range keys {
			r := out[tp]
			if errs[tp] != nil {
				r.Err = errs[tp]
				out[tp] = r
				continue
			}
			if !r.Found && r.Offset > pos[tp] && r.Offset < r.HighWatermark {
				pos[tp] = r.Offset // only records to skip so far: go on from there
				again = append(again, tp)
			}
		}
		keys = again
	}
	return out, nil
}

// fetchFirst sends one Fetch per leader for pending and records what each
// partition answered in out; retriable errors come back for retryItems.
func (c *Client) fetchFirst(ctx context.Context, pending []TopicPartition, pos map[TopicPartition]int64, isolation int8, out map[TopicPartition]firstRecord) (map[TopicPartition]*Error, error) {
	return c.fetchRaw(ctx, pending, nil, pos, isolation, recordAtBytes, func(tp TopicPartition, rp *kmsg.FetchResponseTopicPartition) *Error {
		var e *Error
		e, out[tp] = readFirst(tp, pos[tp], rp, isolation)
		return e
	})
}

// fetchRaw sends one Fetch per leader for pending, each partition from
// pos[tp] with at most partBytes (Kafka still returns a first batch that is
// larger whole, KIP-74), and hands each partition's answer to read, whose
// error is that partition's answer; retriable errors come back for
// retryItems. A topic or partition the metadata does not know answers
// UNKNOWN_TOPIC_OR_PARTITION. meta, when not nil, is a Metadata answer for
// pending's topics just read, used instead of asking again.
func (c *Client) fetchRaw(ctx context.Context, pending []TopicPartition, meta *kmsg.MetadataResponse, pos map[TopicPartition]int64, isolation int8, partBytes int32,
	read func(tp TopicPartition, rp *kmsg.FetchResponseTopicPartition) *Error) (map[TopicPartition]*Error, error) {
	topics := slices.Compact(slices.Sorted(func(yield func(string) bool) {
		for _, tp := range pending {
			if !yield(tp.Topic) {
				return
			}
		}
	}))
	if meta == nil {
		var err error
		if meta, err = c.rawMetadata(ctx, topics...); err != nil {
			return nil, err
		}
	}
	answers := map[TopicPartition]*Error{}
	type place struct {
		id     [16]byte
		leader int32
	}
	where := map[TopicPartition]place{}
	for _, t := range meta.Topics {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		for _, p := range t.Partitions {
			where[TopicPartition{name, p.Partition}] = place{t.TopicID, p.Leader}
		}
		if e := kafkaErr(t.ErrorCode, nil, name); e != nil {
			for _, tp := range pending {
				if tp.Topic == name {
					answers[tp] = e
				}
			}
		}
	}
	byLeader := map[int32][]TopicPartition{}
	for _, tp := range pending {
		if answers[tp] != nil {
			continue
		}
		pl, ok := where[tp]
		switch {
		case !ok:
			answers[tp] = Errorf(kerr.UnknownTopicOrPartition.Message, tp.String(), "%s", kerr.UnknownTopicOrPartition.Description)
		case pl.leader < 0:
			answers[tp] = &Error{Code: kerr.LeaderNotAvailable.Message, Resource: tp.String(), Message: kerr.LeaderNotAvailable.Description, Retriable: true}
		default:
			byLeader[pl.leader] = append(byLeader[pl.leader], tp)
		}
	}
	for leader, tps := range byLeader {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxWaitMillis = 0 // answer at once with what is there
		req.MinBytes = 1
		req.MaxBytes = int32(min(int64(len(tps))*int64(partBytes), 1<<30))
		req.IsolationLevel = isolation
		req.SessionEpoch = -1 // no fetch session
		byTopic := map[string][]TopicPartition{}
		for _, tp := range tps {
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp)
		}
		for _, t := range slices.Sorted(maps.Keys(byTopic)) {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic, rt.TopicID = t, where[byTopic[t][0]].id
			for _, tp := range byTopic[t] {
				rp := kmsg.NewFetchRequestTopicPartition()
				rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = tp.Partition, pos[tp], partBytes
				rp.CurrentLeaderEpoch, rp.LogStartOffset = -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, c.kgo.Broker(int(leader)))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, tp := range tps {
				answers[tp] = AsError(err, tp.String())
			}
			continue
		}
		if e := kafkaErr(resp.ErrorCode, nil, ""); e != nil {
			for _, tp := range tps {
				answers[tp] = e
			}
			continue
		}
		names := map[[16]byte]string{}
		for t, list := range byTopic {
			names[where[list[0]].id] = t
		}
		for i := range resp.Topics {
			rt := &resp.Topics[i]
			name := rt.Topic
			if name == "" {
				name = names[rt.TopicID]
			}
			for j := range rt.Partitions {
				rp := &rt.Partitions[j]
				tp := TopicPartition{name, rp.Partition}
				if _, asked := pos[tp]; !asked {
					continue
				}
				answers[tp] = read(tp, rp)
			}
		}
		for _, tp := range tps {
			if _, ok := answers[tp]; !ok {
				answers[tp] = &Error{Code: CodeNetwork, Resource: tp.String(), Message: "the leader's answer left the partition out", Retriable: true}
			}
		}
	}
	return answers, nil
}

// readFirst reads one partition's Fetch answer: its first record at or
// after offset, or where the next fetch must start when the answer held
// only records to skip.
func readFirst(tp TopicPartition, offset int64, rp *kmsg.FetchResponseTopicPartition, isolation int8) (*Error, firstRecord) {
	r := firstRecord{HighWatermark: rp.HighWatermark, LogStart: rp.LogStartOffset, Offset: offset}
	if e := kafkaErr(rp.ErrorCode, nil, tp.String()); e != nil {
		if e.Code == kerr.OffsetOutOfRange.Message {
			// Not retriable: the offset is outside the log (deleted by
			// retention, or past the end). The caller says which.
			e.Retriable = false
			return nil, firstRecord{Offset: offset, HighWatermark: rp.HighWatermark, LogStart: rp.LogStartOffset, Err: e}
		}
		return e, r
	}
	il := kgo.ReadUncommitted()
	if isolation == 1 {
		il = kgo.ReadCommitted()
	}
	fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
		Offset: offset, IsolationLevel: il, Topic: tp.Topic, Partition: tp.Partition,
	}, rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil && len(fp.Records) == 0 {
		return nil, firstRecord{Offset: offset, HighWatermark: rp.HighWatermark, LogStart: rp.LogStartOffset,
			Err: AsError(fmt.Errorf("reading %s at offset %d: %w", tp, offset, fp.Err), tp.String())}
	}
	for _, rec := range fp.Records {
		if rec.Offset < offset {
			continue
		}
		r.Found, r.Offset, r.Timestamp = true, rec.Offset, rec.Timestamp.UnixMilli()
		r.TimestampType = TimestampCreateTime
		if rec.Attrs.TimestampType() == 1 {
			r.TimestampType = TimestampLogAppendTime
		}
		return nil, r
	}
	if next > offset {
		r.Offset = next // skipped records only: the next fetch starts here
	}
	return nil, r
}
