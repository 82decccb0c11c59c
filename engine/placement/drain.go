package placement

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Drain plans emptying the brokers drained (for a decommission), in two
// steps. First their leadership: every partition one of them is the
// preferred leader of is reordered so the drained brokers come last and an
// in-sync replica elsewhere (the one leading fewest) comes first, then a
// preferred election moves the leadership (Leadership, Elect); no data
// moves, so clients see the leaders go before any copying starts. Then
// their replicas: each goes to the least-loaded broker left (replicas, or
// disk usage by bytes, never above the ceiling) within the rack rule,
// nothing else moves (Partitions). With o.LeadersOnly only the first step
// is planned, as Partitions: a demote, for an incident.
//
// in.Brokers is every broker of the cluster; the drained ones may be
// among them.
func Drain(in Layout, drained []int32, o Options) (Plan, error) {
	if err := o.Check(true); err != nil {
		return Plan{}, err
	}
	gone := sortedUnique(drained)
	if len(gone) == 0 {
		return Plan{}, vocab.Errorf(vocab.CodeInvalidArgument, "", "no brokers to drain")
	}
	ids := slices.DeleteFunc(sortedUnique(in.Brokers), func(b int32) bool { return slices.Contains(gone, b) })
	if len(ids) == 0 {
		return Plan{}, vocab.Errorf(vocab.CodeInvalidArgument, "", "no broker would be left to take the replicas of %s", idList(gone))
	}
	if o.byBytes() && in.Sizes == nil {
		return Plan{}, vocab.Errorf(vocab.CodeInvalidArgument, "", "planning by bytes needs the partitions' sizes")
	}
	st, err := newState(in, ids, o)
	if err != nil {
		return Plan{}, err
	}
	isGone := func(b int32) bool { return slices.Contains(gone, b) }
	leadership, elect, stuck := st.leadershipOff(isGone)
	kind, final := "drain", [][]int32(nil)
	if o.LeadersOnly {
		kind, final, leadership = "demote", leadership, nil
	} else {
		if final, err = st.replicasOff(isGone, leadership, o.byBytes()); err != nil {
			return Plan{}, err
		}
	}
	plan := st.build(in, o, outcome{kind: kind, final: final, leadership: leadership, elect: elect})
	if len(stuck) > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("%d partition(s) led by %s have no in-sync replica elsewhere, so their leadership moves only with their data: %s",
			len(stuck), idList(gone), strings.Join(stuck, ", ")))
	}
	plan.Notes = append(plan.Notes, st.notes(o, plan)...)
	plan.Steps = drainSteps(plan, gone, kind)
	return plan, nil
}

// leadershipOff reorders the partitions a drained broker is the preferred
// leader of, and marks for election those and the ones a drained broker
// leads without being their preferred leader.
func (st *state) leadershipOff(isGone func(int32) bool) (reorder [][]int32, elect []bool, stuck []string) {
	reorder, elect = make([][]int32, len(st.parts)), make([]bool, len(st.parts))
	leads := map[int32]int{}
	for _, pt := range st.parts {
		leads[pt.leader]++
	}
	for p := range st.parts {
		pt := &st.parts[p]
		if !isGone(pt.current[0]) {
			elect[p] = isGone(pt.leader) && st.inSync(int32(p), pt.current[0])
			continue
		}
		next := int32(-1)
		for _, b := range pt.current {
			if !isGone(b) && st.inSync(int32(p), b) && (next < 0 || leads[b] < leads[next]) {
				next = b
			}
		}
		if next < 0 {
			stuck = append(stuck, vocab.PartitionKey(pt.topic, pt.num))
			continue
		}
		leads[pt.leader]--
		leads[next]++
		order := []int32{next}
		for _, b := range pt.current {
			if b != next && !isGone(b) {
				order = append(order, b)
			}
		}
		for _, b := range pt.current {
			if isGone(b) {
				order = append(order, b)
			}
		}
		reorder[p], elect[p] = order, true
	}
	return reorder, elect, stuck
}

// replicasOff places every replica on a drained broker elsewhere and
// returns each partition's final replicas: the first step's order (or the
// current one) without the drained brokers, then the new ones.
func (st *state) replicasOff(isGone func(int32) bool, leadership [][]int32, byBytes bool) ([][]int32, error) {
	var homeless []int32
	for s, b := range st.slotOrig {
		if isGone(b) {
			homeless = append(homeless, int32(s))
		}
	}
	if byBytes {
		slices.SortStableFunc(homeless, func(a, b int32) int {
			return -cmp.Compare(st.parts[st.slotPart[a]].size, st.parts[st.slotPart[b]].size)
		})
	}
	for _, s := range homeless {
		if err := st.placeOrFail(s, byBytes); err != nil {
			return nil, err
		}
	}
	final := make([][]int32, len(st.parts))
	for p := range st.parts {
		pt := &st.parts[p]
		if !slices.ContainsFunc(pt.current, isGone) {
			continue
		}
		order := pt.current
		if leadership[p] != nil {
			order = leadership[p]
		}
		target := slices.DeleteFunc(slices.Clone(order), isGone)
		for s := pt.first; s < pt.first+pt.rf; s++ {
			if isGone(st.slotOrig[s]) {
				target = append(target, st.ids[st.slotAt[s]])
			}
		}
		final[p] = target
	}
	return final, nil
}

func drainSteps(plan Plan, gone []int32, kind string) []string {
	who := idList(gone)
	var out []string
	reordered := plan.Leadership
	if kind == "demote" {
		reordered = plan.Partitions
	}
	if len(reordered) > 0 || len(plan.Elect) > 0 {
		out = append(out, fmt.Sprintf("move leadership off %s: reorder %d partition(s) so the drained brokers come last (no data moves), then elect the preferred leader of %d partition(s)",
			who, len(reordered), len(plan.Elect)))
	}
	if kind == "demote" {
		if len(out) == 0 {
			out = append(out, fmt.Sprintf("nothing to do: %s leads none of these partitions", who))
		}
		return out
	}
	if len(plan.Partitions) > 0 {
		out = append(out, fmt.Sprintf("move the replicas off %s: reassign %d partition(s), %s, within the rack rule", who, len(plan.Partitions), movesText(plan)))
	}
	calls := make([]string, len(gone))
	for i, b := range gone {
		calls[i] = fmt.Sprintf("unregister_broker(%d)", b)
	}
	out = append(out, fmt.Sprintf("%s then holds no replica of these topics; to decommission, shut it down and call %s",
		who, strings.Join(calls, ", ")))
	return out
}

// idList names brokers: "broker 3", "brokers 3, 4".
func idList(ids []int32) string {
	s := make([]string, len(ids))
	for i, b := range ids {
		s[i] = fmt.Sprint(b)
	}
	if len(ids) == 1 {
		return "broker " + s[0]
	}
	return "brokers " + strings.Join(s, ", ")
}
