package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// Reading a state kept in a topic (state_topic.go): the newest head of the
// state's key, searched backwards from the partition's end in windows that
// grow fourfold (so a run reads about its own version, not the topic's
// history before compaction), then its parts between the offset the head
// names and the head itself. Everything is read with read_committed: an
// aborted write (a fenced run's, a killed run's) is never seen.

// stateFetchBytes bounds one Fetch's answer for the partition (a first
// batch larger than it still comes whole, KIP-74).
const stateFetchBytes = 1 << 20

// stateScanFirst is the first window searched for the head, in offsets.
const stateScanFirst = 64

// partitions says whether the topic exists and how many partitions it has.
func (st *StateTopic) partitions(ctx context.Context) (bool, int, error) {
	exists, n, _, err := st.topicMeta(ctx)
	return exists, n, err
}

// topicMeta says whether the topic exists, how many partitions it has and
// whether Kafka keeps it for itself (__consumer_offsets, ...).
func (st *StateTopic) topicMeta(ctx context.Context) (exists bool, partitions int, internal bool, err error) {
	meta, err := st.c.rawMetadata(ctx, st.topic)
	if err != nil {
		return false, 0, false, st.explain(err, "reading the state topic's metadata")
	}
	for _, t := range meta.Topics {
		if t.Topic == nil || *t.Topic != st.topic {
			continue
		}
		switch e := kafkaErr(t.ErrorCode, nil, st.topic); {
		case e == nil:
			return true, len(t.Partitions), t.IsInternal, nil
		case e.Code == kerr.UnknownTopicOrPartition.Message:
			return false, 0, false, nil
		default:
			return false, 0, false, st.explain(e, "reading the state topic's metadata")
		}
	}
	return false, 0, false, nil
}

// stateRecordPrefix starts the key of every kadmin-lua state record, of
// any cluster.
const stateRecordPrefix = "kadmin-lua-state/"

// refuseOtherTopic refuses, before anything is written, a topic that is
// not a state topic: one Kafka keeps for itself, or one whose newest
// records (the last stateScanFirst offsets of the state's partition) are
// there and none of them kadmin-lua state: --state kafka:orders, a typo
// for kafka:orders-state, would write the state's parts where consumers
// read orders. A topic mirrored from another cluster's state, one made
// empty beforehand, and one where other jobs keep their state are state
// topics.
func (st *StateTopic) refuseOtherTopic(ctx context.Context, partitions int, internal bool) error {
	notState := func(why string) error {
		return Errorf(CodeInvalidArgument, "", "state %s: topic %s %s: not a state topic (a typo? name a topic of its own, made on first use)", st, st.topic, why)
	}
	if internal {
		return notState("is one Kafka keeps for itself")
	}
	id, err := st.id(ctx)
	if err != nil {
		return err
	}
	tp := TopicPartition{Topic: st.topic, Partition: statePartition(StateHeadKey(id, st.key), partitions)}
	low, err := st.c.listedOffset(ctx, tp, OffsetQuery{Kind: OffsetAtEarliest})
	if err != nil {
		return st.explain(err, "reading the state topic's offsets")
	}
	end, err := st.c.listedOffset(ctx, tp, OffsetQuery{Kind: OffsetAtCommitted})
	if err != nil {
		return st.explain(err, "reading the state topic's offsets")
	}
	sc := &stateScan{st: st, tp: tp, prefix: stateRecordPrefix}
	states := 0
	if err := sc.scan(ctx, max(low, end-stateScanFirst), end, func(*kgo.Record) { states++ }); err != nil {
		return err
	}
	if states == 0 && sc.foreign > 0 {
		return notState(fmt.Sprintf("holds records that are not kadmin-lua state (the newest %d of %s)", sc.foreign, tp))
	}
	return nil
}

// Read returns the newest version of the state committed whole: nil when
// the topic or the state's head does not exist (or its newest head is a
// tombstone: an operator's reset). A head that is not one, a version larger
// than limit, or one whose parts are gone is state.ErrUnreadable.
func (st *StateTopic) Read(limit int64) ([]byte, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	defer st.c.phase(PhaseStateRead)()
	ctx, cancel := st.ctx()
	defer cancel()
	if st.created {
		st.created = false // read from the topic from now on: other runs write to it
		return nil, nil    // just made: empty
	}
	exists, n, err := st.partitions(ctx)
	if err != nil || !exists {
		return nil, err
	}
	id, err := st.id(ctx)
	if err != nil {
		return nil, err
	}
	headKey := StateHeadKey(id, st.key)
	tp := TopicPartition{Topic: st.topic, Partition: statePartition(headKey, n)}
	low, err := st.c.listedOffset(ctx, tp, OffsetQuery{Kind: OffsetAtEarliest})
	if err != nil {
		return nil, st.explain(err, "reading the state topic's offsets")
	}
	end, err := st.stableEnd(ctx, tp)
	if err != nil {
		return nil, err
	}
	sc := &stateScan{st: st, tp: tp, headKey: headKey, prefix: "kadmin-lua-state/v1/" + id + "/"}
	rec, at, err := sc.findHead(ctx, low, end)
	if err == nil && sc.foreign > 0 {
		st.warn(fmt.Sprintf("state: %d records in %s are not this cluster's kadmin-lua state (another program's, or mirrored from another cluster): ignored", sc.foreign, tp))
	}
	if err != nil || rec == nil || rec.Value == nil {
		return nil, err
	}
	var h stateHead
	if err := json.Unmarshal(rec.Value, &h); err != nil || h.Format != stateHeadFormat || h.Parts < 1 || h.PartBytes < 1 || h.Bytes < 1 {
		why := "not a state head of a format this kadmin-lua reads"
		if err != nil {
			why = "not a state head: " + err.Error()
		}
		return nil, fmt.Errorf("%w: the newest record of %s at %s offset %d is %s", state.ErrUnreadable, headKey, tp, at, why)
	}
	data, err := sc.readParts(ctx, h, at, low, limit)
	if err == nil {
		st.parts = h.Parts
	}
	return data, err
}

// stableEnd is the partition's last stable offset (read_committed's end),
// once no other writer's transaction holds it below the high watermark,
// or after StableWait: then a transaction another job left open (killed,
// it ends within its timeout) hides what was committed after it, and the
// run is told.
func (st *StateTopic) stableEnd(ctx context.Context, tp TopicPartition) (int64, error) {
	deadline := time.Now().Add(st.StableWait)
	for {
		lso, err := st.c.listedOffset(ctx, tp, OffsetQuery{Kind: OffsetAtCommitted})
		if err != nil {
			return 0, st.explain(err, "reading the state topic's offsets")
		}
		hwm, err := st.c.listedOffset(ctx, tp, OffsetQuery{Kind: OffsetAtLatest})
		if err != nil {
			return 0, st.explain(err, "reading the state topic's offsets")
		}
		if lso >= hwm {
			return lso, nil
		}
		if !time.Now().Before(deadline) {
			st.warn(fmt.Sprintf("state: a transaction in %s is open since offset %d (another run writing, or one killed: it ends within its timeout): reading the state committed before it", tp, lso))
			return lso, nil
		}
		select {
		case <-ctx.Done():
			return 0, st.explain(ctx.Err(), "waiting for an open transaction in the state topic")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stateScan reads one partition of a state topic.
type stateScan struct {
	st      *StateTopic
	tp      TopicPartition
	headKey string
	prefix  string // this cluster's state keys
	foreign int    // records seen that are not this cluster's kadmin-lua state
}

// findHead searches [low, end) backwards for the newest record keyed
// headKey, and returns it with its offset (nil when there is none).
func (sc *stateScan) findHead(ctx context.Context, low, end int64) (*kgo.Record, int64, error) {
	for hi, window := end, int64(stateScanFirst); hi > low; window *= 4 {
		lo := max(low, hi-window)
		var found *kgo.Record
		err := sc.scan(ctx, lo, hi, func(r *kgo.Record) {
			if string(r.Key) == sc.headKey {
				found = r
			}
		})
		if err != nil || found != nil {
			return found, offsetOf(found), err
		}
		hi = lo
	}
	return nil, 0, nil
}

func offsetOf(r *kgo.Record) int64 {
	if r == nil {
		return 0
	}
	return r.Offset
}

// readParts reads the parts of the version h names, between its first
// offset and the head at headAt.
func (sc *stateScan) readParts(ctx context.Context, h stateHead, headAt, low, limit int64) ([]byte, error) {
	where := fmt.Sprintf("%s offsets %d to %d, written %s by %s", sc.tp, h.FirstOffset, headAt, time.UnixMilli(h.WrittenMs).UTC().Format(time.RFC3339), h.Writer)
	if h.Bytes > limit {
		return nil, fmt.Errorf("%w: the state at %s is %d bytes, larger than the %d kadmin-lua reads (--max-memory bounds it)", state.ErrUnreadable, where, h.Bytes, limit)
	}
	if int64(h.Parts-1)*int64(h.PartBytes) >= h.Bytes || int64(h.Parts)*int64(h.PartBytes) < h.Bytes {
		return nil, fmt.Errorf("%w: the head at %s does not add up (%d parts of %d bytes for %d)", state.ErrUnreadable, where, h.Parts, h.PartBytes, h.Bytes)
	}
	if h.FirstOffset < low || h.FirstOffset >= headAt {
		return nil, fmt.Errorf("%w: the parts of the state at %s are gone (the log starts at %d): deleted, or compacted away", state.ErrUnreadable, where, low)
	}
	data := make([]byte, h.Bytes)
	have := make([]bool, h.Parts)
	got := 0
	err := sc.scan(ctx, h.FirstOffset, headAt, func(r *kgo.Record) {
		i, ok := sc.partIndex(r, h)
		if !ok || have[i] {
			return
		}
		at := int64(i) * int64(h.PartBytes)
		want := min(int64(h.PartBytes), h.Bytes-at)
		if int64(len(r.Value)) != want {
			return // not the size the head says: missing, below
		}
		copy(data[at:], r.Value)
		have[i] = true
		got++
	})
	if err != nil {
		return nil, err
	}
	if got != h.Parts {
		missing := 0
		for i, ok := range have {
			if !ok {
				missing = i
				break
			}
		}
		return nil, fmt.Errorf("%w: part %d of the %d of the state at %s is missing: compacted away or deleted (the topic's cleanup.policy must be compact)", state.ErrUnreadable, missing, h.Parts, where)
	}
	if crc32.ChecksumIEEE(data) != h.CRC32 {
		return nil, fmt.Errorf("%w: the state at %s does not match its checksum", state.ErrUnreadable, where)
	}
	return data, nil
}

// partIndex is the part r is of version h, if it is one.
func (sc *stateScan) partIndex(r *kgo.Record, h stateHead) (int, bool) {
	rest, ok := strings.CutPrefix(string(r.Key), sc.headKey+"/part-")
	if !ok || r.Value == nil {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= h.Parts {
		return 0, false
	}
	for _, hd := range r.Headers {
		if hd.Key == stateGenHeader {
			return i, string(hd.Value) == h.Generation
		}
	}
	return 0, false
}

// scan reads the committed records of [from, to) in order and shows each to
// visit, counting those that are not this cluster's state.
func (sc *stateScan) scan(ctx context.Context, from, to int64, visit func(*kgo.Record)) error {
	st := sc.st
	for pos := from; pos < to; {
		var recs []*kgo.Record
		next := pos
		errs := retryItems(ctx, []TopicPartition{sc.tp}, TopicPartition.String, func(ctx context.Context, ps []TopicPartition) (map[TopicPartition]*Error, error) {
			return st.c.fetchRaw(ctx, ps, nil, map[TopicPartition]int64{sc.tp: pos}, 1, stateFetchBytes, func(tp TopicPartition, rp *kmsg.FetchResponseTopicPartition) *Error {
				if e := kafkaErr(rp.ErrorCode, nil, tp.String()); e != nil {
					if e.Code == kerr.OffsetOutOfRange.Message && rp.LogStartOffset > pos {
						next = rp.LogStartOffset // compacted or deleted since: go on from the start
						return nil
					}
					return e
				}
				fp, n, _, perr := parseFetched(tp, pos, rp, 1, st.c.cfg.Decompress)
				if perr != nil {
					return perr
				}
				recs, next = fp.Records, max(n, pos)
				return nil
			})
		})
		if e := errs[sc.tp]; e != nil {
			return st.explain(e, "reading the state topic")
		}
		for _, r := range recs {
			if r.Offset < pos || r.Offset >= to {
				continue
			}
			if !bytes.HasPrefix(r.Key, []byte(sc.prefix)) {
				sc.foreign++
				continue
			}
			visit(r)
		}
		if next <= pos {
			break // nothing more below the stable end
		}
		pos = next
	}
	return nil
}
