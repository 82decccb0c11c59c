package placement

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The size index of trade.go and swap.go only speeds trades up: on random
// states each trade is the one a scan of both brokers' whole lists makes
// (every replica, every pair, compared by betterMove and
// swapChoice.better), and the sorted lists stay the brokers' lists.

func scanTrade(st *state, h, l, lo, hi int) (trade, bool) {
	even := st.evenerOf(h, l)
	if !even.n.positive() {
		return trade{}, false
	}
	if st.count(l)+1 <= hi && st.count(h)-1 >= lo {
		best := int32(-1)
		for _, s := range st.on[h] {
			if st.bytesMovable(s) && even.gains(st.size(s)) && st.movable(s, l) && st.betterMove(s, best, h, l, even) {
				best = s
			}
		}
		if best >= 0 {
			return trade{give: best, take: -1}, true
		}
	}
	if st.budget[h] >= 0 && st.budget[h] < 2 || st.budget[l] >= 0 && st.budget[l] < 2 {
		return trade{}, false
	}
	best := swapChoice{give: -1, take: -1}
	for _, s := range st.on[h] {
		if !st.bytesMovable(s) || !st.movableWith(s, l, 0) {
			continue
		}
		for _, q := range st.on[l] {
			t := st.size(s) - st.size(q)
			if !st.bytesMovable(q) || !even.gains(t) || !st.fits(l, t) || !st.movable(q, h) {
				continue
			}
			if c := (swapChoice{give: s, take: q, t: t, rank: st.moveRank(s, h, l) + st.moveRank(q, l, h)}); c.better(best, even) {
				best = c
			}
		}
	}
	return trade{give: best.give, take: best.take}, best.give >= 0
}

// checkBySize: each broker's sorted list is its movable replicas by size.
func checkBySize(t *testing.T, st *state) {
	t.Helper()
	for b := range st.ids {
		var want []sizedSlot
		for _, s := range st.on[b] {
			if st.bytesMovable(s) {
				want = append(want, st.sized(s))
			}
		}
		slices.SortFunc(want, bySizeOrder)
		require.Equal(t, len(want), len(st.bySize[b]), "broker %d", b)
		if len(want) > 0 {
			require.Equal(t, want, st.bySize[b], "broker %d", b)
		}
	}
}

// randomSizes: random, all equal, many zeros, or a few distinct sizes
// (ties everywhere).
func randomSizes(rng *rand.Rand, cur map[string]map[int32][]int32, kind int) map[string]map[int32]int64 {
	sizes := map[string]map[int32]int64{}
	for _, tp := range sortedKeys(cur) {
		sizes[tp] = map[int32]int64{}
		for _, p := range sortedKeys(cur[tp]) {
			switch kind % 4 {
			case 0:
				sizes[tp][p] = rng.Int64N(10 * gib)
			case 1:
				sizes[tp][p] = 5 * gib
			case 2:
				sizes[tp][p] = rng.Int64N(3) * rng.Int64N(4*gib)
			default:
				sizes[tp][p] = gib * (1 + rng.Int64N(3))
			}
		}
	}
	return sizes
}

func TestTradesAreWhatAScanTrades(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	trades, swaps := 0, 0
	for i := range 406 {
		cur, brokers, racks := randomLayout(rng, i)
		sizes := randomSizes(rng, cur, i)
		if i >= 400 { // 500 replicas a broker: long lists, walked
			syn := syntheticLayout(2000, 12, 11)
			cur, brokers, racks = syn.Current, syn.all, map[int32]string{}
			for _, b := range brokers {
				if i%3 > 0 {
					racks[b] = fmt.Sprint(int(b) % (i%3 + 1))
				}
			}
			sizes = randomSizes(rng, cur, i)
		}
		in := Layout{Current: cur, Brokers: brokers, Racks: racks, Sizes: sizes}
		if i%3 != 0 {
			in.Disks = disksFor(cur, sizes, 60*gib)
			for _, b := range brokers {
				if _, ok := in.Disks[b]; !ok {
					in.Disks[b] = Disk{TotalBytes: 40 * gib, UsableBytes: 40 * gib}
				}
			}
		}
		o := []Options{{By: ByBytes}, {By: ByBytes, MinPartitionBytes: 2 * gib}, {By: ByBytes, PartitionLimit: 3}, {By: ByBytes, MaxDiskUsage: 0.3}}[i%4]
		st, err := newState(in, sortedUnique(brokers), o)
		require.NoError(t, err)
		if st.checkReplicationFactors(len(st.ids)) != nil {
			continue
		}
		if _, err := st.placeForced(true); err != nil {
			continue
		}
		balanceCounts(len(st.ids), replicaTokens{st})
		st.indexBySize()
		n := len(st.ids)
		for range 40 {
			h, l := rng.IntN(n), rng.IntN(n)
			if h == l {
				continue
			}
			lo, hi := 0, 1<<30
			if rng.IntN(2) == 0 { // counts forbid a move: swaps only
				hi = st.count(l)
			}
			want, wantOK := scanTrade(st, h, l, lo, hi)
			got, ok := st.bestTrade(h, l, lo, hi)
			require.Equal(t, wantOK, ok, "case %d: %d to %d", i, h, l)
			if !ok {
				continue
			}
			require.Equal(t, want, got, "case %d: %d to %d", i, h, l)
			trades++
			st.move(got.give, l)
			if got.take >= 0 {
				swaps++
				st.move(got.take, h)
			}
		}
		checkBySize(t, st)
		checkLists(t, st)
	}
	require.Greater(t, swaps, 200, "the checks saw swaps")
	require.Greater(t, trades-swaps, 200, "the checks saw moves")
}

func sortedKeys[K int32 | string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestEvenerIsExact(t *testing.T) {
	// Caps unknown: even is half the difference, 1.5 here.
	e := evener{n: mulWide(10, 1).sub(mulWide(7, 1)), ch: 1, cl: 1}
	assert.True(t, e.gains(1))
	assert.True(t, e.gains(2))
	assert.False(t, e.gains(3), "3 only swaps the brokers' bytes")
	assert.False(t, e.gains(0))
	assert.Negative(t, e.nearer(1, 2), "1 and 2 are as near to 1.5: the smaller first")
	assert.Zero(t, e.closer(1, 2))
	// Capacities near 2^44 and bytes near 2^43: products far beyond int64.
	c := int64(1) << 44
	e = evener{n: mulWide(c/2+3, c).sub(mulWide(c/2, c)), ch: c, cl: c}
	assert.True(t, e.gains(2))
	assert.False(t, e.gains(3))
	assert.True(t, e.atLeast(2))
	assert.False(t, e.atLeast(1))
	assert.True(t, e.atMost(1))
	assert.Equal(t, wide{hi: -1, lo: ^uint64(0)}, mulWide(-1, 1))
	assert.Equal(t, 1, mulWide(1<<62, 4).cmp(mulWide(1<<62, 3)))
	assert.Equal(t, -1, mulWide(-(1<<62), 4).cmp(mulWide(1<<62, -3)))
}

// Equal sizes: the move is the first partition in topic order, and the
// same layout always gives the same plan.
func TestPlanByBytesTiesGoToTheFirstPartition(t *testing.T) {
	cur := map[string]map[int32][]int32{"b": {0: {1}, 1: {1}, 2: {1}}, "a": {0: {2}, 1: {2}, 2: {2}}}
	sizes := map[string]map[int32]int64{"b": {0: 10 * gib, 1: 10 * gib, 2: 10 * gib}, "a": {0: 5 * gib, 1: 5 * gib, 2: 5 * gib}}
	in := Layout{Current: cur, Brokers: []int32{1, 2}, Sizes: sizes, Disks: disksFor(cur, sizes, 100*gib)}
	plan, err := Rebalance(in, Options{By: ByBytes})
	require.NoError(t, err)
	require.Len(t, plan.Partitions, 1)
	assert.Equal(t, "b[0]: [1] -> [2]", plan.Partitions[0].String())
	for range 5 {
		again, err := Rebalance(in, Options{By: ByBytes})
		require.NoError(t, err)
		assert.Equal(t, plan, again)
	}
}

// The fullest broker holds nothing that may move (its disk is full of
// other data, its replicas below min_partition_bytes): the plan evens the
// others out and terminates.
func TestPlanByBytesFullBrokerWithNothingToGive(t *testing.T) {
	cur := map[string]map[int32][]int32{"tiny": {0: {1}}, "big": {}}
	sizes := map[string]map[int32]int64{"tiny": {0: 1 << 20}, "big": {}}
	for p := range int32(6) {
		cur["big"][p], sizes["big"][p] = []int32{2}, 8*gib
	}
	in := Layout{Current: cur, Brokers: []int32{1, 2, 3}, Sizes: sizes, Disks: map[int32]Disk{
		1: {TotalBytes: 100 * gib, UsableBytes: 10 * gib}, // 90 GiB of other topics
		2: {TotalBytes: 100 * gib, UsableBytes: 52 * gib},
		3: {TotalBytes: 100 * gib, UsableBytes: 100 * gib},
	}}
	plan, err := Rebalance(in, Options{By: ByBytes, MinPartitionBytes: gib, MaxDiskUsage: 0.95})
	require.NoError(t, err)
	for _, r := range plan.Partitions {
		assert.Equal(t, "big", r.Topic, "%s", r)
		assert.Equal(t, []int32{3}, r.Target, "%s: only broker 3 has room", r)
	}
	assert.Len(t, plan.Partitions, 3, "48 GiB over brokers 2 and 3: three 8 GiB partitions move")
}

// A zero-byte replica gains nothing moved, but may come back in a swap;
// a broker whose replicas are all empty (its disk full of other data)
// has no trade.
func TestTradesWithZeroSizes(t *testing.T) {
	cur := map[string]map[int32][]int32{"t": {0: {1}, 1: {1}, 2: {1}, 3: {2}, 4: {2}, 5: {2}}}
	sizes := map[string]map[int32]int64{"t": {0: 6 * gib, 1: 20 * gib, 2: gib, 3: 0, 4: 11 * gib, 5: 2 * gib}}
	st, err := newState(Layout{Current: cur, Brokers: []int32{1, 2}, Sizes: sizes}, []int32{1, 2}, Options{By: ByBytes})
	require.NoError(t, err)
	st.indexBySize()
	// 27 GiB against 13: 7 GiB evens them out. Counts forbid a move; 6
	// GiB for the empty replica is nearest.
	got, ok := st.bestTrade(0, 1, 0, st.count(1))
	require.True(t, ok)
	assert.Equal(t, trade{give: 0, take: 3}, got)

	cur = map[string]map[int32][]int32{"z": {0: {1}, 1: {1}, 2: {2}}}
	sizes = map[string]map[int32]int64{"z": {0: 0, 1: 0, 2: 0}}
	disks := map[int32]Disk{1: {TotalBytes: 100 * gib, UsableBytes: 50 * gib}, 2: {TotalBytes: 100 * gib, UsableBytes: 100 * gib}}
	st, err = newState(Layout{Current: cur, Brokers: []int32{1, 2}, Sizes: sizes, Disks: disks}, []int32{1, 2}, Options{By: ByBytes})
	require.NoError(t, err)
	st.indexBySize()
	_, ok = st.bestTrade(0, 1, 0, 10)
	assert.False(t, ok)
}

// Two replicas as near to even on either side: the one whose move adds
// no replica move (it goes back where it was) beats the smaller.
func TestTradeTiesGoToTheCheaperMove(t *testing.T) {
	cur := map[string]map[int32][]int32{"t": {0: {1}, 1: {2}, 2: {1}, 3: {2}}}
	sizes := map[string]map[int32]int64{"t": {0: 4 * gib, 1: 10 * gib, 2: 6 * gib, 3: 4 * gib}}
	racks := map[int32]string{1: "a", 2: "a"} // one rack: the sorted lists are walked
	st, err := newState(Layout{Current: cur, Brokers: []int32{1, 2}, Racks: racks, Sizes: sizes}, []int32{1, 2}, Options{By: ByBytes})
	require.NoError(t, err)
	st.move(1, 0) // t[1] came to broker 1 earlier in the plan
	st.indexBySize()
	// 20 GiB against 4: 8 evens them out; t[2] (6) and t[1] (10) are as
	// near, and t[1] going home saves a move.
	got, ok := st.bestTrade(0, 1, 0, 10)
	require.True(t, ok)
	assert.Equal(t, trade{give: 1, take: -1}, got)
	want, _ := scanTrade(st, 0, 1, 0, 10)
	assert.Equal(t, want, got)
}
