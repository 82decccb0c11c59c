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

// LagOptions tune Lag.
type LagOptions struct {
	// Time adds lag in time per partition and max_lag_ms per group.
	Time bool
	// ReadCommitted reads the first unconsumed record as a read_committed
	// consumer would: aborted transactions' records are skipped.
	ReadCommitted bool
	// AtRisk is the fraction of a topic's retention.ms at which a lag in
	// time marks its partition at_risk; DefaultAtRisk when zero.
	AtRisk float64
	Now    func() time.Time // time.Now when nil (tests set it)
	// NoCommit is how a partition the group has no commit for counts:
	// NoCommitStart (the default) from its log start, NoCommitSkip not
	// at all, as kafka-consumer-groups --describe prints "-".
	NoCommit string
	// OnlyLagging leaves out partitions that do not lag (and groups left
	// with none); Sort orders groups and partitions worst first by
	// LagSortLag or LagSortLagMs; Top keeps each group's Top worst
	// partitions (with Sort; alone, the first Top). Totals count every
	// partition.
	OnlyLagging bool
	Sort        string
	Top         int
}

// How lag counts a partition without a commit.
const (
	NoCommitStart = "start"
	NoCommitSkip  = "skip"
)

// skipUncommitted gives the partitions without a commit lag -1 (kafka-
// consumer-groups' "-"), so that they are left out of the totals.
func skipUncommitted(ps []PartitionLag) {
	for i := range ps {
		if ps[i].Committed < 0 && ps[i].Err == nil {
			ps[i].Lag = -1
		}
	}
}

// DefaultAtRisk: a partition whose unread records are 80% of the way to
// deletion is at risk.
const DefaultAtRisk = 0.8

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

// Ways lag can order its rows (LagOptions.Sort).
const (
	LagSortLag   = "lag"    // records behind, most first
	LagSortLagMs = "lag_ms" // time behind, most first (with Time)
)

// shapeLag applies OnlyLagging, Sort and Top to the results, in that
// order: partitions that do not lag are left out, groups and their
// partitions are ordered worst first, and each group keeps its Top worst
// partitions. The totals still count every partition.
func shapeLag(out []GroupLag, o LagOptions) []GroupLag {
	if o.OnlyLagging {
		for i := range out {
			out[i].Partitions = slices.DeleteFunc(out[i].Partitions, func(p PartitionLag) bool { return p.Err == nil && p.Lag <= 0 })
		}
		out = slices.DeleteFunc(out, func(g GroupLag) bool { return g.Err == nil && len(g.Partitions) == 0 })
	}
	key := func(p PartitionLag) int64 { return p.Lag }
	groupKey := func(g GroupLag) int64 { return g.TotalLag }
	if o.Sort == LagSortLagMs {
		key = func(p PartitionLag) int64 { return deref(p.LagMs) }
		groupKey = func(g GroupLag) int64 { return deref(g.MaxLagMs) }
	}
	if o.Sort != "" {
		for i := range out {
			slices.SortStableFunc(out[i].Partitions, func(a, b PartitionLag) int { return cmpDesc(key(a), key(b)) })
		}
		slices.SortStableFunc(out, func(a, b GroupLag) int { return cmpDesc(groupKey(a), groupKey(b)) })
	}
	if o.Top > 0 {
		for i := range out {
			if len(out[i].Partitions) > o.Top {
				out[i].Partitions = out[i].Partitions[:o.Top]
			}
		}
	}
	return out
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func cmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
