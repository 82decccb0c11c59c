package placement

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
	"github.com/kadmin-lua/kadmin-lua/internal/testerr"
)

// apply returns the assignment after the plan.
func apply(cur map[string]map[int32][]int32, plan Plan) map[string]map[int32][]int32 {
	out := map[string]map[int32][]int32{}
	for t, ps := range cur {
		out[t] = map[int32][]int32{}
		for p, r := range ps {
			out[t][p] = slices.Clone(r)
		}
	}
	for _, pp := range plan.Partitions {
		out[pp.Topic][pp.Partition] = pp.Target
	}
	return out
}

// spread returns replicas and leaders per broker.
func spread(a map[string]map[int32][]int32, brokers []int32) (replicas, leaders map[int32]int) {
	replicas, leaders = map[int32]int{}, map[int32]int{}
	for _, b := range brokers {
		replicas[b], leaders[b] = 0, 0
	}
	for _, ps := range a {
		for _, r := range ps {
			leaders[r[0]]++
			for _, b := range r {
				replicas[b]++
			}
		}
	}
	return replicas, leaders
}

func assertBalanced(t *testing.T, counts map[int32]int, what string) {
	t.Helper()
	lo, hi := 1<<30, -1
	for _, n := range counts {
		lo, hi = min(lo, n), max(hi, n)
	}
	assert.LessOrEqual(t, hi-lo, 1, "%s not balanced: %v", what, counts)
}

func assertValid(t *testing.T, before, after map[string]map[int32][]int32, brokers []int32) {
	t.Helper()
	for tp, ps := range before {
		for p, r := range ps {
			got := after[tp][p]
			assert.Len(t, got, len(r), "%s[%d] keeps its replication factor", tp, p)
			seen := map[int32]bool{}
			for _, b := range got {
				assert.False(t, seen[b], "%s[%d] has broker %d twice: %v", tp, p, b, got)
				seen[b] = true
				assert.Contains(t, brokers, b, "%s[%d] uses broker %d outside the set", tp, p, b)
			}
		}
	}
}

func skewed(topic string, parts int, reps ...int32) map[int32][]int32 {
	out := map[int32][]int32{}
	for p := range parts {
		out[int32(p)] = slices.Clone(reps)
	}
	_ = topic
	return out
}

func TestPlanBalancesSkewedTopic(t *testing.T) {
	cur := map[string]map[int32][]int32{"orders": skewed("orders", 6, 1, 2)}
	brokers := []int32{1, 2, 3}
	plan, err := Balance(Layout{Current: cur, Brokers: brokers})
	require.NoError(t, err)
	after := apply(cur, plan)
	assertValid(t, cur, after, brokers)
	r, l := spread(after, brokers)
	assertBalanced(t, r, "replicas")
	assertBalanced(t, l, "leaders")
	// 12 replicas over 3 brokers: broker 3 takes 4, and nothing else moves.
	assert.Equal(t, 4, plan.Moves)
	assert.Equal(t, 4, r[3])
}

func TestPlanAlreadyBalancedChangesNothing(t *testing.T) {
	cur := map[string]map[int32][]int32{"t": {0: {1, 2}, 1: {2, 3}, 2: {3, 1}}}
	plan, err := Balance(Layout{Current: cur, Brokers: []int32{1, 2, 3}})
	require.NoError(t, err)
	assert.Equal(t, 0, plan.Moves)
	assert.Equal(t, 0, plan.LeaderChanges)
	assert.Empty(t, plan.Partitions)
}

func TestPlanMinimalMovesWhenAddingABroker(t *testing.T) {
	// 12 partitions RF 3 balanced over 3 brokers: each holds 12. Adding
	// broker 4 needs exactly 9 replicas moved (36/4 = 9 on each).
	cur := map[string]map[int32][]int32{"t": {}}
	for p := range int32(12) {
		cur["t"][p] = []int32{p%3 + 1, (p+1)%3 + 1, (p+2)%3 + 1}
	}
	brokers := []int32{1, 2, 3, 4}
	plan, err := Balance(Layout{Current: cur, Brokers: brokers})
	require.NoError(t, err)
	after := apply(cur, plan)
	assertValid(t, cur, after, brokers)
	r, l := spread(after, brokers)
	assert.Equal(t, map[int32]int{1: 9, 2: 9, 3: 9, 4: 9}, r)
	assertBalanced(t, l, "leaders")
	assert.Equal(t, 9, plan.Moves, "only the new broker's share moves")
	for _, pp := range plan.Partitions {
		assert.LessOrEqual(t, pp.Moves, 1, "%s moves more than one replica", pp)
	}
}

func TestPlanRemovingABroker(t *testing.T) {
	cur := map[string]map[int32][]int32{"t": {}}
	for p := range int32(8) {
		cur["t"][p] = []int32{p%4 + 1, (p+1)%4 + 1}
	}
	brokers := []int32{1, 2, 3}
	plan, err := Balance(Layout{Current: cur, Brokers: brokers})
	require.NoError(t, err)
	after := apply(cur, plan)
	assertValid(t, cur, after, brokers)
	r, l := spread(after, brokers)
	assertBalanced(t, r, "replicas")
	assertBalanced(t, l, "leaders")
	// Broker 4 held 4 replicas: those move, and 16/3 rounds so that
	// nothing else has to.
	assert.Equal(t, 4, plan.Moves)
	for _, a := range after["t"] {
		assert.NotContains(t, a, int32(4))
	}
}

func TestPlanRackAware(t *testing.T) {
	// Both replicas of every partition sit in rack a.
	cur := map[string]map[int32][]int32{"t": {0: {1, 2}, 1: {2, 1}, 2: {1, 2}, 3: {2, 1}}}
	brokers := []int32{1, 2, 3, 4}
	racks := map[int32]string{1: "a", 2: "a", 3: "b", 4: "b"}
	plan, err := Balance(Layout{Current: cur, Brokers: brokers, Racks: racks})
	require.NoError(t, err)
	after := apply(cur, plan)
	assertValid(t, cur, after, brokers)
	for p, a := range after["t"] {
		assert.NotEqual(t, racks[a[0]], racks[a[1]], "partition %d has both replicas in rack %s: %v", p, racks[a[0]], a)
	}
	r, l := spread(after, brokers)
	assertBalanced(t, r, "replicas")
	assertBalanced(t, l, "leaders")
	assert.Equal(t, 4, plan.Moves, "one replica per partition leaves rack a")
}

func TestPlanRackLimitWhenFewerRacksThanRF(t *testing.T) {
	cur := map[string]map[int32][]int32{"t": {0: {1, 2, 3}, 1: {1, 2, 3}}}
	brokers := []int32{1, 2, 3, 4}
	racks := map[int32]string{1: "a", 2: "a", 3: "a", 4: "b"}
	plan, err := Balance(Layout{Current: cur, Brokers: brokers, Racks: racks})
	require.NoError(t, err)
	after := apply(cur, plan)
	assertValid(t, cur, after, brokers)
	for p, a := range after["t"] {
		// 3 replicas over 2 racks: at most 2 in one rack.
		assert.Contains(t, a, int32(4), "partition %d must use rack b: %v", p, a)
	}
}

func TestPlanReplicationFactorAboveBrokers(t *testing.T) {
	cur := map[string]map[int32][]int32{"t": {0: {1, 2, 3}}}
	_, err := Balance(Layout{Current: cur, Brokers: []int32{1, 2}})
	require.Error(t, err)
	e := testerr.As(t, err)
	assert.Equal(t, "INVALID_REPLICATION_FACTOR", e.Code)
	assert.Equal(t, "t[0]", e.Resource)
	_, err = Balance(Layout{Current: cur})
	assert.Equal(t, vocab.CodeInvalidArgument, testerr.As(t, err).Code)
}

func TestPlanManyTopicsDeterministic(t *testing.T) {
	cur := map[string]map[int32][]int32{"a": skewed("a", 5, 1, 2, 3), "b": skewed("b", 7, 3, 1, 2), "c": skewed("c", 1, 2, 3, 1)}
	brokers := []int32{1, 2, 3, 4, 5}
	first, err := Balance(Layout{Current: cur, Brokers: brokers})
	require.NoError(t, err)
	second, err := Balance(Layout{Current: cur, Brokers: brokers})
	require.NoError(t, err)
	assert.Equal(t, first, second)
	after := apply(cur, first)
	assertValid(t, cur, after, brokers)
	r, l := spread(after, brokers)
	assertBalanced(t, r, "replicas")
	assertBalanced(t, l, "leaders")
	// 39 replicas over 5 brokers: brokers 4 and 5 take 7 or 8 each.
	assert.Equal(t, r[4]+r[5], first.Moves)
}

func TestPlanRandomClustersStayValidAndBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		nb := 3 + rng.IntN(6)
		var all []int32
		for b := range int32(nb) {
			all = append(all, b)
		}
		cur := map[string]map[int32][]int32{}
		rf := 1 + rng.IntN(3)
		for tp := range 1 + rng.IntN(3) {
			name := fmt.Sprintf("t%d", tp)
			cur[name] = map[int32][]int32{}
			for p := range int32(1 + rng.IntN(12)) {
				perm := rng.Perm(nb)[:rf]
				for _, b := range perm {
					cur[name][p] = append(cur[name][p], int32(b))
				}
			}
		}
		// Brokers to spread over: drop one, add one, or the same set.
		brokers := slices.Clone(all)
		switch i % 3 {
		case 0:
			brokers = append(brokers, int32(nb))
		case 1:
			brokers = brokers[1:]
		}
		plan, err := Balance(Layout{Current: cur, Brokers: brokers})
		if err != nil {
			require.Equal(t, "INVALID_REPLICATION_FACTOR", testerr.As(t, err).Code)
			continue
		}
		after := apply(cur, plan)
		assertValid(t, cur, after, brokers)
		r, l := spread(after, brokers)
		assertBalanced(t, r, fmt.Sprintf("case %d replicas", i))
		if rf > 1 {
			// (With one replica, a partition's leader is its replica.)
			assertBalanced(t, l, fmt.Sprintf("case %d leaders", i))
		}
		// A plan applied again is already balanced: nothing more moves.
		again, err := Balance(Layout{Current: after, Brokers: brokers})
		require.NoError(t, err)
		assert.Equal(t, 0, again.Moves, "case %d: replanning moves replicas", i)
	}
}
