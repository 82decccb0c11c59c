package engine

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Lag in time: how far behind a group is, in the records' own time. For
// each partition that lags, the first record the group has not read (the
// one at its committed offset, or at the log start without a commit) is
// read with one small Fetch per leader broker (record_at.go), and its
// timestamp is the partition's oldest_unconsumed. Nothing is estimated:
// where no record can be read, time_unknown says why.

// LagOptions tune Lag.
type LagOptions struct {
	// Time adds lag in time per partition and max_lag_ms per group.
	Time bool
	// ReadCommitted reads the first unconsumed record as a read_committed
	// consumer would: aborted transactions' records are skipped.
	ReadCommitted bool
	Now           func() time.Time // time.Now when nil (tests set it)
}

// Why a lagging partition has no lag in time.
const (
	TimeUnknownDeleted = "the record at the committed offset was deleted: the committed offset is below the log start, and the records up to it were never read"
	TimeUnknownNone    = "no record could be read at the committed offset (only transaction markers or aborted records up to the end)"
)

// lagTime fills the time fields of out's partitions and groups.
func (c *Client) lagTime(ctx context.Context, out []GroupLag, o LagOptions) error {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	want := map[TopicPartition]int64{}
	for _, g := range out {
		for _, p := range g.Partitions {
			if p.Err == nil && p.Lag > 0 {
				want[TopicPartition{p.Topic, p.Partition}] = p.EndOffset - p.Lag // the first unread offset
			}
		}
	}
	var isolation int8
	if o.ReadCommitted {
		isolation = 1
	}
	var first map[TopicPartition]firstRecord
	var heads map[TopicPartition]ListedOffset
	if len(want) > 0 {
		var err error
		if first, err = c.firstRecords(ctx, want, isolation); err != nil {
			return err
		}
		tps := make([]TopicPartition, 0, len(want))
		for tp := range want {
			tps = append(tps, tp)
		}
		listed, err := c.listOffsets(ctx, tps, OffsetQuery{Kind: OffsetAtMaxTimestamp})
		if err != nil {
			return err
		}
		heads = make(map[TopicPartition]ListedOffset, len(listed))
		for _, l := range listed {
			heads[TopicPartition{l.Topic, l.Partition}] = l
		}
	}
	at := now().UnixMilli()
	for gi := range out {
		g := &out[gi]
		if g.Err != nil && len(g.Partitions) == 0 {
			continue
		}
		var maxLag int64
		for pi := range g.Partitions {
			p := &g.Partitions[pi]
			if p.Err != nil {
				continue
			}
			zero := int64(0)
			if p.Lag == 0 {
				p.LagMs, p.BehindHeadMs = &zero, &zero
				continue
			}
			tp := TopicPartition{p.Topic, p.Partition}
			r := first[tp]
			switch {
			case r.Err != nil && r.Err.Code == kerr.OffsetOutOfRange.Message:
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
			ts := r.Timestamp
			lag := max(at-ts, 0)
			p.OldestUnconsumed, p.LagMs, p.TimestampType = &ts, &lag, r.TimestampType
			if h, ok := heads[tp]; ok && h.Err == nil && h.Timestamp >= 0 {
				behind := max(h.Timestamp-ts, 0)
				p.BehindHeadMs = &behind
			}
			maxLag = max(maxLag, lag)
		}
		g.MaxLagMs = &maxLag
	}
	return nil
}
