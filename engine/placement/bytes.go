package placement

import (
	"cmp"
	"math"
	"slices"
)

// Balancing by bytes. Each broker's load is its disk usage (used bytes
// over capacity) when every broker's capacity is known, else the bytes of
// the planned replicas on it. The planner lowers the capacity-weighted sum
// of squared usages, sum(used^2 / capacity), whose minimum for the bytes
// at hand is every broker at the same usage: it moves one replica, or
// swaps two, between the fullest broker and the emptiest one that can
// trade, choosing the trade that lowers the sum most (the replica whose
// size is nearest to the bytes that would even the two out: topicmappr's
// and cruise-control's largest-fitting-first, without overshooting; among
// trades as good, the one adding fewer replica moves). Each broker's
// replicas are kept sorted by size meanwhile, so a trade reads a few of
// them (trade.go, swap.go).
//
// Counts are balanced first, as by count (the fewest moves, rack rules
// kept), so that bytes are then evened out with replica counts in a band.
// It stops when every broker is within bytesTolerance of the mean (what
// cruise-control's disk balance threshold calls balanced), when no trade
// lowers the sum, or when the limits leave none: a broker never goes above
// the ceiling, partitions below MinPartitionBytes stay put, a broker joins
// or leaves at most PartitionLimit moves, and replica counts stay within
// countSlack of the even share, so that balancing bytes does not unbalance
// counts (a swap keeps both counts).

// bytesTolerance: a broker within 10% of the mean load is balanced.
const bytesTolerance = 0.10

// countSlack is how far from the even replica count (at least one replica
// either way) a bytes move may take a broker.
func countSlack(avg float64) int { return max(1, int(math.Ceil(avg*0.10))) }

type trade struct {
	give, take int32 // give goes from the full broker to the empty one; take (or -1) comes back
}

func (st *state) balanceBytes() {
	n := len(st.ids)
	if n < 2 {
		return
	}
	slots := 0
	for b := range n {
		slots += st.count(b)
	}
	mean := st.meanUsage()
	avg := float64(slots) / float64(n)
	lo, hi := int(math.Floor(avg))-countSlack(avg), int(math.Ceil(avg))+countSlack(avg)
	st.indexBySize()
	defer func() { st.bySize = nil }()
	order := make([]int, n)
	failed := map[[2]int][2]int{} // (full, empty) -> the versions it failed at
	version := make([]int, n)
	for range 4 * max(slots, 1) {
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(st.usage(b), st.usage(a)) })
		if st.bytesBalanced() {
			return
		}
		done := false
		for _, h := range order {
			if st.usage(h) <= mean {
				break
			}
			for i := n - 1; i >= 0 && !done; i-- {
				l := order[i]
				if st.usage(l) >= mean {
					break
				}
				if v, ok := failed[[2]int{h, l}]; ok && v == [2]int{version[h], version[l]} {
					continue
				}
				t, ok := st.bestTrade(h, l, lo, hi)
				if !ok {
					failed[[2]int{h, l}] = [2]int{version[h], version[l]}
					continue
				}
				st.move(t.give, l)
				if t.take >= 0 {
					st.move(t.take, h)
				}
				version[h]++
				version[l]++
				done = true
			}
			if done {
				break
			}
		}
		if !done {
			return
		}
	}
}

// meanUsage is the load every broker would have, balanced.
func (st *state) meanUsage() float64 {
	total, caps := int64(0), int64(0)
	for b := range st.ids {
		total += st.bytes[b]
		caps += st.cap[b]
	}
	if st.capsKnown {
		return float64(total) / float64(caps)
	}
	return float64(total) / float64(len(st.ids))
}

// bytesBalanced: every broker's load is within bytesTolerance of the mean.
func (st *state) bytesBalanced() bool {
	mean := st.meanUsage()
	for b := range st.ids {
		if u := st.usage(b); u > mean*(1+bytesTolerance) || u < mean*(1-bytesTolerance) {
			return false
		}
	}
	return true
}

// spread is the widest gap between two brokers' loads (usage, or bytes
// when capacities are unknown).
func (st *state) spread() float64 {
	if len(st.ids) == 0 {
		return 0
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for b := range st.ids {
		lo, hi = min(lo, st.usage(b)), max(hi, st.usage(b))
	}
	return hi - lo
}
