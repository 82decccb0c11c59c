package engine

import (
	"math"
	"regexp"
	"slices"
	"time"
)

// Lag's options, and how they shape its rows: the lag in time and data at
// risk (lag_time.go), partitions without a commit, the lagging ones only,
// the worst first.

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
	// Observe, when positive, watches the commits for that long within
	// the call (lag_observe.go): a lagging partition whose committed
	// offset has not moved by then gets StuckMs, one that moved none.
	Observe time.Duration
	// Match and Exclude (RE2, unanchored, on group names) and States
	// (group states as ListGroups says them, any case) choose the groups
	// right after listing, before any describe or offset request.
	Match, Exclude *regexp.Regexp
	States         []string
	// Page is how many groups are read at once (DefaultLagPage when 0;
	// lag_pages.go).
	Page int

	// keepGone keeps a listed group deleted before its page was read, as
	// GROUP_ID_NOT_FOUND (lag_status drops its samples); lag leaves it out.
	keepGone bool
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
		// Records deleted unread leave a lag in time known only as a
		// floor: those partitions, and their groups, come first.
		key = func(p PartitionLag) int64 { return lostFirst(p.RecordsLost, p.LagMs) }
		groupKey = func(g GroupLag) int64 { return lostFirst(g.RecordsLost, g.MaxLagMs) }
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

// shapeLagGroups is shapeLag for one page of groups read in order: each
// group's partitions are left out, ordered and cut as shapeLag does, and
// groups left with none by OnlyLagging are left out, but the groups keep
// their order (ordering them needs them all).
func shapeLagGroups(out []GroupLag, o LagOptions) []GroupLag {
	kept := out[:0]
	for i := range out {
		// One group at a time: its order among the others is kept.
		if one := shapeLag(out[i:i+1:i+1], o); len(one) == 1 {
			kept = append(kept, one[0])
		}
	}
	clear(out[len(kept):])
	return kept
}

// lostFirst is a lag_ms sort key that puts lost records above any lag in
// time, and orders them by their floor.
func lostFirst(lost int64, lagMs *int64) int64 {
	if lost > 0 {
		return math.MaxInt64/2 + max(deref(lagMs), 0)
	}
	return deref(lagMs)
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
