package moves

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
