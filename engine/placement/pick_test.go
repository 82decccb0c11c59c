package placement

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The lists of index.go only speed picks up: on random layouts, each pick
// balancing makes is the one a scan of the broker's whole list makes
// (scanReplica, scanLeader: the pickers before the lists), and the lists
// hold exactly the slots they say after every plan.

// scanReplica is pickReplica as a scan of u's whole list from the cursor
// (the cursor left as it is).
func scanReplica(st *state, u, v int) int32 {
	list := st.on[u]
	n := len(list)
	if n == 0 || st.budget[u] == 0 || st.budget[v] == 0 {
		return -1
	}
	best, bestRank := int32(-1), 4
	start := st.cursor[u] % n
	for i := range n {
		s := list[(start+i)%n]
		if rank := st.moveRank(s, u, v); rank < bestRank && st.movable(s, v) {
			best, bestRank = s, rank
		}
	}
	return best
}

// scanFree is pickFree as a scan of u's list from its start.
func scanFree(st *state, u, v int) int32 {
	for _, s := range st.on[u] {
		if st.moveRank(s, u, v) <= 1 && st.movable(s, v) {
			return s
		}
	}
	return -1
}

func scanLeader(lt *leaderTokens, u, v int, free bool) int32 {
	list := lt.led[u]
	n := len(list)
	if n == 0 {
		return -1
	}
	best, bestRank := int32(-1), 3
	start := lt.cursor[u] % n
	if free {
		start = 0
	}
	for i := range n {
		p := list[(start+i)%n]
		rank := 2
		switch {
		case lt.pref[p] == lt.ids[v]:
			rank = 0
		case lt.pref[p] != lt.ids[u]:
			rank = 1
		}
		if free && rank <= 1 {
			rank = 0
		}
		if rank < bestRank && lt.valid(p, v) {
			best, bestRank = p, rank
		}
	}
	if free && bestRank > 1 {
		return -1
	}
	return best
}

type checkedReplicas struct {
	replicaTokens
	t     *testing.T
	picks int
}

func (c *checkedReplicas) pick(u, v int) (int32, bool) {
	want := scanReplica(c.st, u, v)
	got, ok := c.replicaTokens.pick(u, v)
	require.Equal(c.t, want, got, "pick from broker %d to %d", u, v)
	require.Equal(c.t, want >= 0, ok)
	c.picks++
	return got, ok
}

func (c *checkedReplicas) free(u, v int) (int32, bool) {
	want := scanFree(c.st, u, v)
	got, ok := c.replicaTokens.free(u, v)
	require.Equal(c.t, want, got, "free from broker %d to %d", u, v)
	require.Equal(c.t, want >= 0, ok)
	return got, ok
}

func (c *checkedReplicas) strays(u int) []int32 {
	var want []int32
	for _, s := range c.st.on[u] {
		if c.st.isNew(s, u) {
			want = append(want, s)
		}
	}
	got := c.replicaTokens.strays(u)
	require.Equal(c.t, len(want), len(got))
	if len(want) > 0 {
		require.Equal(c.t, want, got)
	}
	return got
}

type checkedLeaders struct {
	*leaderTokens
	t *testing.T
}

func (c checkedLeaders) pick(u, v int) (int32, bool) {
	want := scanLeader(c.leaderTokens, u, v, false)
	got, ok := c.leaderTokens.pick(u, v)
	require.Equal(c.t, want, got, "leader pick from broker %d to %d", u, v)
	require.Equal(c.t, want >= 0, ok)
	return got, ok
}

func (c checkedLeaders) free(u, v int) (int32, bool) {
	want := scanLeader(c.leaderTokens, u, v, true)
	got, ok := c.leaderTokens.free(u, v)
	require.Equal(c.t, want, got, "leader free from broker %d to %d", u, v)
	return got, ok
}

// checkLists: every list holds exactly the slots it says, each at the
// place its position says.
func checkLists(t *testing.T, st *state) {
	t.Helper()
	for s := range st.slotAt {
		s := int32(s)
		b := st.slotAt[s]
		stray := b >= 0 && st.isNew(s, int(b))
		away := b >= 0 && st.origAt[s] >= 0 && st.origAt[s] != b
		cross := false
		for v := range st.ids {
			cross = cross || b >= 0 && st.rack[v] != st.rack[b] && st.rackOK(s, v)
		}
		require.Equal(t, stray, st.strays.has(s), "slot %d stray", s)
		require.Equal(t, away, st.away.has(s), "slot %d away", s)
		require.Equal(t, cross, st.cross.has(s), "slot %d cross", s)
		if stray {
			require.Equal(t, s, st.strays.lists[b][st.strays.pos[s]])
		}
		if away {
			require.Equal(t, s, st.away.lists[st.origAt[s]][st.away.pos[s]])
		}
		if cross {
			require.Equal(t, s, st.cross.lists[b][st.cross.pos[s]])
		}
	}
}

// checkedBalance is Rebalance by count up to its leaders, every pick
// checked against a scan.
func checkedBalance(t *testing.T, in Layout, o Options) (picks int) {
	t.Helper()
	ids := sortedUnique(in.Brokers)
	st, err := newState(in, ids, o)
	require.NoError(t, err)
	if st.checkReplicationFactors(len(ids)) != nil {
		return 0
	}
	forced, err := st.placeForced(o.byBytes())
	if err != nil {
		return 0
	}
	checkLists(t, st)
	rt := &checkedReplicas{replicaTokens: replicaTokens{st}, t: t}
	balanceCounts(len(ids), rt)
	if forced > 0 {
		save(len(ids), rt)
	}
	checkLists(t, st)
	pref := make([]int32, len(st.parts))
	for p := range st.parts {
		pref[p] = st.parts[p].current[0]
	}
	lt := newLeaderTokens(st.ids, st.index, pref, st.targets(), func(p, b int32) bool { return b != pref[p] || p%3 != 0 })
	balanceCounts(len(ids), checkedLeaders{lt, t})
	save(len(ids), checkedLeaders{lt, t})
	return rt.picks
}

func TestPicksAreWhatAScanPicks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	picks := 0
	for i := range 300 {
		cur, brokers, racks := randomLayout(rng, i)
		sizes := randomSizes(rng, cur, i)
		in := Layout{Current: cur, Brokers: brokers, Racks: racks, Sizes: sizes}
		if i%4 == 3 { // capacities that refuse the larger partitions on some brokers
			in.Disks = disksFor(cur, sizes, 20*gib)
		}
		for _, o := range []Options{{}, {PartitionLimit: 1 + i%3}, {MinPartitionBytes: gib}} {
			t.Run(fmt.Sprintf("case %d %+v", i, o), func(t *testing.T) { picks += checkedBalance(t, in, o) })
		}
	}
	// At scale: RF 3 over 3 racks (no replica may change racks), 2 racks,
	// none, and brokers leaving (forced moves, then save).
	syn := syntheticLayout(3000, 20, 17)
	for name, racks := range map[string]int{"three racks": 3, "two racks": 2, "no racks": 0} {
		in := syn.Layout
		in.Racks = map[int32]string{}
		for b := range int32(20) {
			if racks > 0 {
				in.Racks[b] = fmt.Sprint(b % int32(racks))
			}
		}
		for _, brokers := range [][]int32{syn.all, syn.all[2:]} {
			in.Brokers = brokers
			t.Run(fmt.Sprintf("%s %d brokers", name, len(brokers)), func(t *testing.T) { picks += checkedBalance(t, in, Options{}) })
		}
	}
	require.Greater(t, picks, 5000, "the checks saw picks")
}

func TestIDLists(t *testing.T) {
	ls := newIDLists(2, 5)
	ls.add(0, 3)
	ls.add(0, 1)
	ls.add(1, 4)
	ls.add(0, 2)
	ls.drop(0, 3)
	require.Equal(t, []int32{2, 1}, ls.lists[0])
	require.Equal(t, []int32{4}, ls.lists[1])
	require.False(t, ls.has(3))
	require.True(t, ls.has(2))
	require.Equal(t, int32(0), ls.pos[2])
	require.Equal(t, int32(1), ls.pos[1])
	ls.drop(0, 1)
	ls.drop(0, 2)
	require.Empty(t, ls.lists[0])
	require.True(t, slices.Equal([]int32{-1, -1, -1, -1}, ls.pos[:4]))
}
