package placement

import (
	"cmp"
	"slices"
)

// leaderTokens are the partitions' preferred leaders (first replicas) over
// the brokers of the set, for balancing leader counts: a leadership moves
// between two replicas of its partition, so no data moves with it.
type leaderTokens struct {
	ids      []int32
	index    map[int32]int
	targets  [][]int32 // partition -> its replicas as planned
	pref     []int32   // partition -> its preferred leader now
	lead     []int32   // partition -> the broker index leading it; -1: none in the set
	led      [][]int32 // broker index -> the partitions it leads
	pos      []int32   // partition -> its place in led[lead]
	changed  idLists   // broker index -> partitions it leads that it did not
	share    []int32   // u*n+v -> partitions u leads that v holds a replica of
	cursor   []int
	eligible func(p int32, b int32) bool // broker b may lead partition p
	forced   int                         // partitions that could not keep their preferred leader
}

// newLeaderTokens starts each partition with its preferred leader where
// that broker is in the set, keeps a replica and may lead it; the others
// with the eligible replica leading fewest so far.
func newLeaderTokens(ids []int32, index map[int32]int, pref []int32, targets [][]int32, eligible func(p int32, b int32) bool) *leaderTokens {
	n := len(ids)
	lt := &leaderTokens{ids: ids, index: index, targets: targets, pref: pref, lead: make([]int32, len(targets)),
		led: make([][]int32, n), pos: make([]int32, len(targets)), changed: newIDLists(n, len(targets)),
		share: make([]int32, n*n), cursor: make([]int, n), eligible: eligible}
	for p := range targets {
		lt.lead[p] = -1
		pi := int32(p)
		if b, ok := index[pref[p]]; ok && slices.Contains(targets[p], pref[p]) && eligible(pi, pref[p]) {
			lt.put(pi, b)
			continue
		}
		lt.forced++
		best := -1
		for _, id := range targets[p] {
			if b, ok := index[id]; ok && eligible(pi, id) && (best < 0 || len(lt.led[b]) < len(lt.led[best])) {
				best = b
			}
		}
		if best >= 0 {
			lt.put(pi, best)
		}
	}
	return lt
}

func (lt *leaderTokens) put(p int32, b int) {
	lt.lead[p], lt.pos[p] = int32(b), int32(len(lt.led[b]))
	lt.led[b] = append(lt.led[b], p)
	if lt.pref[p] != lt.ids[b] {
		lt.changed.add(b, p)
	}
	lt.addShare(p, b, 1)
}

func (lt *leaderTokens) take(p int32) {
	b := lt.lead[p]
	list, i := lt.led[b], lt.pos[p]
	last := list[len(list)-1]
	list[i], lt.pos[last] = last, i
	lt.led[b] = list[:len(list)-1]
	if lt.changed.has(p) {
		lt.changed.drop(int(b), p)
	}
	lt.addShare(p, int(b), -1)
	lt.lead[p] = -1
}

// addShare counts partition p, led by b, for each other broker of the set
// holding a replica of it: a pair of brokers sharing none has no
// leadership to trade, which pick then knows without reading b's list.
func (lt *leaderTokens) addShare(p int32, b int, d int32) {
	for _, id := range lt.targets[p] {
		if x, ok := lt.index[id]; ok && x != b {
			lt.share[b*len(lt.ids)+x] += d
		}
	}
}

func (lt *leaderTokens) count(b int) int { return len(lt.led[b]) }

func (lt *leaderTokens) valid(p int32, v int) bool {
	return lt.lead[p] >= 0 && int(lt.lead[p]) != v && slices.Contains(lt.targets[p], lt.ids[v]) && lt.eligible(p, lt.ids[v])
}

func (lt *leaderTokens) move(p int32, v int) { lt.take(p); lt.put(p, v) }
func (lt *leaderTokens) undo(p int32, u int) { lt.move(p, u) }

// pick is the partition led by u best led by v instead: one whose
// preferred leader v was (a change saved), else one already changed, else
// any; among equals the first in u's list from where the last pick
// stopped. The first two kinds are among the partitions u leads that it
// is not the preferred leader of (changed), read whole; only when none of
// those may go is u's list scanned, up to the first that may.
func (lt *leaderTokens) pick(u, v int) (int32, bool) {
	list := lt.led[u]
	n := len(list)
	if n == 0 || lt.share[u*len(lt.ids)+v] == 0 {
		return -1, false
	}
	best, bestAt, bestRank := int32(-1), 0, 3
	start := lt.cursor[u] % n
	for _, p := range lt.changed.lists[u] {
		rank := 1
		if lt.pref[p] == lt.ids[v] {
			rank = 0
		}
		at := (int(lt.pos[p]) - start + n) % n
		if rank > bestRank || rank == bestRank && at >= bestAt || !lt.valid(p, v) {
			continue
		}
		best, bestAt, bestRank = p, at, rank
	}
	for i := 0; best < 0 && i < n; i++ {
		if p := list[(start+i)%n]; !lt.changed.has(p) && lt.valid(p, v) {
			best = p
		}
	}
	if best < 0 {
		return -1, false
	}
	lt.cursor[u] = int(lt.pos[best])
	return best, true
}

func (lt *leaderTokens) at(p int32) int { return int(lt.lead[p]) }

// strays are the partitions u leads that it is not the preferred leader
// of, in the order of u's list.
func (lt *leaderTokens) strays(u int) []int32 {
	out := slices.Clone(lt.changed.lists[u])
	slices.SortFunc(out, func(a, b int32) int { return cmp.Compare(lt.pos[a], lt.pos[b]) })
	return out
}

func (lt *leaderTokens) homes(p int32) []int {
	if v, ok := lt.index[lt.pref[p]]; ok {
		return []int{v}
	}
	return nil
}

// free is a partition led by u that v may lead at no extra change: the
// first in u's list among those u is not the preferred leader of.
func (lt *leaderTokens) free(u, v int) (int32, bool) {
	best := int32(-1)
	for _, p := range lt.changed.lists[u] {
		if (best < 0 || lt.pos[p] < lt.pos[best]) && lt.valid(p, v) {
			best = p
		}
	}
	return best, best >= 0
}

// ordered is partition p's target with its chosen leader first and the
// others in their current order (new replicas after, in planned order), so
// a partition that keeps its replicas and leader is unchanged.
func (lt *leaderTokens) ordered(p int, current []int32) []int32 {
	target := lt.targets[p]
	if lt.lead[p] < 0 {
		return slices.Clone(target)
	}
	l := lt.ids[lt.lead[p]]
	return leaderFirst(target, current, l)
}

func leaderFirst(target, current []int32, leader int32) []int32 {
	rest := slices.DeleteFunc(slices.Clone(target), func(b int32) bool { return b == leader })
	pos := func(b int32) int {
		if i := slices.Index(current, b); i >= 0 {
			return i
		}
		return len(current) + slices.Index(target, b)
	}
	slices.SortStableFunc(rest, func(a, b int32) int { return cmp.Compare(pos(a), pos(b)) })
	return append([]int32{leader}, rest...)
}

// balanceLeaders spreads the preferred leaders of the planned targets
// evenly over the brokers of the set and returns each partition's target
// in leader order.
func balanceLeaders(st *state, targets [][]int32, eligible func(p int32, b int32) bool) [][]int32 {
	pref := make([]int32, len(st.parts))
	for p := range st.parts {
		pref[p] = st.parts[p].current[0]
	}
	lt := newLeaderTokens(st.ids, st.index, pref, targets, eligible)
	balanceCounts(len(st.ids), lt)
	if lt.forced > 0 {
		save(len(st.ids), lt)
	}
	out := make([][]int32, len(targets))
	for p := range targets {
		out[p] = lt.ordered(p, st.parts[p].current)
	}
	return out
}
