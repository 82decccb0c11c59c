package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Lag page by page. A cluster with 65,000 groups of 40 partitions has 2.6
// million (group, partition) rows: read at once, they and kadm's maps of
// them took gigabytes. So the groups are listed once, filtered by name and
// state right there (before any describe or offset request), and read a
// page of groups at a time: the page's descriptions and commits at once,
// then the start and end offsets of the page's topics (listed after the
// commits, as kadm does, so a lag is never under-counted by records
// produced in between), then the rows. While the caller uses one page
// (sums it, judges it, hands it to Lua) the next is read. Requests grow
// with the pages (a dozen a page), not with the groups.

// DefaultLagPage is how many groups a page of lag reads at once: 2,000
// groups of 40 partitions are 80,000 rows, a few tens of MB with kadm's
// answers, two pages at a time.
const DefaultLagPage = 2000

// LagCursor reads the groups' lag a page at a time (OpenLag). It is not
// safe for concurrent use; Close it when done (Next returning the last
// page does not).
type LagCursor struct {
	c      *Client
	ctx    context.Context
	cancel context.CancelFunc
	o      LagOptions
	names  []string       // the groups to read, sorted and filtered
	listed []GroupSummary // the listing the groups came from; nil when named and not listed
	named  bool           // the caller named the groups (a missing one is an error, not gone)
	at     int            // the first group of the page after the one being read
	ahead  chan lagPageResult

	mu   sync.Mutex
	slow map[int32]slowBroker // coordinators that timed out earlier in this read
}

type lagPageResult struct {
	rows []GroupLag
	err  error
}

// slowBroker is a coordinator that did not answer a page in time: its
// groups in later pages are not asked again (each page would wait the
// whole timeout for it), and say so.
type slowBroker struct {
	phase string
	err   *Error
}

// OpenLag lists the groups to read (every consumer group when groups is
// empty), filters them (LagOptions.Match, Exclude, States) and starts
// reading the first page. Its errors are the listing's.
func (c *Client) OpenLag(ctx context.Context, groups []string, o LagOptions) (*LagCursor, error) {
	if o.Sort == LagSortLagMs && !o.Time {
		return nil, Errorf(CodeInvalidArgument, "", "sort by lag_ms needs the lag in time (time=true)")
	}
	cur := &LagCursor{c: c, o: o, named: len(groups) > 0}
	if err := cur.plan(ctx, groups); err != nil {
		return nil, err
	}
	cur.ctx, cur.cancel = context.WithCancel(ctx)
	cur.readAhead()
	return cur, nil
}

// Groups is how many groups the cursor reads in all.
func (cur *LagCursor) Groups() int { return len(cur.names) }

// Next returns the next page of rows, in group order, shaped by the
// options group by group (OnlyLagging, Sort and Top order and cut each
// group's partitions; the groups keep their order); nil (and no error)
// after the last. An error ends the read: the page's listing of offsets
// failed as a whole, or the caller's context ended.
func (cur *LagCursor) Next() ([]GroupLag, error) {
	for cur.ahead != nil {
		r := <-cur.ahead
		cur.ahead = nil
		if r.err != nil {
			cur.Close()
			return nil, r.err
		}
		cur.readAhead()
		if rows := shapeLagGroups(r.rows, cur.o); len(rows) > 0 {
			return rows, nil
		}
		// every group of the page left out (OnlyLagging, or gone): the next
	}
	return nil, nil
}

// Close stops the page being read ahead, if any.
func (cur *LagCursor) Close() {
	if cur.cancel != nil {
		cur.cancel()
	}
	if cur.ahead != nil {
		<-cur.ahead
		cur.ahead = nil
	}
}

func (cur *LagCursor) readAhead() {
	if cur.at >= len(cur.names) {
		return
	}
	page := cur.o.Page
	if page <= 0 {
		page = DefaultLagPage
	}
	names := cur.names[cur.at:min(cur.at+page, len(cur.names))]
	cur.at += len(names)
	ch := make(chan lagPageResult, 1)
	cur.ahead = ch
	go func() {
		rows, err := cur.page(names)
		ch <- lagPageResult{rows, err}
	}()
}

// plan lists and filters the groups. Named groups are listed only when a
// state filter needs their states, or when they span pages (so that each
// page's describe does not list the groups' types again).
func (cur *LagCursor) plan(ctx context.Context, groups []string) error {
	c, o := cur.c, cur.o
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	page := o.Page
	if page <= 0 {
		page = DefaultLagPage
	}
	if !cur.named || len(o.States) > 0 || len(groups) > page {
		done := c.phase(PhaseListGroups)
		listed, err := c.listGroups(ctx)
		done()
		if err != nil {
			// Without the whole listing no group is read: the error says
			// the phase, as a group's failed_in would.
			e := *err
			e.Message = PhaseListGroups + ": " + e.Message
			return &e
		}
		cur.listed = listed
	}
	if !cur.named {
		for _, g := range cur.listed {
			if lagsByDefault(g) {
				groups = append(groups, g.Group)
			}
		}
	}
	var states map[string]string
	if len(o.States) > 0 {
		states = make(map[string]string, len(cur.listed))
		for _, g := range cur.listed {
			states[g.Group] = g.State
		}
	}
	names := slices.Compact(slices.Sorted(slices.Values(groups)))
	cur.names = slices.DeleteFunc(names, func(g string) bool { return !o.chooses(g, states) })
	return nil
}

// chooses reports whether the filters keep group g (states: the listed
// states, nil without a state filter; a named group that is not listed
// has no state and is kept only without one).
func (o LagOptions) chooses(g string, states map[string]string) bool {
	if o.Match != nil && !o.Match.MatchString(g) {
		return false
	}
	if o.Exclude != nil && o.Exclude.MatchString(g) {
		return false
	}
	if states != nil {
		st, ok := states[g]
		return ok && matchesFold(o.States, st)
	}
	return true
}

// page reads one page of groups: their descriptions and commits (one
// call's time for both), then their topics' offsets (another), then, with
// Time, the records (another).
func (cur *LagCursor) page(names []string) ([]GroupLag, error) {
	c, o, parent := cur.c, cur.o, cur.ctx
	asked, notAsked := cur.askable(names)

	ctx, cancel := c.callCtx(parent)
	var (
		described []GroupDescription
		derr      error
		commits   map[string]kadm.OffsetResponses
		fetchErrs map[string]*Error
		wg        sync.WaitGroup
	)
	wg.Go(func() {
		defer c.phase(PhaseDescribeGroups)()
		described, derr = c.describeKnown(ctx, asked, cur.listed)
	})
	func() {
		defer c.phase(PhaseFetchOffsets)()
		commits, fetchErrs = c.fetchManyOffsets(ctx, asked)
	}()
	wg.Wait()
	cancel()
	if derr != nil {
		return nil, derr
	}
	if err := parent.Err(); err != nil {
		return nil, AsError(context.Cause(parent), "")
	}

	topicSet := map[string]bool{}
	for _, d := range described {
		if d.Err != nil || fetchErrs[d.Group] != nil {
			continue
		}
		for _, m := range d.Members {
			for _, a := range m.Assignment {
				topicSet[a.Topic] = true
			}
		}
		for t := range commits[d.Group] {
			topicSet[t] = true
		}
		for _, t := range d.inputs { // a streams group's source and repartition topics
			topicSet[t] = true
		}
	}
	var start, end kadm.ListedOffsets
	if topics := slices.Sorted(maps.Keys(topicSet)); len(topics) > 0 {
		ctx, cancel := c.callCtx(parent)
		done := c.phase(PhaseListOffsets)
		var err error
		start, end, err = c.listStartEnd(ctx, topics)
		done()
		cancel()
		if err != nil {
			return nil, err
		}
	}

	out := make([]GroupLag, 0, len(names))
	byName := make(map[string]*GroupDescription, len(described))
	for i := range described {
		byName[described[i].Group] = &described[i]
	}
	for _, g := range names {
		if why, ok := notAsked[g]; ok {
			out = append(out, GroupLag{Group: g, Partitions: []PartitionLag{}, Err: why.err, FailedIn: why.phase})
			continue
		}
		d := byName[g]
		gl := GroupLag{Group: g, State: d.State, Partitions: []PartitionLag{}, Err: d.Err}
		switch {
		case gl.Err != nil && isNotFound(gl.Err) && !cur.named && !o.keepGone:
			continue // listed, then deleted before its page was read: as if listed a moment later
		case gl.Err != nil:
			gl.FailedIn = PhaseDescribeGroups
		case fetchErrs[g] != nil:
			gl.Err, gl.FailedIn = fetchErrs[g], PhaseFetchOffsets
		}
		if gl.Err == nil {
			gl.Partitions = groupLag(*d, commits[g], start, end)
			if o.NoCommit == NoCommitSkip {
				skipUncommitted(gl.Partitions)
			}
			for _, p := range gl.Partitions {
				if p.Lag > 0 {
					gl.TotalLag += p.Lag
				}
				gl.RecordsLost += p.RecordsLost
				if p.Err != nil && gl.Err == nil && p.Err.Code != kerr.UnknownTopicOrPartition.Message {
					gl.Err, gl.FailedIn = p.Err, PhaseListOffsets
				}
			}
			gl.count()
		}
		out = append(out, gl)
	}
	cur.noteSlow(out)
	if o.Time {
		ctx, cancel := c.callCtx(parent)
		defer cancel()
		if err := c.lagTime(ctx, out, o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// askable splits a page's groups into those to ask and those whose
// coordinator (as listed) timed out on an earlier page.
func (cur *LagCursor) askable(names []string) ([]string, map[string]slowBroker) {
	cur.mu.Lock()
	defer cur.mu.Unlock()
	if len(cur.slow) == 0 || cur.listed == nil {
		return names, nil
	}
	coordinator := make(map[string]int32, len(cur.listed))
	for _, g := range cur.listed {
		coordinator[g.Group] = g.Coordinator
	}
	var asked []string
	notAsked := map[string]slowBroker{}
	for _, g := range names {
		co, listed := coordinator[g]
		if s, slow := cur.slow[co]; listed && slow {
			notAsked[g] = slowBroker{phase: s.phase, err: &Error{Code: CodeTimeout, Resource: g, Retriable: true,
				Message: fmt.Sprintf("not asked: its coordinator, broker %d, did not answer %s in time earlier in this call (%s)", co, s.phase, s.err.Message)}}
			continue
		}
		asked = append(asked, g)
	}
	return asked, notAsked
}

// noteSlow remembers the coordinators of the page's groups that timed out
// describing them or fetching their commits.
func (cur *LagCursor) noteSlow(rows []GroupLag) {
	if cur.listed == nil {
		return
	}
	var coordinator map[string]int32
	cur.mu.Lock()
	defer cur.mu.Unlock()
	for _, g := range rows {
		if g.Err == nil || g.Err.Code != CodeTimeout || (g.FailedIn != PhaseDescribeGroups && g.FailedIn != PhaseFetchOffsets) {
			continue
		}
		if coordinator == nil {
			coordinator = make(map[string]int32, len(cur.listed))
			for _, l := range cur.listed {
				coordinator[l.Group] = l.Coordinator
			}
		}
		co, ok := coordinator[g.Group]
		if !ok {
			continue
		}
		if cur.slow == nil {
			cur.slow = map[int32]slowBroker{}
		}
		if _, seen := cur.slow[co]; !seen {
			cur.slow[co] = slowBroker{phase: g.FailedIn, err: g.Err}
		}
	}
}

// LagPages calls each with every page of the groups' lag, as Next returns
// them. each's error ends the read and is returned.
func (c *Client) LagPages(ctx context.Context, groups []string, o LagOptions, each func([]GroupLag) error) error {
	cur, err := c.OpenLag(ctx, groups, o)
	if err != nil {
		return err
	}
	defer cur.Close()
	for {
		rows, err := cur.Next()
		if err != nil || rows == nil {
			return err
		}
		if err := each(rows); err != nil {
			return err
		}
	}
}
