package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// groupsAsked records the groups named in DescribeGroups and OffsetFetch
// requests the cluster receives.
type groupsAsked struct {
	mu                 sync.Mutex
	described, fetched []string
}

func watchGroupsAsked(c *kfake.Cluster) *groupsAsked {
	a := &groupsAsked{}
	c.ControlKey(int16(kmsg.DescribeGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		a.mu.Lock()
		a.described = append(a.described, req.(*kmsg.DescribeGroupsRequest).Groups...)
		a.mu.Unlock()
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.OffsetFetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		r := req.(*kmsg.OffsetFetchRequest)
		a.mu.Lock()
		if r.Group != "" {
			a.fetched = append(a.fetched, r.Group)
		}
		for _, g := range r.Groups {
			a.fetched = append(a.fetched, g.Group)
		}
		a.mu.Unlock()
		return nil, nil, false
	})
	return a
}

func (a *groupsAsked) sets() (described, fetched []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(a.described))), slices.Compact(slices.Sorted(slices.Values(a.fetched)))
}

// The group filters choose right after the listing: a group they leave
// out is never described nor asked for its commits.
func TestLagFiltersChooseGroupsBeforeAnyRequest(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 4) // g0..g3, committed at 0..3 on t's 4 partitions of 3 records
	asked := watchGroupsAsked(c)
	lags, err := cl.LagWith(context.Background(), nil, LagOptions{Match: regexp.MustCompile(`^g[0-2]$`), Exclude: regexp.MustCompile(`1`)})
	require.NoError(t, err)
	var names []string
	for _, g := range lags {
		names = append(names, g.Group)
	}
	assert.Equal(t, []string{"g0", "g2"}, names)
	assert.Equal(t, int64(12), lags[0].TotalLag)
	assert.Equal(t, int64(4), lags[1].TotalLag)
	described, fetched := asked.sets()
	assert.Equal(t, []string{"g0", "g2"}, described, "only the chosen groups are described")
	assert.Equal(t, []string{"g0", "g2"}, fetched, "only the chosen groups' commits are asked for")

	// States come from the listing: the committed-only groups are Empty.
	none, err := cl.LagWith(context.Background(), nil, LagOptions{States: []string{"stable"}})
	require.NoError(t, err)
	assert.Empty(t, none)
	empty, err := cl.LagWith(context.Background(), []string{"g3", "g1", "nope"}, LagOptions{States: []string{"EMPTY"}})
	require.NoError(t, err)
	require.Len(t, empty, 2, "a named group that is not listed has no state: a state filter leaves it out")
	assert.Equal(t, "g1", empty[0].Group)
	assert.Equal(t, "g3", empty[1].Group)
}

// Read in pages of 2 groups, lag gives the same rows as in one page, the
// summaries agree with the rows, and the requests grow with the pages.
func TestLagPagesGiveTheSameRowsAsOneRead(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 5)
	ctx := context.Background()
	whole, err := cl.LagWith(ctx, nil, LagOptions{})
	require.NoError(t, err)
	require.Len(t, whole, 5)

	fetches := countKey(c, kmsg.OffsetFetch)
	var pages [][]GroupLag
	require.NoError(t, cl.LagPages(ctx, nil, LagOptions{Page: 2}, func(p []GroupLag) error {
		pages = append(pages, slices.Clone(p))
		return nil
	}))
	require.Len(t, pages, 3)
	assert.Equal(t, whole, slices.Concat(pages...))
	assert.LessOrEqual(t, fetches.Load(), int32(3*3), "per page, one OffsetFetch per coordinator")

	sums, err := cl.LagSummary(ctx, nil, LagOptions{Page: 2})
	require.NoError(t, err)
	require.Len(t, sums, 5)
	for i, s := range sums {
		g := whole[i]
		assert.Equal(t, g.Group, s.Group)
		assert.Equal(t, g.TotalLag, s.TotalLag)
		assert.Equal(t, 4, s.PartitionCount)
		if g.TotalLag == 0 {
			assert.Zero(t, s.Lagging)
			assert.Nil(t, s.WorstTopic)
			continue
		}
		assert.Equal(t, 4, s.Lagging)
		assert.Equal(t, int64(3-i), s.MaxLag)
		require.NotNil(t, s.WorstTopic)
		assert.Equal(t, "t", *s.WorstTopic)
		assert.Equal(t, int32(0), *s.WorstPartition, "equal lags: the first in partition order")
	}

	sorted, err := cl.LagSummary(ctx, nil, LagOptions{Page: 2, OnlyLagging: true, Sort: LagSortLag})
	require.NoError(t, err)
	var order []string
	for _, s := range sorted {
		order = append(order, s.Group)
	}
	assert.Equal(t, []string{"g0", "g1", "g2"}, order, "worst first, groups without lag left out")
}

// A group deleted between the listing and its page is left out of lag (as
// if listed a moment later) and is NOTFOUND in lag_status, which drops
// its samples; a group made after the listing is not read.
func TestLagGroupListChangingWhileRead(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 4)
	ctx := context.Background()
	var once sync.Once
	c.ControlKey(int16(kmsg.DescribeGroups), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		once.Do(func() {
			go func() {
				// Another admin deletes g2 and makes g9 while the pages are read.
				_, _ = adm.DeleteGroups(ctx, "g2")
				os := kadm.Offsets{}
				os.Add(kadm.Offset{Topic: "t", Partition: 0, At: 1, LeaderEpoch: -1})
				_, _ = adm.CommitOffsets(ctx, "g9", os)
			}()
		})
		return nil, nil, false
	})
	// Pages of one group: g2's page is read after the delete has gone through.
	var names []string
	require.NoError(t, cl.LagPages(ctx, nil, LagOptions{Page: 1}, func(p []GroupLag) error {
		for _, g := range p {
			require.Nil(t, g.Err, g.Group)
			names = append(names, g.Group)
		}
		if len(names) == 1 {
			require.Eventually(t, func() bool {
				l, err := adm.ListGroups(ctx)
				_, g2 := l["g2"]
				_, g9 := l["g9"]
				return err == nil && !g2 && g9
			}, 5*time.Second, 10*time.Millisecond)
		}
		return nil
	}))
	assert.Equal(t, []string{"g0", "g1", "g3"}, names)

	st, err := cl.LagStatus(ctx, []string{"g0", "g2"}, LagStatusOptions{})
	require.NoError(t, err)
	assert.Equal(t, "NOTFOUND", st[1].Status)
}

// One coordinator that does not answer its share of OffsetFetch: its
// groups fail with TIMEOUT in fetch_offsets (nothing of them is computed
// from the other phases), the other groups are read whole, and later
// pages do not ask that coordinator again.
func TestLagOneCoordinatorTimingOutIsPartial(t *testing.T) {
	cl, c := seededWithTimeout(t, 400*time.Millisecond, 12)
	slow := c.CoordinatorFor("g0")
	// The broker answers its share of every OffsetFetch with
	// REQUEST_TIMED_OUT (retriable: asked again until the deadline).
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetFetch}, Nodes: []int32{slow}, Err: kerr.RequestTimedOut, Count: -1})
	fetched := watchGroupsAsked(c)
	lags, err := cl.LagWith(context.Background(), nil, LagOptions{Page: 6})
	require.NoError(t, err)
	require.Len(t, lags, 12)
	timedOut := 0
	for _, gl := range lags {
		var g int
		_, err := fmt.Sscanf(gl.Group, "g%d", &g)
		require.NoError(t, err)
		if c.CoordinatorFor(gl.Group) == slow {
			timedOut++
			require.NotNil(t, gl.Err, gl.Group)
			assert.Equal(t, CodeTimeout, gl.Err.Code, gl.Group)
			assert.Equal(t, PhaseFetchOffsets, gl.FailedIn, gl.Group)
			assert.Empty(t, gl.Partitions, "nothing computed from the other phases")
			assert.Zero(t, gl.TotalLag)
			continue
		}
		assert.Nil(t, gl.Err, gl.Group)
		assert.Len(t, gl.Partitions, 4)
		assert.Equal(t, int64(4*max(3-g, 0)), gl.TotalLag, gl.Group)
	}
	require.Positive(t, timedOut)
	_, asked := fetched.sets()
	later := 0
	for _, g := range lags[6:] {
		if c.CoordinatorFor(g.Group) == slow && !slices.Contains(asked, g.Group) {
			later++
		}
	}
	require.Positive(t, later, "the second page has a group of that coordinator: seed more groups")
	for _, g := range lags[6:] {
		if g.Err != nil {
			assert.False(t, slices.Contains(asked, g.Group), g.Group)
			assert.Contains(t, g.Err.Message, "not asked: its coordinator", g.Group)
		}
	}
}

// Coordinators that move between pages (every group rehashed) are found
// again: the read is whole and right.
func TestLagCoordinatorsMovingBetweenPages(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 6)
	n := 0
	c.ControlKey(int16(kmsg.OffsetFetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if n++; n%2 == 0 {
			c.RehashCoordinators()
		}
		return nil, nil, false
	})
	lags, err := cl.LagWith(context.Background(), nil, LagOptions{Page: 2})
	require.NoError(t, err)
	require.Len(t, lags, 6)
	for g, gl := range lags {
		assert.Nil(t, gl.Err, gl.Group)
		assert.Equal(t, fmt.Sprintf("g%d", g), gl.Group)
		assert.Equal(t, int64(4*max(3-g, 0)), gl.TotalLag, gl.Group)
	}
}

// A listing that fails fails the whole read (the groups it would have
// chosen from are not known), and says so: the phase and the broker that
// did not answer, not a bare TIMEOUT.
func TestLagListingThatFailsSaysWhereItFailed(t *testing.T) {
	cl, c := seededWithTimeout(t, 300*time.Millisecond, 3)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListGroups}, Nodes: []int32{1}, Err: kerr.RequestTimedOut, Count: -1})
	for _, read := range []func() error{
		func() error { _, err := cl.LagWith(context.Background(), nil, LagOptions{}); return err },
		func() error { _, err := cl.LagStatus(context.Background(), nil, LagStatusOptions{}); return err },
	} {
		err := read()
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeTimeout, e.Code)
		assert.Contains(t, e.Message, "list_groups: broker 1 did not list its groups: deadline exceeded")
	}
}

// seededWithTimeout is a 3-broker cluster seeded with groups (seedLag) and
// a client whose calls time out after timeout, for faults that make them.
func seededWithTimeout(t *testing.T, timeout time.Duration, groups int) (*Client, *kfake.Cluster) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: timeout})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	seedLag(t, c, kadm.NewClient(kc), groups)
	return cl, c
}
