package engine

import (
	"context"
	"time"
)

// Whether a group is stuck, in one run: a committed offset that has not
// moved says nothing at one instant (a consumer commits every few
// seconds), so lag{observe = N} watches for N seconds. The commits read
// at the start are compared with a second reading at the end; a lagging
// partition whose committed offset is where it was has been stuck at
// least that long (StuckMs, or the state store's longer figure), and one
// that moved is not stuck, whatever the store said. Across runs the
// state store answers the same question without waiting (stuckFunc).

// observeCommits waits until began+observe (ctx ends the wait: Ctrl-C),
// reads the commits of out's groups with lagging partitions again, and
// sets or clears their StuckMs.
func (c *Client) observeCommits(ctx context.Context, out []GroupLag, began time.Time, observe time.Duration) error {
	var groups []string
	for _, g := range out {
		if g.Err == nil && g.TotalLag > 0 {
			groups = append(groups, g.Group)
		}
	}
	if len(groups) == 0 {
		return nil
	}
	wait := time.NewTimer(time.Until(began.Add(observe)))
	defer wait.Stop()
	select {
	case <-ctx.Done():
		return AsError(context.Cause(ctx), "")
	case <-wait.C:
	}
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	commits, errs := c.fetchManyOffsets(cctx, groups)
	watched := time.Since(began).Milliseconds()
	for gi := range out {
		g := &out[gi]
		again, ok := commits[g.Group]
		if !ok || errs[g.Group] != nil {
			continue // not read again: nothing more is known
		}
		for pi := range g.Partitions {
			p := &g.Partitions[pi]
			if p.Err != nil || p.Lag <= 0 || p.Committed < 0 {
				continue
			}
			r, ok := again.Lookup(p.Topic, p.Partition)
			switch {
			case !ok || r.Err != nil:
			case r.At != p.Committed:
				p.StuckMs = nil // it moved while watched
			case p.StuckMs == nil || *p.StuckMs < watched:
				ms := watched
				p.StuckMs = &ms
			}
		}
	}
	return nil
}
