package placement

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// drainLayout: four brokers in two racks (1, 2 in a; 3, 4 in b), twelve RF 2
// partitions with one replica in each rack, broker 1 the preferred leader
// of three of them.
func drainLayout() Layout {
	cur := map[string]map[int32][]int32{"t": {}}
	pairs := [][]int32{{1, 3}, {3, 2}, {2, 4}, {4, 1}}
	for p := range int32(12) {
		cur["t"][p] = slices.Clone(pairs[p%4])
	}
	return Layout{Current: cur, Brokers: []int32{1, 2, 3, 4}, Racks: map[int32]string{1: "a", 2: "a", 3: "b", 4: "b"}}
}

func TestDrainMovesLeadershipThenReplicasWithinRacks(t *testing.T) {
	in := drainLayout()
	plan, err := Drain(in, []int32{1}, Options{})
	require.NoError(t, err)
	assert.Equal(t, "drain", plan.Kind)

	// Step 1: the partitions broker 1 prefers to lead are reordered, broker
	// 1 last, no replica added or removed, and elected.
	require.Len(t, plan.Leadership, 3)
	for _, r := range plan.Leadership {
		assert.Equal(t, []int32{3, 1}, r.Target, "%s", r)
		assert.Zero(t, r.Moves)
	}
	assert.Len(t, plan.Elect, 3)

	// Step 2: every replica of broker 1 goes to broker 2, its rack's only
	// other broker (the rack rule), and nothing else moves.
	after := apply(in.Current, plan)
	r, l := spread(after, []int32{2, 3, 4})
	assert.Zero(t, r[1])
	assert.Zero(t, l[1])
	assert.Equal(t, 12, r[2])
	assert.Equal(t, 6, plan.Moves)
	assert.Len(t, plan.Partitions, 6)
	for tp, ps := range after {
		for p, rs := range ps {
			assert.NotEqual(t, in.Racks[rs[0]], in.Racks[rs[1]], "%s[%d] %v keeps one replica per rack", tp, p, rs)
		}
	}
	require.Len(t, plan.Steps, 3)
	assert.Contains(t, plan.Steps[2], "unregister_broker(1)")
	for _, b := range plan.Brokers {
		if b.Broker == 1 {
			assert.Equal(t, 6, b.ReplicasBefore)
			assert.Zero(t, b.ReplicasAfter)
			assert.Zero(t, b.LeadersAfter)
		}
	}
}

func TestDrainLeadershipOnlyToInSyncReplicas(t *testing.T) {
	in := drainLayout()
	// t[0] = [1 3] with 3 out of sync; t[1] = [3 2] but led by 2 now.
	in.ISR = map[string]map[int32][]int32{"t": {0: {1}}}
	in.Leaders = map[string]map[int32]int32{"t": {1: 2}}
	plan, err := Drain(in, []int32{1}, Options{LeadersOnly: true})
	require.NoError(t, err)
	assert.Equal(t, "demote", plan.Kind)
	assert.Zero(t, plan.Moves, "a demote moves no data")
	assert.Empty(t, plan.Leadership)
	assert.Len(t, plan.Partitions, 2, "t[4] and t[8]; t[0] has no in-sync replica elsewhere")
	for _, r := range plan.Partitions {
		assert.Equal(t, []int32{3, 1}, r.Target)
	}
	assert.NotContains(t, plan.Elect, vocab.TopicPartition{Topic: "t", Partition: 0})
	require.Len(t, plan.Notes, 2)
	assert.Contains(t, plan.Notes[0], "1 partition(s) led by broker 1 have no in-sync replica elsewhere")
	assert.Contains(t, plan.Notes[0], "t[0]")
}

func TestDrainBadInput(t *testing.T) {
	in := drainLayout()
	_, err := Drain(in, nil, Options{})
	assert.ErrorContains(t, err, "no brokers to drain")
	_, err = Drain(in, []int32{1, 2, 3, 4}, Options{})
	assert.ErrorContains(t, err, "no broker would be left to take the replicas of brokers 1, 2, 3, 4")
	_, err = Drain(in, []int32{1}, Options{PartitionLimit: 2})
	assert.ErrorContains(t, err, "a drain moves every replica off the drained brokers")
	// RF 2 over racks a and b: with rack a drained, the brokers left span
	// one rack, whose share is then both replicas.
	plan, err := Drain(in, []int32{1, 2}, Options{})
	require.NoError(t, err)
	r, _ := spread(apply(in.Current, plan), []int32{3, 4})
	assert.Equal(t, map[int32]int{3: 12, 4: 12}, r)

}

func TestDrainBreaksTheRackRuleOnlyWhenNoBrokerElseHasRoom(t *testing.T) {
	// t[0] on 3 (rack b) and 4 (rack c); 4 drained. Broker 1, the only one
	// of rack a, is too full by bytes, so broker 5 (rack b, beside 3) takes
	// it, and the notes say so.
	cur := map[string]map[int32][]int32{"t": {0: {3, 4}}, "fill": {0: {1}}}
	sizes := map[string]map[int32]int64{"t": {0: 10 * gib}, "fill": {0: 80 * gib}}
	in := Layout{Current: cur, Brokers: []int32{1, 3, 4, 5}, Racks: map[int32]string{1: "a", 3: "b", 5: "b", 4: "c"},
		Sizes: sizes, Disks: disksFor(cur, sizes, 100*gib)}
	in.Disks[5] = Disk{TotalBytes: 100 * gib, UsableBytes: 100 * gib}
	plan, err := Drain(in, []int32{4}, Options{By: ByBytes})
	require.NoError(t, err)
	require.Len(t, plan.Partitions, 1)
	assert.Equal(t, []int32{3, 5}, plan.Partitions[0].Target)
	assert.Contains(t, plan.Notes, "1 replica(s) go to a rack their partition already uses: no broker of another rack could take them (t[0])")
}

func TestLeadersOnlySpreadsPreferredLeadersWithoutMovingData(t *testing.T) {
	// Broker 1 is the preferred leader of all nine partitions.
	cur := map[string]map[int32][]int32{"t": {}}
	for p := range int32(9) {
		cur["t"][p] = []int32{1, 2 + p%2, 3 - p%2}
	}
	in := Layout{Current: cur, Brokers: []int32{1, 2, 3}, ISR: map[string]map[int32][]int32{"t": {0: {1}}}}
	plan, err := Rebalance(in, Options{LeadersOnly: true})
	require.NoError(t, err)
	assert.Equal(t, "leaders", plan.Kind)
	assert.Zero(t, plan.Moves)
	after := apply(cur, plan)
	for p, rs := range after["t"] {
		assert.ElementsMatch(t, cur["t"][p], rs, "t[%d] keeps its replicas", p)
	}
	assert.Equal(t, []int32{1, 2, 3}, after["t"][0], "t[0]: only broker 1 is in sync")
	_, l := spread(after, in.Brokers)
	assert.Equal(t, map[int32]int{1: 3, 2: 3, 3: 3}, l)
	assert.Len(t, plan.Elect, 6)
	assert.Equal(t, 6, plan.LeaderChanges)

	again, err := Rebalance(Layout{Current: after, Brokers: in.Brokers}, Options{LeadersOnly: true})
	require.NoError(t, err)
	assert.Empty(t, again.Partitions)
	assert.Equal(t, []string{"nothing to do: the leaders are balanced"}, again.Steps)
}

func TestReplicationFactorRaiseGoesToOtherRacksLowerKeepsLeader(t *testing.T) {
	racks := map[int32]string{1: "a", 2: "a", 3: "b", 4: "c"}
	brokers := []int32{1, 2, 3, 4}
	cur := map[string]map[int32][]int32{"t": {0: {1}, 1: {2}, 2: {3}, 3: {4}}, "busy": {0: {3, 4}, 1: {3, 4}}}
	one := map[string]map[int32][]int32{"t": cur["t"]}
	plan, err := Rebalance(Layout{Current: one, Brokers: brokers, Racks: racks}, Options{ReplicationFactor: 3})
	require.NoError(t, err)
	assert.Equal(t, "replication_factor", plan.Kind)
	assert.Equal(t, 8, plan.Moves)
	for _, r := range plan.Partitions {
		require.Len(t, r.Target, 3)
		assert.Equal(t, r.Current[0], r.Target[0], "%s keeps its leader", r)
		seen := map[string]bool{}
		for _, b := range r.Target {
			assert.False(t, seen[racks[b]], "%s: two replicas in rack %s", r, racks[b])
			seen[racks[b]] = true
		}
	}

	// Lower RF 3 to 2: never the leader; the rack shared first, then the
	// most loaded broker (3, which also holds "busy"), the preferred leader
	// last.
	three := map[string]map[int32][]int32{"t": {0: {1, 2, 3}, 1: {4, 3, 1}, 2: {4, 3, 1}}, "busy": cur["busy"]}
	plan, err = Rebalance(Layout{Current: three, Brokers: brokers, Racks: racks,
		Leaders: map[string]map[int32]int32{"t": {2: 3}}}, Options{ReplicationFactor: 2})
	require.NoError(t, err)
	after := apply(three, plan)
	assert.Equal(t, []int32{1, 3}, after["t"][0], "t[0]: 1 and 2 share rack a, 1 leads")
	assert.Equal(t, []int32{4, 1}, after["t"][1], "t[1]: 3 is the most loaded")
	assert.Equal(t, []int32{4, 3}, after["t"][2], "t[2]: 3 leads now, 4 is preferred: 1 goes")
	assert.Equal(t, cur["busy"], after["busy"])
	assert.Zero(t, plan.Moves)
	assert.Contains(t, plan.Steps[0], "no data copied")

	_, err = Rebalance(Layout{Current: one, Brokers: brokers}, Options{ReplicationFactor: 5})
	assert.ErrorContains(t, err, "replication_factor 5 is larger than the 4 brokers given")
}

func ExampleDrain() {
	plan, _ := Drain(drainLayout(), []int32{4}, Options{})
	for _, s := range plan.Steps {
		fmt.Println(s)
	}
	// Output:
	// move leadership off broker 4: reorder 3 partition(s) so the drained brokers come last (no data moves), then elect the preferred leader of 3 partition(s)
	// move the replicas off broker 4: reassign 6 partition(s), 6 replica(s) copied, within the rack rule
	// broker 4 then holds no replica of these topics; to decommission, shut it down and call unregister_broker(4)
}
