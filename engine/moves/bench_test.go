package moves

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// A synthetic rebalance at issue 30's scale: 100,000 partitions of
// replication factor 3 over 50 brokers, each moving one replica to
// another broker.
const benchPartitions, benchBrokers = 100_000, 50

func benchPlan() ([]*moveState, engine.ReplicaLayout) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := engine.ReplicaLayout{Brokers: map[int32]string{}, Partitions: map[vocab.TopicPartition]engine.PartitionNow{},
		Moving: map[vocab.TopicPartition]engine.Reassignment{}}
	for b := int32(1); b <= benchBrokers; b++ {
		l.Brokers[b] = ""
	}
	states := make([]*moveState, benchPartitions)
	for i := range states {
		perm := rng.Perm(benchBrokers)
		now := []int32{int32(perm[0] + 1), int32(perm[1] + 1), int32(perm[2] + 1)}
		target := []int32{now[0], now[1], int32(perm[3] + 1)}
		m := &moveState{Move: Move{Topic: fmt.Sprintf("t%03d", i/1000), Partition: int32(i % 1000), Current: now, Target: target},
			bytes: rng.Int64N(1 << 30), state: StateQueued}
		m.tp = m.key()
		m.setPath(now)
		states[i] = m
		l.Partitions[m.tp] = engine.PartitionNow{Replicas: now, ISR: now, Leader: now[0]}
	}
	return states, l
}

// BenchmarkPollCycle is the executor's own work at each poll of a run of
// 100,000 partitions under the default caps (5 per broker, 1,000 in the
// cluster): what was moving finishes, observe reads the layout, the load
// in flight is counted and the next batch picked. Reading the cluster and
// sending are Kafka's time and not in it. Each op is one poll; a run
// takes benchPartitions / batch polls at best.
func BenchmarkPollCycle(b *testing.B) {
	o := Options{}
	if err := o.defaults(); err != nil {
		b.Fatal(err)
	}
	var e *executor
	var l engine.ReplicaLayout
	reset := func() {
		states, layout := benchPlan()
		e, l = &executor{o: o, s: newSched(&o, states)}, layout
		e.s.order()
	}
	reset()
	picked := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for tp, r := range l.Moving {
			l.Partitions[tp] = engine.PartitionNow{Replicas: minus(r.Replicas, r.RemovingReplicas)}
			delete(l.Moving, tp)
		}
		e.observe(l)
		load := e.s.inFlight(l.Moving)
		batch, _ := e.s.pick(&load, nil)
		for _, m := range batch {
			m.state = StateMoving
			l.Moving[m.tp] = engine.Reassignment{Topic: m.Topic, Partition: m.Partition,
				Replicas: append(append([]int32{}, m.Target...), m.removing...), AddingReplicas: m.adding, RemovingReplicas: m.removing}
		}
		picked += len(batch)
		if len(batch) == 0 {
			b.StopTimer()
			reset()
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(picked)/float64(b.N), "moves/poll")
}

// BenchmarkRunState is the memory a run holds per partition (the plan's
// replicas, its state and the scheduler's indexes): a run's memory grows
// with its plan and nothing else (not with polls or batches).
func BenchmarkRunState(b *testing.B) {
	var before, after runtime.MemStats
	for range b.N {
		runtime.GC()
		runtime.ReadMemStats(&before)
		states, _ := benchPlan()
		s := newSched(&Options{Order: OrderSmallFirst}, states)
		s.order()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(s)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/benchPartitions, "heap-B/partition")
	}
}
