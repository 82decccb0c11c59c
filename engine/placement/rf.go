package placement

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// leadersOnly balances preferred leaders without moving data: each
// partition keeps its replicas, reordered so the first ones are spread
// evenly over the brokers of the set, a leader changing only where balance
// needs it, and only to an in-sync replica (a preferred election to any
// other fails). Elect lists every partition whose leader then changes,
// those already in order but led by another replica too.
func (st *state) leadersOnly(in Layout, o Options) Plan {
	targets := make([][]int32, len(st.parts))
	for p := range st.parts {
		targets[p] = st.parts[p].current
	}
	final := balanceLeaders(st, targets, st.inSync)
	elect := make([]bool, len(st.parts))
	stuck := 0
	for p := range st.parts {
		pt := &st.parts[p]
		elect[p] = final[p][0] != pt.leader && st.inSync(int32(p), final[p][0])
		if _, in := st.index[final[p][0]]; !in {
			stuck++
		}
	}
	plan := st.build(in, o, outcome{kind: "leaders", final: final, elect: elect})
	if stuck > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("%d partition(s) have no in-sync replica on the brokers given: their leader stays", stuck))
	}
	plan.Notes = append(plan.Notes, st.notes(o, plan)...)
	if len(plan.Partitions) > 0 {
		plan.Steps = append(plan.Steps, fmt.Sprintf("reorder the replicas of %d partition(s) (no data moves)", len(plan.Partitions)))
	}
	if len(plan.Elect) > 0 {
		plan.Steps = append(plan.Steps, fmt.Sprintf("elect the preferred leader of %d partition(s)", len(plan.Elect)))
	}
	if len(plan.Steps) == 0 {
		plan.Steps = append(plan.Steps, "nothing to do: the leaders are balanced")
	}
	return plan
}

// inSync: broker b is an in-sync replica of partition p (every replica is
// when the ISR is unknown).
func (st *state) inSync(p int32, b int32) bool {
	isr := st.parts[p].isr
	return isr == nil || slices.Contains(isr, b)
}

// replicationFactor raises or lowers every partition's replication factor
// to o.ReplicationFactor. A new replica goes to the least-loaded broker of
// the set (replica count, or disk usage by bytes, never above the
// ceiling), on a rack the partition does not use yet when there is one,
// and is added last (it is not the preferred leader). A lower factor
// removes replicas from racks holding two or more of the partition first,
// then from the most loaded brokers, never the leader, and the preferred
// leader last. Nothing else moves, and no leader changes.
func (st *state) replicationFactor(in Layout, o Options) (Plan, error) {
	rf := o.ReplicationFactor
	if rf > len(st.ids) {
		return Plan{}, &vocab.Error{Code: "INVALID_REPLICATION_FACTOR",
			Message: fmt.Sprintf("replication_factor %d is larger than the %d brokers given", rf, len(st.ids))}
	}
	count := make([]int, len(st.ids))
	for b := range st.ids {
		count[b] = st.count(b)
	}
	load := func(b int, extra int64) float64 {
		if o.byBytes() {
			return st.usageWith(b, extra)
		}
		return float64(count[b])
	}
	order := make([]int, len(st.parts))
	for p := range order {
		order[p] = p
	}
	if o.byBytes() { // the largest partitions find room first
		slices.SortStableFunc(order, func(a, b int) int { return -cmp.Compare(st.parts[a].size, st.parts[b].size) })
	}
	final := make([][]int32, len(st.parts))
	for _, p := range order {
		pt := &st.parts[p]
		target := slices.Clone(pt.current)
		for len(target) < rf {
			best, bestRank := -1, 2
			for v, id := range st.ids {
				if slices.Contains(target, id) || !st.fits(v, pt.size) {
					continue
				}
				rank := 0
				if st.rackUsed(in, target, id) {
					rank = 1
				}
				if best < 0 || rank < bestRank || rank == bestRank && load(v, pt.size) < load(best, pt.size) {
					best, bestRank = v, rank
				}
			}
			if best < 0 {
				return Plan{}, st.placeFailure(pt)
			}
			target = append(target, st.ids[best])
			count[best]++
			st.bytes[best] += pt.size
		}
		for len(target) > rf {
			drop := st.replicaToDrop(in, pt, target, load)
			target = slices.Delete(target, drop, drop+1)
		}
		for _, b := range pt.current {
			if !slices.Contains(target, b) {
				if v, ok := st.index[b]; ok {
					count[v]--
					st.bytes[v] -= pt.size
				}
			}
		}
		final[p] = target
	}
	plan := st.build(in, o, outcome{kind: "replication_factor", final: final, elect: make([]bool, len(st.parts))})
	plan.Notes = append(plan.Notes, st.notes(o, plan)...)
	added, removed := 0, 0
	for _, r := range plan.Partitions {
		added += r.Moves
		removed += len(r.Current) + r.Moves - len(r.Target)
	}
	switch {
	case added > 0:
		plan.Steps = append(plan.Steps, fmt.Sprintf("reassign %d partition(s) to replication factor %d: %s", len(plan.Partitions), rf, movesText(plan)))
	case removed > 0:
		plan.Steps = append(plan.Steps, fmt.Sprintf("reassign %d partition(s) to replication factor %d: %d replica(s) removed, no data copied", len(plan.Partitions), rf, removed))
	default:
		plan.Steps = append(plan.Steps, fmt.Sprintf("nothing to do: every partition has replication factor %d", rf))
	}
	return plan, nil
}

// rackOf is a broker's rack; a broker without one is its own.
func rackOf(in Layout, b int32) string {
	if r, ok := in.Racks[b]; ok && r != "" {
		return r
	}
	return fmt.Sprintf("\x00broker-%d", b)
}

func (st *state) rackUsed(in Layout, replicas []int32, b int32) bool {
	r := rackOf(in, b)
	return slices.ContainsFunc(replicas, func(x int32) bool { return rackOf(in, x) == r })
}

// replicaToDrop is the index in target of the replica a lower factor
// removes: not the leader; the preferred leader only when nothing else is
// left; else one sharing its rack with another replica; else the most
// loaded broker (outside the set counts as most loaded: it is leaving).
func (st *state) replicaToDrop(in Layout, pt *part, target []int32, load func(int, int64) float64) int {
	best, bestRank := -1, [3]float64{}
	for i, b := range target {
		if b == pt.leader {
			continue
		}
		shared := 0.0
		if st.rackUsed(in, slices.Delete(slices.Clone(target), i, i+1), b) {
			shared = 1
		}
		preferred := 0.0
		if b == pt.current[0] {
			preferred = 1
		}
		l := 1e300
		if v, ok := st.index[b]; ok {
			l = load(v, 0)
		}
		rank := [3]float64{-preferred, shared, l}
		if best < 0 || slices.Compare(rank[:], bestRank[:]) > 0 {
			best, bestRank = i, rank
		}
	}
	if best < 0 { // only the leader is left to remove: a factor below 1 is refused before
		best = len(target) - 1
	}
	return best
}
