package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// lag_status page by page: each page of groups read by the lag cursor
// (lag_pages.go) is recorded in the state store and judged while the next
// page is read, and its partitions are let go once judged; the store's
// file is written once, behind the run, after the last page.

// LagStatus samples the groups' lag (every consumer group when groups is
// empty), records the sample in the state store and judges each group.
func (c *Client) LagStatus(ctx context.Context, groups []string, o LagStatusOptions) ([]GroupLagStatus, error) {
	var out []GroupLagStatus
	err := c.LagStatusPages(ctx, groups, o, func(page []GroupLagStatus) error {
		if out == nil {
			out = make([]GroupLagStatus, 0, len(page))
		}
		out = append(out, page...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []GroupLagStatus{}
	}
	return out, nil
}

// LagStatusPages is LagStatus a page of groups at a time, in group order:
// each is called with a page's verdicts once they are recorded. each's
// error ends the call (what was recorded stays recorded).
func (c *Client) LagStatusPages(ctx context.Context, groups []string, o LagStatusOptions, each func([]GroupLagStatus) error) error {
	cur, err := c.OpenLagStatus(ctx, groups, o)
	if err != nil {
		return err
	}
	defer cur.Close()
	for {
		page, err := cur.Next()
		if err != nil || page == nil {
			return err
		}
		if err := each(page); err != nil {
			return err
		}
	}
}

// LagStatusCursor judges the groups' lag a page at a time
// (OpenLagStatus). Close it when done: it starts writing the store's file
// (Next does too, after the last page).
type LagStatusCursor struct {
	c        *Client
	lag      *LagCursor
	store    *state.Store
	id       string
	o        LagStatusOptions
	now      func() time.Time
	recorded bool // a page was recorded: the file is to be written
}

// OpenLagStatus takes the state file's lock, lists and filters the groups
// and starts reading the first page.
func (c *Client) OpenLagStatus(ctx context.Context, groups []string, o LagStatusOptions) (*LagStatusCursor, error) {
	lo := o.Lag
	lo.OnlyLagging, lo.Sort, lo.Top, lo.Observe = false, "", 0, 0
	lo.keepGone = true
	if o.MaxLagMs > 0 {
		lo.Time = true
	}
	id, err := c.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	// The state file's lock is taken before sampling, not at the record:
	// a run that overlaps another waits for it and then samples, so its
	// samples come after the other's (sampled before and recorded after,
	// they read as a clock gone backwards and restarted the windows).
	store := c.State()
	if err := store.BeginChange(); err != nil {
		return nil, err
	}
	lag, err := c.OpenLag(ctx, groups, lo)
	if err != nil {
		return nil, err
	}
	cur := &LagStatusCursor{c: c, lag: lag, store: store, id: id, o: o, now: time.Now}
	if lo.Now != nil {
		cur.now = lo.Now
	}
	return cur, nil
}

// Next returns the next page's verdicts, nil after the last (when the
// store's file starts being written behind the run).
func (cur *LagStatusCursor) Next() ([]GroupLagStatus, error) {
	lags, err := cur.lag.Next()
	if err != nil {
		cur.Close()
		return nil, err
	}
	if lags == nil {
		cur.Close()
		return nil, nil
	}
	done := cur.c.phase(PhaseJudge)
	page, err := cur.c.judgePage(cur.store, cur.id, cur.now().UnixMilli(), lags, cur.o)
	done()
	if err != nil {
		cur.Close()
		return nil, err
	}
	cur.recorded = true
	return page, nil
}

// Close stops reading and starts writing the store's file if a page was
// recorded (once).
func (cur *LagStatusCursor) Close() {
	cur.lag.Close()
	if cur.recorded {
		cur.recorded = false
		cur.store.WriteBehind()
	}
}

// judgePage records one page's sample in the store and judges its groups.
// Each partition is judged as its sample is recorded, on the store's own
// window (no copy), and folded into its group's judgment: no slice of
// every partition's verdict unless asked for (for 300,000 partitions it
// was 42 MB of fresh memory and copies).
func (c *Client) judgePage(store *state.Store, id string, nowMs int64, lags []GroupLag, o LagStatusOptions) ([]GroupLagStatus, error) {
	seen := make([]lagGroup, 0, len(lags))
	at := make([]int, 0, len(lags)) // seen[i] is lags[at[i]]
	for i, g := range lags {
		switch {
		case isNotFound(g.Err):
			seen = append(seen, lagGroup{Name: g.Group, Gone: true})
		case g.Err == nil:
			seen = append(seen, lagGroup{Name: g.Group, Parts: g.Partitions})
		default:
			continue
		}
		at = append(at, i)
	}
	worst := cmp.Or(o.Worst, DefaultLagStatusWorst)
	if o.Summary {
		worst = 1
	}
	judged := make([]groupJudgment, len(lags))
	j := judge{windowMs: store.Options().Window.Milliseconds(), minComplete: o.MinComplete, allowed: o.AllowedLag, nowMs: nowMs}
	visit := func(si, pi int, w state.PartitionWindow) {
		gi := at[si]
		p := lags[gi].Partitions[pi]
		if p.Err != nil {
			return // a deleted topic's stale commit: not judged (nor does it fail the group)
		}
		judged[gi].add(j.partition(p, w), worst, o.Partitions && !o.Summary)
	}
	if err := state.RecordPage(store, id, stateName(c.cfg), nowMs, seen, lagReading, visit); err != nil {
		return nil, err
	}
	out := make([]GroupLagStatus, 0, len(lags))
	for i, g := range lags {
		st := judgeGroup(g, &judged[i], o)
		st.StateFile = store.Path() != ""
		st.FailedIn = g.FailedIn
		for _, p := range g.Partitions {
			st.MaxLag = max(st.MaxLag, p.Lag)
		}
		if len(st.Worst) > 0 {
			w := st.Worst[0]
			st.WorstTopic, st.WorstPartition = &w.Topic, &w.Partition
		}
		if o.Summary {
			st.Worst = nil
		}
		out = append(out, st)
	}
	return out, nil
}
