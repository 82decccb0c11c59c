package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// Lag in time: how far behind a group is, in the records' own time. For
// each partition that lags, the first record the group has not read (the
// one at its committed offset, or at the log start without a commit) is
// read with one small Fetch per leader broker (record_at.go), and its
// timestamp is the partition's oldest_unconsumed. Nothing is estimated:
// where no record can be read, time_unknown says why.

// Why a lagging partition has no lag in time.
const (
	TimeUnknownDeleted = "the record at the committed offset was deleted: the committed offset is below the log start, and the records up to it were never read"
	TimeUnknownNone    = "no record could be read at the committed offset (only transaction markers or aborted records up to the end)"
	// TimeUnknownLost: lag_ms is then set, as a floor.
	TimeUnknownLost = "records the group had not read were deleted (records_lost): lag_ms is the age of the oldest record left, and the lag is more"
)

// FutureTimestampSkew is how far ahead of this machine's clock a record's
// timestamp may be and still count as now: clocks of synchronized hosts
// differ by milliseconds, of unsynchronized ones by seconds. A record
// further ahead has a timestamp its producer's clock made up, and its lag
// in time is unknown, not 0: a consumer stuck on it is not caught up.
// (Kafka 4 itself refuses CreateTime records more than an hour ahead,
// log.message.timestamp.after.max.ms; older brokers accept any.)
const FutureTimestampSkew = time.Minute

// oddTimestamp says why the first unread record's timestamp gives no lag
// in time at nowMs, "" when it gives one: a negative timestamp (-1: the
// record has none, which Kafka allows; now minus it would be 56 years)
// or one more than FutureTimestampSkew ahead (now minus it would be 0).
func oddTimestamp(r firstRecord, nowMs int64) string {
	switch {
	case r.Timestamp < 0:
		return fmt.Sprintf("the first unread record (offset %d) has timestamp %d: no time (Kafka allows records without one), so its age is unknown", r.Offset, r.Timestamp)
	case r.Timestamp > nowMs+FutureTimestampSkew.Milliseconds():
		return fmt.Sprintf("the first unread record (offset %d) has timestamp %s, %s ahead of this clock (more than the %s allowed for clock skew), so its age is unknown",
			r.Offset, time.UnixMilli(r.Timestamp).UTC().Format(time.RFC3339), time.Duration(r.Timestamp-nowMs)*time.Millisecond, FutureTimestampSkew)
	}
	return ""
}

// lagTime fills the time fields of out's partitions and groups.
func (c *Client) lagTime(ctx context.Context, out []GroupLag, o LagOptions) error {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	var want []RecordWant
	lagging := map[TopicPartition]bool{}
	for _, g := range out {
		for _, p := range g.Partitions {
			if p.Err == nil && p.Lag > 0 {
				tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
				want = append(want, RecordWant{tp, p.firstUnread()})
				lagging[tp] = true
			}
		}
	}
	var isolation int8
	if o.ReadCommitted {
		isolation = 1
	}
	var first map[RecordWant]firstRecord
	var heads map[TopicPartition]ListedOffset
	if len(want) > 0 {
		var err error
		if first, err = c.firstRecords(ctx, want, isolation); err != nil {
			return err
		}
		tps := slices.SortedFunc(maps.Keys(lagging), compareTP)
		listed, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtMaxTimestamp})
		if err != nil {
			return err
		}
		heads = make(map[TopicPartition]ListedOffset, len(listed))
		for _, l := range listed {
			heads[TopicPartition{Topic: l.Topic, Partition: l.Partition}] = l
		}
	}
	retention, err := c.retention(ctx, out)
	if err != nil {
		return err
	}
	risk := o.AtRisk
	if risk <= 0 {
		risk = DefaultAtRisk
	}
	at := now().UnixMilli()
	stuck := c.stuckFunc(ctx)
	for gi := range out {
		g := &out[gi]
		if g.Err != nil && len(g.Partitions) == 0 {
			continue
		}
		var maxLag int64
		known := 0 // lagging partitions with a lag in time
		for pi := range g.Partitions {
			p := &g.Partitions[pi]
			if p.Err != nil || p.Lag < 0 {
				continue
			}
			retention.setRemote(p)
			if p.ReadingRemote != nil && *p.ReadingRemote {
				g.ReadingRemote++
				g.RemoteOnly += *p.RemoteOnly
			}
			if p.RemoteUnknown != "" {
				g.RemoteUnknown++
			}
			zero := int64(0)
			if p.Lag == 0 {
				p.LagMs, p.BehindHeadMs = &zero, &zero
				continue
			}
			tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
			if ms, ok := stuck(g.Group, *p, at); ok {
				p.StuckMs = &ms
			}
			r, ok := first[RecordWant{tp, p.firstUnread()}]
			if !ok {
				p.TimeUnknown = TimeUnknownNone
				continue
			}
			switch {
			case r.Err != nil && r.Err.Code == kerr.OffsetOutOfRange.Message, !r.Found && p.RecordsLost > 0:
				p.TimeUnknown = TimeUnknownDeleted
				continue
			case r.Err != nil:
				p.Err = r.Err
				if g.Err == nil {
					g.Err = r.Err
				}
				continue
			case !r.Found:
				p.TimeUnknown = TimeUnknownNone
				continue
			}
			if why := oddTimestamp(r, at); why != "" {
				p.TimeUnknown, p.TimestampType = why, r.TimestampType
				g.OddTimestamps++
				continue
			}
			ts := r.Timestamp
			lag := max(at-ts, 0) // up to FutureTimestampSkew ahead: now
			p.OldestUnconsumed, p.LagMs, p.TimestampType = &ts, &lag, r.TimestampType
			if p.RecordsLost > 0 {
				p.TimeUnknown = TimeUnknownLost
			}
			if h, ok := heads[tp]; ok && h.Err == nil && oddTimestamp(firstRecord{Timestamp: h.Timestamp}, at) == "" {
				behind := max(h.Timestamp-ts, 0)
				p.BehindHeadMs = &behind
			}
			maxLag = max(maxLag, lag)
			known++
			if by := retention.atRisk(p, lag, risk); by != "" {
				p.AtRisk, p.AtRiskBy = true, by
				g.AtRisk++
			}
		}
		if known > 0 || g.OddTimestamps == 0 {
			g.MaxLagMs = &maxLag
		} // else unknown: the only lagging partitions' timestamps are odd, which is not 0
	}
	return c.nextDeletions(ctx, out, retention, heads, at)
}

// stuckFunc says how long a group's committed offset has stood still, from
// the state store, where the store's window with this observation added
// is judged STALL or STOP: a consumer that commits every few seconds
// stands still between its commits, and that is no news (it was stuck_ms
// on healthy partitions). It never asks the cluster when the store is
// empty (the cluster id is then not needed).
func (c *Client) stuckFunc(ctx context.Context) func(group string, p PartitionLag, nowMs int64) (int64, bool) {
	none := func(string, PartitionLag, int64) (int64, bool) { return 0, false }
	store := c.State()
	if store.Empty() {
		return none
	}
	id, err := c.auditClusterID(ctx)
	if err != nil {
		return none
	}
	return func(group string, p PartitionLag, nowMs int64) (int64, bool) {
		if p.Committed < 0 {
			return 0, false
		}
		w, ok := store.StillWindow(id, group, TopicPartition{Topic: p.Topic, Partition: p.Partition}, p.Committed, nowMs)
		if !ok {
			return 0, false
		}
		w.Samples = append(w.Samples, state.Sample{TimeMs: nowMs, Committed: p.Committed, End: p.EndOffset, Lag: p.Lag})
		j := judge{windowMs: store.Options().Window.Milliseconds(), nowMs: nowMs}
		v := j.partition(p, w)
		if v.StuckMs == nil {
			return 0, false
		}
		return *v.StuckMs, true
	}
}
