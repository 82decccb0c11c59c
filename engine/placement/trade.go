package placement

import (
	"cmp"
	"slices"
	"sort"
)

// Choosing a trade between a full broker h and an empty one l. Moving x
// bytes lowers sum(used^2 / capacity) by k·x·(2·even − x), k > 0, where
// even is the amount that leaves both at the same usage (evener, computed
// exactly): the best move is the replica whose size is nearest to even,
// and any of size strictly between 0 and 2·even gains. Among replicas as
// near, the move that adds the fewest replica moves goes first, then the
// smaller replica (fewer bytes copied), then the first partition in topic
// order, so a plan does not depend on the order of any list.
//
// Each broker keeps the replicas balancing may move sorted by size
// (bySize, kept while balancing bytes), and the best move is found by
// walking outward from even, both ways, one size at a time, up to the
// first size with a replica that may go: a few steps, where reading the
// whole list took 6,000. Between racks a short cross list (index.go) is
// read whole instead.

// sizedSlot is a slot with its size beside it, so that searching a sorted
// list reads one array.
type sizedSlot struct {
	size int64
	slot int32
}

func bySizeOrder(a, b sizedSlot) int {
	if c := cmp.Compare(a.size, b.size); c != 0 {
		return c
	}
	return cmp.Compare(a.slot, b.slot)
}

// indexBySize sorts each broker's movable replicas by size, and keeps them
// so from then on (move).
func (st *state) indexBySize() {
	st.bySize = make([][]sizedSlot, len(st.ids))
	for b := range st.ids {
		for _, s := range st.on[b] {
			if st.bytesMovable(s) {
				st.bySize[b] = append(st.bySize[b], st.sized(s))
			}
		}
		slices.SortFunc(st.bySize[b], bySizeOrder)
	}
}

func (st *state) sized(s int32) sizedSlot { return sizedSlot{size: st.size(s), slot: s} }

// bytesMovable: slot s is not below min_partition_bytes (nor unmeasured,
// when there is a minimum).
func (st *state) bytesMovable(s int32) bool {
	pt := &st.parts[st.slotPart[s]]
	return st.minBytes <= 0 || pt.sized && pt.size >= st.minBytes
}

// resize moves slot s from u's sorted list (u < 0: none) to v's.
func (st *state) resize(s int32, u, v int) {
	if st.bySize == nil || !st.bytesMovable(s) {
		return
	}
	if u >= 0 {
		if i, found := slices.BinarySearchFunc(st.bySize[u], st.sized(s), bySizeOrder); found {
			st.bySize[u] = slices.Delete(st.bySize[u], i, i+1)
		}
	}
	i, _ := slices.BinarySearchFunc(st.bySize[v], st.sized(s), bySizeOrder)
	st.bySize[v] = slices.Insert(st.bySize[v], i, st.sized(s))
}

func (st *state) size(s int32) int64 { return st.parts[st.slotPart[s]].size }

// bestTrade is the best move from h to l or, when counts forbid one or
// none gains, the best swap; a move keeps both brokers' counts within
// [lo, hi].
func (st *state) bestTrade(h, l, lo, hi int) (trade, bool) {
	even := st.evenerOf(h, l)
	if !even.n.positive() {
		return trade{}, false
	}
	if st.count(l)+1 <= hi && st.count(h)-1 >= lo {
		if s := st.bestMove(h, l, even); s >= 0 {
			return trade{give: s, take: -1}, true
		}
	}
	return st.bestSwap(h, l, even)
}

// mayGo: slot s may move to v in a balancing move, the cheap rack test
// first.
func (st *state) mayGo(s int32, v int) bool { return st.mayCross(s, v) && st.movable(s, v) }

// bestMove is the replica of h best moved to l (-1: none gains), in the
// order of betterMove.
func (st *state) bestMove(h, l int, even evener) int32 {
	best := int32(-1)
	if cross := st.cross.lists[h]; st.rack[h] != st.rack[l] && shortList(len(cross), len(st.on[h])) {
		for _, s := range cross {
			if st.bytesMovable(s) && even.gains(st.size(s)) && st.betterMove(s, best, h, l, even) && st.movable(s, l) {
				best = s
			}
		}
		return best
	}
	list := st.bySize[h]
	right := sort.Search(len(list), func(i int) bool { return even.atLeast(list[i].size) })
	left := right - 1
	for best < 0 {
		var below, above []sizedSlot
		if left >= 0 && even.gains(list[left].size) {
			below = list[sizeStart(list, left) : left+1]
		}
		if right < len(list) && even.gains(list[right].size) && st.fits(l, list[right].size) {
			above = list[right:sizeEnd(list, right)]
		}
		var c int
		switch {
		case below == nil && above == nil:
			return -1
		case below == nil:
			c = 1
		case above == nil:
			c = -1
		default: // both sides as near: both read
			c = even.closer(below[0].size, above[0].size)
		}
		if c <= 0 {
			best = st.bestOf(below, best, h, l, even)
			left -= len(below)
		}
		if c >= 0 {
			best = st.bestOf(above, best, h, l, even)
			right += len(above)
		}
	}
	return best
}

// sizeStart and sizeEnd bound the run of list[i]'s size.
func sizeStart(list []sizedSlot, i int) int {
	return sort.Search(i, func(j int) bool { return list[j].size >= list[i].size })
}

func sizeEnd(list []sizedSlot, i int) int {
	return i + sort.Search(len(list)-i, func(j int) bool { return list[i+j].size > list[i].size })
}

// bestOf is the best of best and the replicas of h in group that may go
// to l.
func (st *state) bestOf(group []sizedSlot, best int32, h, l int, even evener) int32 {
	for _, e := range group {
		if st.betterMove(e.slot, best, h, l, even) && st.mayGo(e.slot, l) {
			best = e.slot
		}
	}
	return best
}

// betterMove: moving replica a of h to l beats moving b (-1: none): its
// size nearer to even; then the move that adds fewer replica moves (a
// replica that moved in during this plan, or goes back where it was) and
// a follower before a preferred leader (moveRank); then the smaller; then
// the first partition.
func (st *state) betterMove(a, b int32, h, l int, even evener) bool {
	if b < 0 {
		return true
	}
	if c := even.closer(st.size(a), st.size(b)); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(st.moveRank(a, h, l), st.moveRank(b, h, l)); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(st.size(a), st.size(b)); c != 0 {
		return c < 0
	}
	return a < b
}
