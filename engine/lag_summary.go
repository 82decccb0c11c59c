package engine

import (
	"context"
	"slices"
)

// Lag summed up per group: one row a group instead of one a partition, for
// the jobs that watch every group of a large cluster (65,000 groups of 40
// partitions are 2.6 million partition rows and 65,000 summaries). The
// groups are read page by page (lag_pages.go) and each page's partitions
// are let go once summed.

// count sets the group's counts from its partitions: MaxLag,
// PartitionCount, Lagging and the worst partition.
func (g *GroupLag) count() {
	g.PartitionCount, g.Lagging, g.MaxLag = len(g.Partitions), 0, 0
	worst := -1
	for i, p := range g.Partitions {
		if p.Lag <= 0 {
			continue
		}
		g.Lagging++
		if p.Lag > g.MaxLag {
			g.MaxLag, worst = p.Lag, i
		}
	}
	g.WorstTopic, g.WorstPartition = nil, nil
	if worst >= 0 {
		// Copies: sorting the partitions moves them, and a summary
		// must not keep the page's partitions alive.
		w := struct {
			topic     string
			partition int32
		}{g.Partitions[worst].Topic, g.Partitions[worst].Partition}
		g.WorstTopic, g.WorstPartition = &w.topic, &w.partition
	}
}

// Summary is g in one row: its totals and counts, without its partitions.
func (g GroupLag) Summary() GroupLag {
	g.Partitions = nil
	return g
}

// LagSummary is the groups' lag with one row per group, read page by page
// (only one page's partitions are held at a time). OnlyLagging leaves out
// groups without lag; Sort orders the groups worst first (by total lag,
// or by MaxLagMs with LagSortLagMs); Top has nothing to cut.
func (c *Client) LagSummary(ctx context.Context, groups []string, o LagOptions) ([]GroupLag, error) {
	if o.Observe > 0 {
		return nil, Errorf(CodeInvalidArgument, "", "observe watches every partition's commits: not with summary")
	}
	var out []GroupLag
	err := c.LagPages(ctx, groups, LagOptions{Time: o.Time, ReadCommitted: o.ReadCommitted, AtRisk: o.AtRisk, Now: o.Now, NoCommit: o.NoCommit,
		Match: o.Match, Exclude: o.Exclude, States: o.States, Page: o.Page, Sort: sortNeedsTime(o)}, func(page []GroupLag) error {
		if out == nil {
			out = make([]GroupLag, 0, len(page))
		}
		for i := range page {
			if o.OnlyLagging && page[i].Err == nil && page[i].Lagging == 0 {
				continue
			}
			out = append(out, page[i].Summary())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []GroupLag{}
	}
	switch o.Sort {
	case LagSortLag:
		slices.SortStableFunc(out, func(a, b GroupLag) int { return cmpDesc(a.TotalLag, b.TotalLag) })
	case LagSortLagMs:
		slices.SortStableFunc(out, func(a, b GroupLag) int {
			return cmpDesc(lostFirst(a.RecordsLost, a.MaxLagMs), lostFirst(b.RecordsLost, b.MaxLagMs))
		})
	}
	return out, nil
}

// sortNeedsTime passes on a sort by lag_ms only to be checked against
// Time (OpenLag refuses it without); the pages themselves need no order.
func sortNeedsTime(o LagOptions) string {
	if o.Sort == LagSortLagMs && !o.Time {
		return o.Sort
	}
	return ""
}
