package placement

import (
	"math"
	"slices"
	"sort"
)

// A swap trades a replica s of the full broker h for a smaller one q of
// the empty broker l: counts stay, and t = size(s) - size(q) moves. The
// best swap has t nearest to even; then the fewest replica moves added
// (the sum of both moves' moveRank); then the smaller t; then the first
// partitions. For each replica of h, the best q is found by binary
// search in l's sorted list, then read outward to the nearest size with a
// replica that may go to h (each replica asked once a swap): about
// |h|·log|l| steps.

type swapChoice struct {
	give, take int32
	t          int64
	rank       int
}

// better: swap a beats b (b.give < 0: none).
func (a swapChoice) better(b swapChoice, even evener) bool {
	if b.give < 0 {
		return true
	}
	if c := even.closer(a.t, b.t); c != 0 {
		return c < 0
	}
	switch {
	case a.rank != b.rank:
		return a.rank < b.rank
	case a.t != b.t:
		return a.t < b.t
	case a.give != b.give:
		return a.give < b.give
	}
	return a.take < b.take
}

func (st *state) bestSwap(h, l int, even evener) (trade, bool) {
	if st.budget[h] >= 0 && st.budget[h] < 2 || st.budget[l] >= 0 && st.budget[l] < 2 {
		return trade{}, false
	}
	back := st.newBacks(h, l)
	if len(back.list) == 0 {
		return trade{}, false
	}
	best := swapChoice{give: -1, take: -1}
	gives := st.sortedGives(h, l)
	for i := len(gives) - 1; i >= 0; i-- { // the largest first
		e := gives[i]
		// No smaller replica of h moves more than e's size less l's
		// smallest: when that is short of even, and farther than the
		// best, none of them beats it (the common case far from
		// balance, where the best swap moves as much as it can).
		if most := e.size - back.list[0].size; best.give >= 0 && even.atMost(most) && even.closer(most, best.t) > 0 {
			break
		}
		c, ok := back.nearest(e, even)
		if !ok {
			continue
		}
		ranked := false // the rank decides only between swaps as near
		if best.give >= 0 {
			if d := even.closer(c.t, best.t); d > 0 {
				continue
			} else if d == 0 {
				c.rank, ranked = c.rank+st.moveRank(e.slot, h, l), true
				if !c.better(best, even) {
					continue
				}
			}
		}
		// Only the difference of the sizes lands on l.
		if !st.mayCross(e.slot, l) || !st.movableWith(e.slot, l, 0) {
			continue
		}
		if !ranked {
			c.rank += st.moveRank(e.slot, h, l)
		}
		best = c
	}
	return trade{give: best.give, take: best.take}, best.give >= 0
}

// sortedGives are h's replicas that may go to l as far as sizes and racks
// cheaply tell, sorted by size: between racks a short cross list, else
// all it may move.
func (st *state) sortedGives(h, l int) []sizedSlot {
	cross := st.cross.lists[h]
	if st.rack[h] == st.rack[l] || !shortList(len(cross), len(st.on[h])) {
		return st.bySize[h]
	}
	out := make([]sizedSlot, 0, len(cross))
	for _, s := range cross {
		if st.bytesMovable(s) {
			out = append(out, st.sized(s))
		}
	}
	slices.SortFunc(out, bySizeOrder)
	return out
}

// backs are l's replicas that may come back to h, asked lazily: each
// replica whether it may go (once), each size which of its replicas is
// best (lowest moveRank, then slot; once).
type backs struct {
	st         *state
	h, l       int
	list       []sizedSlot
	may        []int8  // 0: not asked; 1: may go to h; 2: may not
	best, rank []int32 // at a size's first index: its best (-2: not asked, -1: none)
	roomL      int64   // the most bytes l can take (fits)
	roomH      int64   // the largest replica h can take
}

func (st *state) newBacks(h, l int) *backs {
	b := &backs{st: st, h: h, l: l, list: st.sortedGives(l, h), roomL: st.room(l), roomH: st.room(h)}
	b.may, b.best, b.rank = make([]int8, len(b.list)), make([]int32, len(b.list)), make([]int32, len(b.list))
	for i := range b.best {
		b.best[i] = -2
	}
	return b
}

// sizeBest is the best replica of the size run list[from:to] that may go
// to h.
func (b *backs) sizeBest(from, to int) (int32, int32) {
	if b.best[from] == -2 {
		b.best[from] = -1
		for i := from; i < to; i++ {
			if b.may[i] == 0 {
				b.may[i] = 2
				if b.st.mayGo(b.list[i].slot, b.h) {
					b.may[i] = 1
				}
			}
			if b.may[i] != 1 {
				continue
			}
			// The run is in slot order: the first of a rank wins.
			if r := int32(b.st.moveRank(b.list[i].slot, b.l, b.h)); b.best[from] < 0 || r < b.rank[from] {
				b.best[from], b.rank[from] = b.list[i].slot, r
			}
		}
	}
	return b.best[from], b.rank[from]
}

// nearest is the best replica to swap for give: t = size(give) - size(q)
// nearest to even, gaining and within l's room; then the lower rank; then
// the smaller t. Its rank is q's alone.
func (b *backs) nearest(give sizedSlot, even evener) (swapChoice, bool) {
	x, list := give.size, b.list
	floor := int64(math.MinInt64) // smaller replicas would land more than room on l
	if b.roomL != math.MaxInt64 {
		floor = x - b.roomL
	}
	at := sort.Search(len(list), func(i int) bool { return list[i].size >= floor && even.atMost(x-list[i].size) })
	best := swapChoice{give: -1, take: -1}
	try := func(from, to int) bool {
		q, r := b.sizeBest(from, to)
		if q < 0 {
			return false
		}
		if c := (swapChoice{give: give.slot, take: q, t: x - list[from].size, rank: int(r)}); c.better(best, even) {
			best = c
		}
		return true
	}
	// t at most even: larger replicas of l, while t > 0 and h can take them.
	for i := at; i < len(list) && list[i].size < x && list[i].size <= b.roomH; {
		end := sizeEnd(list, i)
		if try(i, end) {
			break
		}
		i = end
	}
	// t above even: smaller ones, while t gains and l can take it.
	for i := at - 1; i >= 0 && list[i].size >= floor && even.gains(x-list[i].size); {
		start := sizeStart(list, i)
		if try(start, i+1) {
			break
		}
		i = start - 1
	}
	return best, best.give >= 0
}

// room is the most bytes broker v can take and stay at or under the
// ceiling (fits), unbounded when capacities are unknown.
func (st *state) room(v int) int64 {
	if !st.capsKnown {
		return math.MaxInt64
	}
	r := max(int64(st.ceiling*float64(st.cap[v]))-st.bytes[v], 0)
	for r > 0 && !st.fits(v, r) {
		r--
	}
	for st.fits(v, r+1) {
		r++
	}
	return r
}
