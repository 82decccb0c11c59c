package moves

import (
	"context"
	"fmt"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Where each partition of a run stands when it starts, and what moving it
// copies.

// Codes of a partition a run cannot move.
const (
	CodeStale      = "STALE_PLAN"               // its replicas changed since the plan
	CodeInProgress = "REASSIGNMENT_IN_PROGRESS" // moving to another target
	CodeNotLive    = "BROKER_NOT_AVAILABLE"     // a broker it joins is down or fenced
	CodeNoBroker   = "INVALID_REPLICA_ASSIGNMENT"
)

// classify sets each move's state from the layout the run starts on:
// done (already at its target), moving (its very reassignment in
// progress: adopted), queued, or failed. It returns the moves that refuse
// the run: every failure for a new run (the plan is refused whole, as
// apply refuses a stale plan); for a resumed run only a broker that is not
// live (a stale or unknown partition of a run half done fails alone, and
// the rest goes on).
func (e *executor) classify(ctx context.Context, l engine.ReplicaLayout) []*moveState {
	resumed := e.prior != nil
	var refusing []*moveState
	fail := func(m *moveState, refuses bool, code, format string, args ...any) {
		m.state = StateFailed
		m.err = vocab.Errorf(code, m.tp.String(), "%s: %s", m.tp, fmt.Sprintf(format, args...))
		if refuses || !resumed {
			refusing = append(refusing, m)
		} else {
			e.o.logf("warn", "reassign: %s", m.err.Message)
		}
	}
	var brokerStates map[int32]string // asked once, when a broker is not live
	for _, m := range e.s.moves {
		if terr := l.Topics[m.Topic]; terr != nil {
			fail(m, false, terr.Code, "%s", terr.Message)
			continue
		}
		now, ok := l.Partitions[m.tp]
		if !ok {
			fail(m, false, "UNKNOWN_TOPIC_OR_PARTITION", "no such partition")
			continue
		}
		from := m.Current
		if from == nil {
			from = now.Replicas
		}
		m.setPath(from)
		m.urgency = len(now.Replicas) - len(now.ISR)
		if r, moving := l.Moving[m.tp]; moving {
			kafkaTarget := minus(r.Replicas, r.RemovingReplicas)
			if !slices.Equal(kafkaTarget, m.Target) {
				fail(m, false, CodeInProgress, "a reassignment to %v is in progress (adding %v, removing %v), not to the target %v: wait for it (wait_reassignments) or cancel it (cancel_partition_reassignments), then plan again",
					kafkaTarget, r.AddingReplicas, r.RemovingReplicas, m.Target)
				continue
			}
			m.state, m.moved, m.adopted = StateMoving, true, !resumed
			m.current, m.adding, m.removing = minus(r.Replicas, r.AddingReplicas), r.AddingReplicas, r.RemovingReplicas
			if !resumed {
				e.o.logf("info", "reassign: %s is already moving to %v: adopted (not sent again)", m.tp, m.Target)
			}
			continue
		}
		if slices.Equal(now.Replicas, m.Target) {
			m.state = StateDone
			m.moved = resumed && !slices.Equal(from, m.Target)
			continue
		}
		if m.Current != nil && !slices.Equal(now.Replicas, m.Current) {
			if resumed {
				fail(m, false, CodeStale, "changed since the run began: replicas are %v, were %v, the run moves them to %v; left as they are",
					now.Replicas, m.Current, m.Target)
			} else {
				fail(m, false, CodeStale, "replicas are %v now, the plan was made against %v: plan again", now.Replicas, m.Current)
			}
			continue
		}
		m.setPath(now.Replicas)
		m.state = StateQueued
		for _, b := range m.adding {
			if _, live := l.Brokers[b]; live {
				continue
			}
			if brokerStates == nil {
				brokerStates = map[int32]string{}
				if s, err := e.c.BrokerStates(ctx); err == nil {
					brokerStates = s
				}
			}
			switch brokerStates[b] {
			case engine.BrokerFenced:
				fail(m, true, CodeNotLive, "broker %d, which it is to move to, is fenced (down, or not caught up)", b)
			case engine.BrokerLive:
				fail(m, true, CodeNotLive, "broker %d, which it is to move to, is not in the metadata (down?)", b)
			default:
				fail(m, true, CodeNoBroker, "broker %d, which it is to move to, is not in the cluster (live brokers: %v)", b, liveIDs(l))
			}
			break
		}
	}
	return refusing
}

func liveIDs(l engine.ReplicaLayout) []int32 {
	ids := make([]int32, 0, len(l.Brokers))
	for b := range l.Brokers {
		ids = append(ids, b)
	}
	slices.Sort(ids)
	return ids
}

// measure sets what each move copies: its partition's size (its largest
// replica, from the log dirs) times the brokers it joins. When the log
// dirs cannot be read the bytes are unknown (-1) and small-first keeps the
// plan's order.
func (e *executor) measure(ctx context.Context, l engine.ReplicaLayout) {
	sizes, ok := e.c.PartitionBytes(ctx, e.topics, nil)
	unknown := false
	for _, m := range e.s.moves {
		switch {
		case m.state == StateFailed:
		case len(m.adding) == 0:
			m.bytes = 0
		case ok:
			m.bytes = sizes[m.tp] * int64(len(m.adding))
		default:
			unknown = true
		}
	}
	if unknown {
		e.o.logf("warn", "reassign: the log dirs could not be read: the bytes to copy are unknown, and moves go in the plan's order")
	}
}
