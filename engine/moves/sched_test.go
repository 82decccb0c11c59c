package moves

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// pick takes, in queue order, every move that fits under the per-broker
// cap, skipping those that do not (a busy broker holds nothing back
// elsewhere), and stops scanning once every broker of the queue is full:
// what it did not reach stays queued for the next poll.
func TestPickSkipsBusyBrokersAndStopsWhenAllAreFull(t *testing.T) {
	mk := func(p int32, from, to int32) *moveState {
		m := &moveState{Move: Move{Topic: "t", Partition: p, Target: []int32{to}}, state: StateQueued, bytes: int64(p)}
		m.tp = m.key()
		m.setPath([]int32{from})
		return m
	}
	o := &Options{MaxMovesPerBroker: 1, MaxMoves: 100, MaxLeaderMoves: 100, Order: OrderSmallFirst}
	s := newSched(o, []*moveState{mk(0, 1, 2), mk(1, 1, 3), mk(2, 4, 5), mk(3, 3, 6), mk(4, 2, 4)})
	s.order()
	l := newLoad()
	batch, waiting := s.pick(&l, nil)
	var got []int32
	for _, m := range batch {
		got = append(got, m.Partition)
	}
	assert.Equal(t, []int32{0, 2, 3}, got, "1 and 4 wait: brokers 1 and 2, 4 are busy")
	assert.Empty(t, waiting)
	assert.Equal(t, map[int32]int{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}, l.broker)

	for _, m := range batch {
		m.state = StateMoving
	}
	var queued []int32
	for _, m := range s.queue {
		if m.state == StateQueued {
			queued = append(queued, m.Partition)
		}
	}
	assert.Equal(t, []int32{1, 4}, queued, "every broker full: the rest stays queued, in order")
}

// Leadership-only changes (the same replicas in another order) go first
// and have their own cap: at most MaxLeaderMoves a batch, and they take
// nothing from the data moves' caps, which go out beside them.
func TestLeadershipOnlyChangesHaveTheirOwnCap(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 3, 1000)
	var lead [][]int32
	for p := int32(0); p < 5; p++ {
		lead = append(lead, []int32{0, 1, 2})
		plan = append(plan, Move{Topic: "lead", Partition: p, Current: []int32{0, 1, 2}, Target: []int32{1, 2, 0}})
	}
	e.sim.Topic("lead", lead, 1000)
	res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{MaxMovesPerBroker: 1, MaxLeaderMoves: 2, Interval: time.Second}))
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, r.Key())
	}
	var perBatch []map[string]int
	for _, ch := range e.changes(t) {
		if ch.Intent.Op != "alter_partition_reassignments" {
			continue
		}
		var a struct {
			Partitions []engine.PartitionTarget `json:"partitions"`
		}
		require.NoError(t, auditlog.DecodeField(ch.Intent.Args, &a))
		n := map[string]int{}
		for _, p := range a.Partitions {
			n[p.Topic]++
		}
		perBatch = append(perBatch, n)
	}
	require.NotEmpty(t, perBatch)
	assert.Equal(t, map[string]int{"lead": 2, "orders": 1}, perBatch[0], "two leadership changes beside the one data move the caps allow")
	total := 0
	for i, n := range perBatch {
		assert.LessOrEqual(t, n["lead"], 2, "batch %d", i+1)
		assert.LessOrEqual(t, n["orders"], 1, "batch %d: broker 3 is in every data move", i+1)
		total += n["lead"]
	}
	assert.Equal(t, 5, total, "each leadership change sent once")
	for p := int32(0); p < 5; p++ {
		assert.Equal(t, []int32{1, 2, 0}, e.sim.Replicas("lead", p))
	}
}
