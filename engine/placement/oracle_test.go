package placement

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The broker-graph planner against the exact min-cost-flow planner it
// replaced (flow_test.go) on random small layouts, with and without racks:
// they refuse the same layouts, the new one is never less balanced, and
// where both balance equally it moves at most two replicas more in a case
// and, over all cases, within 1% as many replicas.
func TestPlanAgainstExactPlanner(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	movesNew, movesExact, moreBalanced, equal := 0, 0, 0, 0
	for i := range 1000 {
		cur, brokers, racks := randomLayout(rng, i)
		got, errGot := Rebalance(Layout{Current: cur, Brokers: brokers, Racks: racks}, Options{})
		exact, errExact := flowBalance(Layout{Current: cur, Brokers: brokers, Racks: racks})
		require.Equal(t, errExact == nil, errGot == nil, "case %d: %v / %v", i, errGot, errExact)
		if errGot != nil {
			continue
		}
		after := apply(cur, got)
		assertValid(t, cur, after, brokers)
		rg, _ := spread(after, brokers)
		re, _ := spread(apply(cur, exact), brokers)
		require.LessOrEqual(t, countRange(rg), countRange(re), "case %d: less balanced than the exact planner", i)
		require.LessOrEqual(t, sumSquares(rg), sumSquares(re), "case %d: less balanced than the exact planner", i)
		if sumSquares(rg) < sumSquares(re) {
			moreBalanced++
			continue
		}
		equal++
		assert.LessOrEqual(t, got.Moves, exact.Moves+2, "case %d", i)
		movesNew += got.Moves
		movesExact += exact.Moves
	}
	t.Logf("%d cases balanced as the exact planner: %d moves against %d; %d more balanced", equal, movesNew, movesExact, moreBalanced)
	assert.LessOrEqual(t, float64(movesNew), 1.01*float64(movesExact))
}

// randomLayout is up to 10 brokers (racked in even cases), 1-3 topics of
// up to 15 partitions, and a broker added, removed or kept.
func randomLayout(rng *rand.Rand, i int) (map[string]map[int32][]int32, []int32, map[int32]string) {
	nb := 3 + rng.IntN(8)
	var all []int32
	for b := range int32(nb) {
		all = append(all, b)
	}
	racks := map[int32]string{}
	if i%2 == 0 {
		nr := 2 + rng.IntN(3)
		for _, b := range all {
			racks[b] = fmt.Sprint("r", rng.IntN(nr))
		}
	}
	cur := map[string]map[int32][]int32{}
	rf := 1 + rng.IntN(3)
	for tp := range 1 + rng.IntN(3) {
		name := fmt.Sprintf("t%d", tp)
		cur[name] = map[int32][]int32{}
		for p := range int32(1 + rng.IntN(15)) {
			for _, b := range rng.Perm(nb)[:rf] {
				cur[name][p] = append(cur[name][p], int32(b))
			}
		}
	}
	brokers := slices.Clone(all)
	switch i % 3 {
	case 0:
		brokers = append(brokers, int32(nb))
	case 1:
		brokers = brokers[1:]
	}
	return cur, brokers, racks
}

func countRange(m map[int32]int) int {
	lo, hi := 1<<30, -1
	for _, n := range m {
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}

func sumSquares(m map[int32]int) int {
	s := 0
	for _, n := range m {
		s += n * n
	}
	return s
}
