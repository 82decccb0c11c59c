package engine

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
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
)

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
				tp := TopicPartition{p.Topic, p.Partition}
				want = append(want, RecordWant{tp, p.EndOffset - p.Lag}) // the first unread offset
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
			heads[TopicPartition{l.Topic, l.Partition}] = l
		}
	}
	retention, err := c.retentionMs(ctx, out)
	if err != nil {
		return err
	}
	risk := o.AtRisk
	if risk <= 0 {
		risk = DefaultAtRisk
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
			if p.Err != nil || p.Lag < 0 {
				continue
			}
			zero := int64(0)
			if p.Lag == 0 {
				p.LagMs, p.BehindHeadMs = &zero, &zero
				continue
			}
			tp := TopicPartition{p.Topic, p.Partition}
			r, ok := first[RecordWant{tp, p.EndOffset - p.Lag}]
			if !ok {
				p.TimeUnknown = TimeUnknownNone
				continue
			}
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
			if r, ok := retention[p.Topic]; ok && r > 0 && float64(lag) >= risk*float64(r) {
				p.AtRisk = true
				g.AtRisk++
			}
		}
		g.MaxLagMs = &maxLag
	}
	return nil
}

// retentionMs is retention.ms of each topic with a lagging partition (-1:
// kept forever), from one DescribeConfigs request. A topic whose configs
// cannot be read (not authorized) is left out: its partitions are not
// judged at risk, rather than the call failing.
func (c *Client) retentionMs(ctx context.Context, out []GroupLag) (map[string]int64, error) {
	seen := map[string]bool{}
	var rs []ConfigResource
	for _, g := range out {
		for _, p := range g.Partitions {
			if p.Lag > 0 && p.Err == nil && !seen[p.Topic] {
				seen[p.Topic] = true
				rs = append(rs, ConfigResource{Type: ConfigTopic, Name: p.Topic})
			}
		}
	}
	if len(rs) == 0 {
		return nil, nil
	}
	described, err := c.DescribeConfigs(ctx, rs, DescribeConfigsOptions{Keys: []string{"retention.ms"}})
	if err != nil {
		return nil, err
	}
	ms := map[string]int64{}
	for _, d := range described {
		if e, ok := d.Configs["retention.ms"]; ok && d.Err == nil && e.Value != nil {
			if v, perr := strconv.ParseInt(*e.Value, 10, 64); perr == nil {
				ms[d.Name] = v
			}
		}
	}
	return ms, nil
}
