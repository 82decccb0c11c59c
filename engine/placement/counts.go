package placement

import (
	"cmp"
	"slices"
)

// tokens are what balanceCounts moves between brokers: replicas, or
// leaderships.
type tokens interface {
	count(b int) int
	// pick returns the token on broker u best moved to broker v (the one
	// that adds the fewest moves), if any may go.
	pick(u, v int) (int32, bool)
	// valid: token t may still go to v (the path it was picked for moved
	// other tokens first).
	valid(t int32, v int) bool
	at(t int32) int // the broker holding t (-1: none of the set)
	move(t int32, v int)
	// undo puts t back on u, as if it had never left.
	undo(t int32, u int)
}

// balanceCounts evens out the tokens per broker. While a broker holds two
// or more tokens than another and a path of allowed moves leads from the
// first to the second, a token moves along each hop of it; the first hop
// tried goes straight from the fullest broker to the emptiest, which is
// almost always allowed. Each path lowers the sum of the squared counts,
// so this ends, and it ends balanced (no broker two above another) unless
// the rules forbid every path, then as balanced as paths allow: the
// optimality test of a min-cost flow with convex costs, run on a graph of
// brokers instead of one of partitions, so 100,000 partitions cost no more
// than their moves.
func balanceCounts(n int, ts tokens) {
	if n < 2 {
		return
	}
	mt := &memoTokens{tokens: ts, version: make([]int, n), failed: map[[2]int][2]int{}}
	order := make([]int, n)
	stuck := make([]bool, n) // no path from it last time; asked again at the end
	for {
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ts.count(b), ts.count(a)) })
		if ts.count(order[0])-ts.count(order[n-1]) <= 1 {
			return
		}
		moved, skipped := false, false
		for _, u := range order {
			if stuck[u] {
				skipped = true
				continue
			}
			path := findPath(u, order, mt)
			if path != nil && applyPath(u, path, mt) {
				for _, h := range path {
					stuck[h.to] = false
				}
				moved = true
				break
			}
			stuck[u] = true
		}
		if !moved {
			if !skipped {
				return
			}
			// One more look from every broker, forgetting what failed.
			clear(stuck)
			clear(mt.failed)
		}
	}
}

// memoTokens remembers which brokers had no token for which, until either
// changes: a broker whose replicas cannot go anywhere (its rack is full of
// every partition it holds) is otherwise scanned whole on every path
// search. A move elsewhere can open a way the memo still says is shut;
// balanceCounts forgets the memo before giving up, so nothing is missed.
type memoTokens struct {
	tokens
	version []int
	failed  map[[2]int][2]int // (from, to) -> the versions it failed at
}

func (m *memoTokens) pick(u, v int) (int32, bool) {
	if at, ok := m.failed[[2]int{u, v}]; ok && at == [2]int{m.version[u], m.version[v]} {
		return -1, false
	}
	t, ok := m.tokens.pick(u, v)
	if !ok {
		m.failed[[2]int{u, v}] = [2]int{m.version[u], m.version[v]}
	}
	return t, ok
}

// near passes on the hint of the tokens under the memo (same rack), if any.
func (m *memoTokens) near(u, v int) bool {
	if n, ok := m.tokens.(interface{ near(u, v int) bool }); ok {
		return n.near(u, v)
	}
	return true
}

// move and undo change both ends: the broker a token leaves may now take
// one it refused (it no longer holds that partition).
func (m *memoTokens) move(t int32, v int) {
	m.touch(m.at(t), v)
	m.tokens.move(t, v)
}

func (m *memoTokens) undo(t int32, u int) {
	m.touch(m.at(t), u)
	m.tokens.undo(t, u)
}

func (m *memoTokens) touch(from, to int) {
	if from >= 0 {
		m.version[from]++
	}
	m.version[to]++
}

type hop struct {
	tok int32
	to  int
}

// findPath searches, breadth first, for the shortest path of moves from u
// to a broker holding at least two tokens fewer; order lists the brokers
// fullest first, so each broker's emptiest neighbours are tried first.
func findPath(u int, order []int, ts tokens) []hop {
	want := ts.count(u) - 2
	type from struct {
		at  int
		tok int32
	}
	parent := map[int]from{u: {at: -1}}
	queue := []int{u}
	near, _ := ts.(interface{ near(u, v int) bool })
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		// Brokers of w's own rack first: a replica can always change
		// brokers within its rack, and across racks seldom can (the
		// partition has one in every rack already), so this finds the
		// move without scanning w's replicas for every other rack.
		for pass := range 2 {
			for i := len(order) - 1; i >= 0; i-- {
				x := order[i]
				if _, seen := parent[x]; seen || near != nil && near.near(w, x) != (pass == 0) {
					continue
				}
				tok, ok := ts.pick(w, x)
				if !ok {
					continue
				}
				parent[x] = from{at: w, tok: tok}
				if ts.count(x) <= want {
					var path []hop
					for at := x; at != u; at = parent[at].at {
						path = append(path, hop{tok: parent[at].tok, to: at})
					}
					slices.Reverse(path)
					return path
				}
				queue = append(queue, x)
			}
			if near == nil {
				break
			}
		}
	}
	return nil
}

// applyPath makes the path's moves from u on, checking each before it is
// made; when one is no longer allowed, the ones made are undone.
func applyPath(u int, path []hop, ts tokens) bool {
	for i, h := range path {
		if !ts.valid(h.tok, h.to) {
			for j := i - 1; j >= 0; j-- {
				back := u
				if j > 0 {
					back = path[j-1].to
				}
				ts.undo(path[j].tok, back)
			}
			return false
		}
		ts.move(h.tok, h.to)
	}
	return true
}

// replicaTokens are the state's replicas, for balancing replica counts.
type replicaTokens struct{ st *state }

func (r replicaTokens) near(u, v int) bool          { return r.st.rack[u] == r.st.rack[v] }
func (r replicaTokens) count(b int) int             { return len(r.st.on[b]) }
func (r replicaTokens) pick(u, v int) (int32, bool) { return r.st.pickReplica(u, v) }
func (r replicaTokens) valid(s int32, v int) bool   { return r.st.movable(s, v) }
func (r replicaTokens) move(s int32, v int)         { r.st.move(s, v) }
func (r replicaTokens) undo(s int32, u int) {
	v := r.st.slotAt[s]
	r.st.move(s, u)
	for _, b := range []int{u, int(v)} {
		if r.st.budget[b] >= 0 {
			r.st.budget[b] += 2 // both ends spent once going and once coming back
		}
	}
}

// place puts slot s, which must move, on the best broker for it: one whose
// rack holds no replica of its partition yet, else one within the rack
// limit, else (only when breakRacks) any; then the least loaded (replicas,
// or disk usage after taking it when planning by bytes), never above the
// ceiling; ties go to the lower id. False when no broker can take it.
func (st *state) place(s int32, byBytes, breakRacks bool) bool {
	p := st.slotPart[s]
	pt := &st.parts[p]
	best, bestRank := -1, 3
	var bestLoad float64
	for v := range st.ids {
		if st.holds(p, v) || !st.fits(v, pt.size) {
			continue
		}
		rank := 0
		if in := st.inRack(p, st.rack[v], s); in >= st.maxPerRack(pt.rf) {
			rank = 2
		} else if in > 0 {
			rank = 1
		}
		if rank == 2 && !breakRacks {
			continue
		}
		load := float64(st.count(v))
		if byBytes {
			load = st.usageWith(v, pt.size)
		}
		if best < 0 || rank < bestRank || (rank == bestRank && load < bestLoad) {
			best, bestRank, bestLoad = v, rank, load
		}
	}
	if best < 0 {
		return false
	}
	st.move(s, best)
	return true
}

// usageWith is broker b's usage once it takes extra bytes.
func (st *state) usageWith(b int, extra int64) float64 {
	if st.capsKnown {
		return float64(st.bytes[b]+extra) / float64(st.cap[b])
	}
	return float64(st.bytes[b] + extra)
}

// savers are tokens that know which ones moved, for save.
type saver interface {
	tokens
	strays(u int) []int32        // tokens on u that were elsewhere before the plan
	homes(t int32) []int         // brokers where t was: moving it there saves a move
	free(u, v int) (int32, bool) // a token on u that may go to v at no extra move
}

// save undoes moves that balancing made in vain: a token moved onto u
// goes back where it was (v), and when that leaves v fuller than u was, v
// hands a token on (to u, or to a broker at least one below u, directly or
// through a third broker) at no extra move. Each such exchange saves a
// move and leaves the counts no less balanced. Balancing goes the shortest
// way (fewest hops), and after forced moves (a replica off a broker that
// leaves, off a crowded rack) the shortest way is not always the cheapest.
func save(n int, sv saver) {
	for again := true; again; {
		again = false
		for u := range n {
			for _, t := range sv.strays(u) {
				if sv.at(t) == u && sendHome(n, sv, t, u) {
					again = true
				}
			}
		}
	}
}

// sendHome moves token t from u home, with the hand-on save describes, if
// one is possible.
func sendHome(n int, sv saver, t int32, u int) bool {
	was := sv.count(u)
	ends := func(w int) bool { return w == u || sv.count(w)+1 <= was }
	for _, v := range sv.homes(t) {
		if !sv.valid(t, v) {
			continue
		}
		if sv.count(v)+1 <= was {
			sv.move(t, v)
			return true
		}
		sv.move(t, v)
		for w := range n {
			if w == v {
				continue
			}
			x, ok := sv.free(v, w)
			if !ok {
				continue
			}
			sv.move(x, w)
			if ends(w) {
				return true
			}
			for z := range n {
				if z == w || z == v || !ends(z) {
					continue
				}
				if y, ok := sv.free(w, z); ok {
					sv.move(y, z)
					return true
				}
			}
			sv.undo(x, v)
		}
		sv.undo(t, u)
	}
	return false
}
