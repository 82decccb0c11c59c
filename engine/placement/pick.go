package placement

import (
	"cmp"
	"slices"
)

// pickReplica is the replica on broker u best moved to v: one that saves
// a move (u did not hold its partition before the plan, v did), else one
// that adds none, else a follower (its partition keeps its preferred
// leader), else a preferred leader's; among equals the first in u's list
// from where the last pick stopped, so successive picks take partitions
// of different topics rather than one topic's first partitions.
//
// That is what a scan of u's whole list from the cursor finds, read from
// the lists that can hold it (index.go): a move of rank 0 or 1 takes one
// of u's strays or u's replica of a partition v held (found through v's
// away list), both as short as the moves made so far; only when none of
// those may go is u's list scanned, and then the first follower that may
// go ends the scan. Between racks only u's cross list can hold one, read
// whole when it is short.
func (st *state) pickReplica(u, v int) (int32, bool) {
	n := len(st.on[u])
	if n == 0 || st.budget[u] == 0 || st.budget[v] == 0 {
		return -1, false
	}
	c := st.newSlotChoice(u, v, st.cursor[u]%n, false)
	c.lowRanks()
	if c.best < 0 {
		c.highRanks()
	}
	if c.best < 0 {
		return -1, false
	}
	st.cursor[u] = int(st.slotPos[c.best])
	return c.best, true
}

// pickFree is a replica on u that may go to v adding no move: the first
// in u's list.
func (st *state) pickFree(u, v int) (int32, bool) {
	if len(st.on[u]) == 0 {
		return -1, false
	}
	c := st.newSlotChoice(u, v, 0, true)
	c.lowRanks()
	return c.best, c.best >= 0
}

// slotChoice is the best slot on u to move to v seen so far: the lowest
// rank (moveRank), then the first from start in u's list.
type slotChoice struct {
	st       *state
	u, v     int
	start    int
	cross    bool // u and v are in different racks: only u's cross slots may go
	free     bool // any move of rank 0 or 1 will do, the first in the list (pickFree)
	best     int32
	rank, at int
}

func (st *state) newSlotChoice(u, v, start int, free bool) *slotChoice {
	return &slotChoice{st: st, u: u, v: v, start: start, cross: st.rack[u] != st.rack[v], free: free, best: -1}
}

// consider takes slot s, on u, if it beats the best so far and may go.
func (c *slotChoice) consider(s int32) {
	st := c.st
	if c.cross && !st.cross.has(s) {
		return
	}
	rank := st.moveRank(s, c.u, c.v)
	if c.free {
		if rank > 1 {
			return
		}
		rank = 0
	}
	n := len(st.on[c.u])
	at := (int(st.slotPos[s]) - c.start + n) % n
	if c.best >= 0 && (rank > c.rank || rank == c.rank && at >= c.at) {
		return
	}
	if st.movable(s, c.v) {
		c.best, c.rank, c.at = s, rank, at
	}
}

// lowRanks considers every slot of u whose move to v has rank 0 or 1: a
// stray of u (rank 0 when v held its partition, else 1), or u's replica of
// a partition v held and no longer holds (a replica of v's elsewhere now,
// in v's away list).
func (c *slotChoice) lowRanks() {
	st := c.st
	strays, cross := st.strays.lists[c.u], st.cross.lists[c.u]
	if c.cross && len(cross) < len(strays) {
		for _, s := range cross {
			if st.strays.has(s) {
				c.consider(s)
			}
		}
	} else {
		for _, s := range strays {
			c.consider(s)
		}
	}
	for _, a := range st.away.lists[c.v] {
		pt := &st.parts[st.slotPart[a]]
		for s := pt.first; s < pt.first+pt.rf; s++ {
			if st.slotAt[s] == int32(c.u) && !st.strays.has(s) {
				c.consider(s)
			}
		}
	}
}

// highRanks finds, when no move of rank 0 or 1 may be made, the first
// slot from start that may go: a follower ends the search (rank 2), a
// preferred leader's (rank 3) is kept in case none does. Between racks a
// short cross list is read whole instead.
func (c *slotChoice) highRanks() {
	st := c.st
	on := st.on[c.u]
	if cross := st.cross.lists[c.u]; c.cross && shortList(len(cross), len(on)) {
		for _, s := range cross {
			c.consider(s)
		}
		return
	}
	n := len(on)
	for i := range n {
		c.consider(on[(c.start+i)%n])
		if c.best >= 0 && c.rank <= 2 {
			return
		}
	}
}

// shortList: a sublist of k of a broker's n slots is cheaper read whole
// than found by a scan of the n that stops at its first fit (about n/k
// slots read for each fit needed).
func shortList(k, n int) bool { return k <= 64 || k*k <= n }

// moveRank orders the moves of slot s from u to v: 0 saves a move, 1 adds
// none, 2 adds one, 3 adds one and changes the preferred leader.
func (st *state) moveRank(s int32, u, v int) int {
	rank := 1
	if st.isNew(s, v) {
		rank++
	}
	if st.strays.has(s) { // s is on u: u did not hold its partition
		rank--
	}
	if rank == 2 && s == st.parts[st.slotPart[s]].first && st.slotOrig[s] == st.ids[u] {
		rank = 3
	}
	return rank
}

func (r replicaTokens) at(s int32) int              { return int(r.st.slotAt[s]) }
func (r replicaTokens) free(u, v int) (int32, bool) { return r.st.pickFree(u, v) }

// strays are u's strays in the order of u's list.
func (r replicaTokens) strays(u int) []int32 {
	out := slices.Clone(r.st.strays.lists[u])
	slices.SortFunc(out, func(a, b int32) int { return cmp.Compare(r.st.slotPos[a], r.st.slotPos[b]) })
	return out
}

func (r replicaTokens) homes(s int32) []int {
	var out []int
	for _, id := range r.st.parts[r.st.slotPart[s]].current {
		if v, ok := r.st.index[id]; ok {
			out = append(out, v)
		}
	}
	return out
}
