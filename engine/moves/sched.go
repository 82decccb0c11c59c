package moves

import (
	"cmp"
	"slices"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The scheduler: which queued moves go next, under the caps. It only
// computes (the executor reads the cluster and sends), so its cost per
// batch is measured on its own (BenchmarkPollCycle).

// moveState is one partition's state in a run.
type moveState struct {
	Move
	tp vocab.TopicPartition
	// adding and removing are the brokers the partition's replicas join
	// and leave: each is a broker the move takes part in (the per-broker
	// cap counts them).
	adding, removing []int32
	leaderOnly       bool  // the same replicas in another order: no data copied
	bytes            int64 // to copy; -1 unknown
	urgency          int   // replicas out of sync (offline ones included)
	current          []int32

	state   string
	batch   int
	adopted bool
	// moved: this run (or the process it resumes) moved it, so its
	// preferred leader is elected once it is done.
	moved bool
	err   *vocab.Error

	copied  int64
	grewAt  time.Time // when its copied bytes last grew (or it started)
	stalled bool
	// unseen counts the polls in a row that neither listed the move nor
	// showed its target: the brokers' metadata trails the controller
	// for a moment after a move ends, so a few are allowed before the
	// move is said to have ended elsewhere.
	unseen int
	// uncertain: it was sent and the answer did not say whether Kafka
	// took it (a timeout): the next polls tell.
	uncertain bool
	// elect counts the preferred-leader elections tried once it is done
	// (0: none due); electDone: none is due any more.
	elect     int
	electDone bool
}

// setPath records where the partition is now and what moving it to its
// target adds and removes.
func (m *moveState) setPath(now []int32) {
	m.current = slices.Clone(now)
	m.adding = minus(m.Target, now)
	m.removing = minus(now, m.Target)
	m.leaderOnly = len(m.adding) == 0 && len(m.removing) == 0
}

// minus is a without the elements of b, in a's order.
func minus(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// load is what is in flight: partitions moving in the cluster, and per
// broker the moves it takes part in.
type load struct {
	cluster int
	broker  map[int32]int
}

func newLoad() load { return load{broker: map[int32]int{}} }

func (l *load) add(adding, removing []int32) {
	l.cluster++
	for _, b := range adding {
		l.broker[b]++
	}
	for _, b := range removing {
		l.broker[b]++
	}
}

// fits reports whether a move joining adding and leaving removing fits
// under the per-broker cap.
func (l *load) fits(adding, removing []int32, perBroker int) bool {
	for _, b := range adding {
		if l.broker[b] >= perBroker {
			return false
		}
	}
	for _, b := range removing {
		if l.broker[b] >= perBroker {
			return false
		}
	}
	return true
}

// sched holds a run's moves in the order they are submitted.
type sched struct {
	o     *Options
	moves []*moveState // the plan's order
	by    map[vocab.TopicPartition]*moveState
	queue []*moveState // submission order; entries no longer queued are dropped as it is scanned
	// brokers are those the queued moves join or leave: when each is at
	// the per-broker cap, pick stops scanning (a queue of 100,000 under
	// full brokers is not walked at every poll).
	brokers []int32
}

func newSched(o *Options, moves []*moveState) *sched {
	s := &sched{o: o, moves: moves, by: make(map[vocab.TopicPartition]*moveState, len(moves))}
	for _, m := range moves {
		s.by[m.tp] = m
	}
	return s
}

// order builds the queue: leadership-only changes first (they copy
// nothing and take no data cap), then data moves in the order asked.
func (s *sched) order() {
	s.queue = s.queue[:0]
	for _, m := range s.moves {
		if m.state == StateQueued {
			s.queue = append(s.queue, m)
		}
	}
	seen := map[int32]bool{}
	s.brokers = s.brokers[:0]
	for _, m := range s.queue {
		for _, b := range slices.Concat(m.adding, m.removing) {
			if !seen[b] {
				seen[b] = true
				s.brokers = append(s.brokers, b)
			}
		}
	}
	size := func(m *moveState) int64 { return max(m.bytes, 0) }
	slices.SortStableFunc(s.queue, func(a, b *moveState) int {
		if a.leaderOnly != b.leaderOnly {
			if a.leaderOnly {
				return -1
			}
			return 1
		}
		switch s.o.Order {
		case OrderSmallFirst:
			return cmp.Compare(size(a), size(b))
		case OrderLargeFirst:
			return cmp.Compare(size(b), size(a))
		case OrderUrgentFirst:
			return cmp.Or(cmp.Compare(b.urgency, a.urgency), cmp.Compare(size(a), size(b)))
		}
		return 0
	})
}

// inFlight is the load of the cluster: every reassignment listed, and
// this run's moves that are sent but not listed (just sent, or ended a
// moment ago and not yet shown done): counted until the cluster says.
func (s *sched) inFlight(listed map[vocab.TopicPartition]engine.Reassignment) load {
	l := newLoad()
	for _, r := range listed {
		l.add(r.AddingReplicas, r.RemovingReplicas)
	}
	for _, m := range s.moves {
		if m.state == StateMoving {
			if _, ok := listed[m.tp]; !ok {
				l.add(m.adding, m.removing)
			}
		}
	}
	return l
}

// pick takes the next batch from the queue: in order, every queued move
// that fits under the caps given what is in flight (l, which it updates).
// A move that does not fit is skipped, not waited for: one busy broker
// does not hold back moves elsewhere. A move to a broker that is not live
// (down is nil: all are) waits for it; waiting names those brokers.
func (s *sched) pick(l *load, down map[int32]bool) (batch []*moveState, waiting []int32) {
	leaders := 0
	room := 0 // brokers of the queue below the per-broker cap
	for _, b := range s.brokers {
		if l.broker[b] < s.o.MaxMovesPerBroker {
			room++
		}
	}
	kept := s.queue[:0]
	for i, m := range s.queue {
		if m.state != StateQueued {
			if m.state == StateMoving {
				kept = append(kept, m) // may come back (an answer that did not say)
			}
			continue
		}
		kept = append(kept, m)
		if b, ok := firstDown(m.adding, down); ok {
			if !slices.Contains(waiting, b) {
				waiting = append(waiting, b)
			}
			continue
		}
		switch {
		case m.leaderOnly:
			if leaders < s.o.MaxLeaderMoves {
				batch = append(batch, m)
				leaders++
			}
		case l.cluster < s.o.MaxMoves && l.fits(m.adding, m.removing, s.o.MaxMovesPerBroker):
			l.add(m.adding, m.removing)
			batch = append(batch, m)
			for _, side := range [2][]int32{m.adding, m.removing} {
				for _, b := range side {
					if l.broker[b] == s.o.MaxMovesPerBroker {
						room--
					}
				}
			}
		}
		// Leadership-only changes come first in the queue: past them,
		// nothing more fits once the cluster or every broker is full
		// (unless brokers are down: the scan also names those waited for).
		if !m.leaderOnly && (l.cluster >= s.o.MaxMoves || room <= 0 && down == nil) ||
			l.cluster >= s.o.MaxMoves && leaders >= s.o.MaxLeaderMoves {
			kept = append(kept, s.queue[i+1:]...)
			break
		}
	}
	s.queue = kept
	slices.Sort(waiting)
	return batch, waiting
}

func firstDown(brokers []int32, down map[int32]bool) (int32, bool) {
	for _, b := range brokers {
		if down[b] {
			return b, true
		}
	}
	return 0, false
}

// waves is the dry run's batches: each the moves pick would send if every
// batch before it had finished, the first counting what is in flight now.
func (s *sched) waves(listed map[vocab.TopicPartition]engine.Reassignment) {
	l := s.inFlight(listed)
	for wave := 1; ; wave++ {
		batch, _ := s.pick(&l, nil)
		if len(batch) == 0 {
			return
		}
		for _, m := range batch {
			m.batch, m.state = wave, StateDone
		}
		l = newLoad()
	}
}

// counts are the run's partitions by state.
func (s *sched) counts() (done, moving, queued, failed int) {
	for _, m := range s.moves {
		switch m.state {
		case StateDone:
			done++
		case StateMoving:
			moving++
		case StateQueued:
			queued++
		case StateFailed:
			failed++
		}
	}
	return
}
