package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

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

// recordAtRounds bounds the Fetches of one partition: a fetch that held
// only records to skip (control records, aborted ones), or that ended
// before a larger wanted offset, goes on from where it stopped.
const recordAtRounds = 8

// RecordWant is a partition and an offset to read the first record at.
type RecordWant struct {
	TopicPartition
	Offset int64
}

// firstRecords reads, for each wanted partition and offset, the first
// record at or after the offset. Several offsets of one partition (groups
// at different commits) share its Fetches: each Fetch starts at the
// smallest offset still pending and serves every pending offset its
// records reach. A partition whose offset is at or past its end has no
// record (Found false, no error); one whose offset is below the log start
// answers OFFSET_OUT_OF_RANGE with LogStart set, as the broker says.
func (c *Client) firstRecords(ctx context.Context, want []RecordWant, isolation int8) (map[RecordWant]firstRecord, error) {
	out := make(map[RecordWant]firstRecord, len(want))
	pending := map[TopicPartition][]int64{}
	for _, w := range want {
		pending[w.TopicPartition] = append(pending[w.TopicPartition], w.Offset)
	}
	for tp, offs := range pending {
		slices.Sort(offs)
		pending[tp] = slices.Compact(offs)
	}
	from := map[TopicPartition]int64{} // where the next Fetch of a partition starts
	for round := 0; round < recordAtRounds && len(pending) > 0; round++ {
		keys := slices.SortedFunc(maps.Keys(pending), compareTP)
		for _, tp := range keys {
			from[tp] = max(from[tp], pending[tp][0])
		}
		got := map[TopicPartition]fetched{}
		errs := retryItems(ctx, keys, TopicPartition.String, func(ctx context.Context, ps []TopicPartition) (map[TopicPartition]*Error, error) {
			return c.fetchFrom(ctx, ps, from, isolation, got)
		})
		for _, tp := range keys {
			f := got[tp]
			if e := cmp.Or(errs[tp], f.err); e != nil {
				// The smallest pending offset failed (out of range: below
				// the log start); the others are tried from the next round.
				offs := pending[tp]
				if errs[tp] != nil {
					for _, o := range offs {
						out[RecordWant{tp, o}] = firstRecord{Offset: o, HighWatermark: -1, LogStart: -1, Err: e}
					}
					delete(pending, tp)
					continue
				}
				out[RecordWant{tp, offs[0]}] = firstRecord{Offset: offs[0], HighWatermark: f.hwm, LogStart: f.logStart, Err: e}
				if f.logStart > offs[0] {
					from[tp] = f.logStart
				}
				if pending[tp] = offs[1:]; len(pending[tp]) == 0 {
					delete(pending, tp)
				}
				continue
			}
			var left []int64
			for _, o := range pending[tp] {
				i, _ := slices.BinarySearchFunc(f.records, o, func(r firstRecord, o int64) int { return cmp.Compare(r.Offset, o) })
				switch {
				case i < len(f.records):
					r := f.records[i]
					r.HighWatermark, r.LogStart = f.hwm, f.logStart
					out[RecordWant{tp, o}] = r
				case o >= f.hwm || f.next <= from[tp]:
					// Nothing at or after o up to the end, or no progress.
					out[RecordWant{tp, o}] = firstRecord{Offset: o, HighWatermark: f.hwm, LogStart: f.logStart}
				default:
					left = append(left, o)
				}
			}
			if len(left) == 0 {
				delete(pending, tp)
				continue
			}
			pending[tp], from[tp] = left, f.next
		}
	}
	for tp, offs := range pending { // rounds ran out
		for _, o := range offs {
			out[RecordWant{tp, o}] = firstRecord{Offset: o, HighWatermark: -1, LogStart: -1}
		}
	}
	return out, nil
}

// fetched is one partition's answer to a Fetch: its records at or after
// the fetch offset (control and aborted ones dropped), where the next
// Fetch would start, and the offsets the broker gave.
type fetched struct {
	records       []firstRecord // Found, Offset, Timestamp, TimestampType
	next          int64
	hwm, logStart int64
	err           *Error // a terminal error of the partition (OFFSET_OUT_OF_RANGE, a corrupt batch)
}

// fetchFrom sends one Fetch per leader for pending, each partition from
// pos, and records what each answered in out; retriable errors come back
// for retryItems.
func (c *Client) fetchFrom(ctx context.Context, pending []TopicPartition, pos map[TopicPartition]int64, isolation int8, out map[TopicPartition]fetched) (map[TopicPartition]*Error, error) {
	return c.fetchRaw(ctx, pending, nil, pos, isolation, recordAtBytes, func(tp TopicPartition, rp *kmsg.FetchResponseTopicPartition) *Error {
		var e *Error
		e, out[tp] = readFetched(tp, pos[tp], rp, isolation, c.cfg.Decompress)
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
			where[TopicPartition{Topic: name, Partition: p.Partition}] = place{t.TopicID, p.Leader}
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
	// One Fetch per leader, all at once (a cluster of 30 brokers waited
	// 30 round trips in a row); the answers are then read here, in order.
	type leaderFetch struct {
		leader  int32
		tps     []TopicPartition
		byTopic map[string][]TopicPartition
		resp    *kmsg.FetchResponse
		err     error
	}
	fetches := make([]*leaderFetch, 0, len(byLeader))
	for _, leader := range slices.Sorted(maps.Keys(byLeader)) {
		tps := byLeader[leader]
		f := &leaderFetch{leader: leader, tps: tps, byTopic: map[string][]TopicPartition{}}
		for _, tp := range tps {
			f.byTopic[tp.Topic] = append(f.byTopic[tp.Topic], tp)
		}
		fetches = append(fetches, f)
	}
	var wg sync.WaitGroup
	for _, f := range fetches {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxWaitMillis = 0 // answer at once with what is there
		req.MinBytes = 1
		req.MaxBytes = int32(min(int64(len(f.tps))*int64(partBytes), 1<<30))
		req.IsolationLevel = isolation
		req.SessionEpoch = -1 // no fetch session
		for _, t := range slices.Sorted(maps.Keys(f.byTopic)) {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic, rt.TopicID = t, where[f.byTopic[t][0]].id
			for _, tp := range f.byTopic[t] {
				rp := kmsg.NewFetchRequestTopicPartition()
				rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = tp.Partition, pos[tp], partBytes
				rp.CurrentLeaderEpoch, rp.LogStartOffset = -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		broker := c.brokerAt(f.leader, meta)
		wg.Go(func() { f.resp, f.err = req.RequestWith(ctx, broker) })
	}
	wg.Wait()
	for _, f := range fetches {
		tps, byTopic, resp, err := f.tps, f.byTopic, f.resp, f.err
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
				tp := TopicPartition{Topic: name, Partition: rp.Partition}
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

// readFetched reads one partition's Fetch answer: its records at or after
// offset, and where the next fetch must start. A batch over the
// decompression bounds is the partition's error (DECOMPRESS_LIMIT).
func readFetched(tp TopicPartition, offset int64, rp *kmsg.FetchResponseTopicPartition, isolation int8, limits DecompressLimits) (*Error, fetched) {
	f := fetched{hwm: rp.HighWatermark, logStart: rp.LogStartOffset, next: offset}
	if e := kafkaErr(rp.ErrorCode, nil, tp.String()); e != nil {
		if e.Code == kerr.OffsetOutOfRange.Message {
			// Not retriable: the offset is outside the log (deleted by
			// retention, or past the end). The caller says which.
			e.Retriable = false
			f.err = e
			return nil, f
		}
		return e, f
	}
	fp, next, _, perr := parseFetched(tp, offset, rp, isolation, limits)
	if perr != nil {
		f.err = perr
		return nil, f
	}
	f.next = max(next, offset)
	for _, rec := range fp.Records {
		if rec.Offset < offset {
			continue
		}
		f.records = append(f.records, firstRecord{Found: true, Offset: rec.Offset, Timestamp: rec.Timestamp.UnixMilli(), TimestampType: timestampType(rec)})
	}
	return nil, f
}

// parseFetched parses one partition's Fetch answer from offset with
// franz-go's own parser (decompression, CRCs, control records dropped,
// aborted transactions under read_committed, isolation 1), returning the
// records and where the next Fetch starts; a batch that cannot be read
// and leaves no record is the error. Batches are decompressed within
// limits (decompress.go): a batch over them is refused, with
// DECOMPRESS_LIMIT naming it, and refused says where it ends. (A refusal
// after records is dropped by kgo, as a truncated batch is: the next
// Fetch starts at that batch and meets it first.)
func parseFetched(tp TopicPartition, offset int64, rp *kmsg.FetchResponseTopicPartition, isolation int8, limits DecompressLimits) (fp kgo.FetchPartition, next int64, refused *kgo.ErrDecompressTooLarge, perr *Error) {
	il := kgo.ReadUncommitted()
	if isolation == 1 {
		il = kgo.ReadCommitted()
	}
	d := newBoundedDecompressor(limits)
	fp, next = kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
		Offset: offset, IsolationLevel: il, Topic: tp.Topic, Partition: tp.Partition,
	}, rp, d, nil)
	if fp.Err == nil || len(fp.Records) > 0 {
		return fp, next, nil, nil
	}
	if e, big := d.refused(tp, fp.Err); e != nil {
		return fp, next, big, e
	}
	return fp, next, nil, AsError(fmt.Errorf("reading %s at offset %d: %w", tp, offset, fp.Err), tp.String())
}

// timestampType is the record's timestamp type as Kafka's tools name it.
func timestampType(rec *kgo.Record) string {
	if rec.Attrs.TimestampType() == 1 {
		return TimestampLogAppendTime
	}
	return TimestampCreateTime
}
