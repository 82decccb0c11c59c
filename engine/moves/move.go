package moves

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Move is one partition to move to Target (the first replica its
// preferred leader).
type Move struct {
	Topic     string
	Partition int32
	// Current are the replicas the plan was made against: a partition
	// whose replicas differ when the run starts makes the plan stale. nil
	// moves the partition from wherever it is (rows written by hand).
	Current []int32
	Target  []int32
}

func (m Move) key() vocab.TopicPartition {
	return vocab.TopicPartition{Topic: m.Topic, Partition: m.Partition}
}

// The orders moves are submitted in (Options.Order).
const (
	OrderSmallFirst  = "small_first"  // fewest bytes to copy first: many moves finish early
	OrderLargeFirst  = "large_first"  // most bytes first: the long ones start early
	OrderUrgentFirst = "urgent_first" // under-replicated and offline partitions first (fewest in sync), then small first
	OrderPlan        = "plan"         // as the plan lists them
)

// Orders are the values Options.Order takes.
var Orders = []string{OrderSmallFirst, OrderLargeFirst, OrderUrgentFirst, OrderPlan}

// Defaults of the caps: cruise-control's concurrency per broker (5) and
// for leadership (1000), and a cluster cap below its 1,250.
const (
	DefaultMaxMovesPerBroker = 5
	DefaultMaxMoves          = 1000
	DefaultMaxLeaderMoves    = 1000
	DefaultInterval          = 2 * time.Second
	DefaultStallAfter        = 5 * time.Minute
)

// ResumeLatest resumes the newest run of the audit log that has not ended
// (Options.Resume), or starts a new one when there is none.
const ResumeLatest = "latest"

// Rates are replication throttles in bytes per second: All on every
// broker a move touches, PerBroker instead of it on some. All zero and no
// PerBroker: no throttle.
type Rates struct {
	All       int64           `json:"all,omitempty"`
	PerBroker map[int32]int64 `json:"per_broker,omitempty"`
}

// On is broker b's rate, 0 for none.
func (r Rates) On(b int32) int64 {
	if v, ok := r.PerBroker[b]; ok {
		return v
	}
	return r.All
}

// Set reports whether any rate is set.
func (r Rates) Set() bool { return r.All > 0 || len(r.PerBroker) > 0 }

// Options say how Execute paces a plan. The zero value takes the defaults.
type Options struct {
	// MaxMovesPerBroker caps the moves in flight that a broker takes part
	// in, as a broker a replica joins or one it leaves.
	MaxMovesPerBroker int
	// MaxMoves caps the partitions moving in the cluster (every
	// reassignment in progress counts, this run's or not).
	MaxMoves int
	// MaxLeaderMoves caps the leadership-only changes (the same replicas
	// in another order) and preferred-leader elections sent at a time.
	MaxLeaderMoves int
	Order          string // one of Orders; OrderSmallFirst when ""
	// Throttle is the replication throttle to set while moves run, and
	// Rethrottle, when set, is asked at each poll for new rates (ok false
	// keeps them): the throttle can be raised or lowered while it runs.
	Throttle   Rates
	Rethrottle func(Status) (Rates, bool)
	// Resume: "" begins a new run; ResumeLatest resumes the newest run
	// of the audit log that has not ended (or begins one when there is
	// none); an intent id resumes that run. A resumed run moves the
	// partitions its intent line names, not the plan given.
	Resume string
	// NoElect leaves leadership as the moves leave it; by default a
	// partition whose leader is not its target's first replica once moved
	// gets a preferred-leader election.
	NoElect    bool
	Interval   time.Duration // between polls; DefaultInterval when 0
	StallAfter time.Duration // a move whose bytes do not grow this long is stalled; DefaultStallAfter when 0
	// Progress is told the status after each poll; Log receives the lines
	// an operator reads (adopted, stalled, left in flight); both may be nil.
	Progress func(Status)
	Log      func(level, msg string)
	// Ask is asked, once the context is cancelled (Ctrl-C), whether to
	// cancel the moves in flight; nil, or false, leaves them moving.
	Ask func(question string) bool
	// Clock is the time the executor waits on; the real clock when nil.
	Clock Clock
}

func (o *Options) defaults() error {
	for _, c := range []struct {
		name string
		v    *int
		def  int
	}{{"max_moves_per_broker", &o.MaxMovesPerBroker, DefaultMaxMovesPerBroker}, {"max_moves", &o.MaxMoves, DefaultMaxMoves},
		{"max_leader_moves", &o.MaxLeaderMoves, DefaultMaxLeaderMoves}} {
		switch {
		case *c.v == 0:
			*c.v = c.def
		case *c.v < 0:
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "reassign: %s must be a positive integer, got %d", c.name, *c.v)
		}
	}
	if o.Order == "" {
		o.Order = OrderSmallFirst
	}
	if !slices.Contains(Orders, o.Order) {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "reassign: order must be one of %v, got %q", Orders, o.Order)
	}
	if err := checkRates(o.Throttle); err != nil {
		return err
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.StallAfter <= 0 {
		o.StallAfter = DefaultStallAfter
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	return nil
}

func checkRates(r Rates) error {
	if r.All < 0 {
		return vocab.Errorf(vocab.CodeInvalidArgument, "", "reassign: throttle must be a positive number of bytes per second, got %d", r.All)
	}
	for b, v := range r.PerBroker {
		if v <= 0 {
			return vocab.Errorf(vocab.CodeInvalidArgument, "", "reassign: throttle of broker %d must be a positive number of bytes per second, got %d", b, v)
		}
	}
	return nil
}

func (o *Options) logf(level, format string, args ...any) {
	if o.Log != nil {
		o.Log(level, fmt.Sprintf(format, args...))
	}
}

// States of a partition in a run (Result.State).
const (
	StateDone   = "done"   // its replicas are the target
	StateMoving = "moving" // its reassignment is in progress
	StateQueued = "queued" // waiting for room under the caps
	StateFailed = "failed" // refused or ended without reaching the target: Err says why
)

// Result is one partition of a run: where it was, where it goes, how far.
type Result struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Current   []int32 `json:"current"`
	Target    []int32 `json:"target"`
	State     string  `json:"state"`
	// Batch is the batch that submitted it, 1 for the first; 0 when this
	// run did not (done before, adopted, not yet). Under dry-run, the
	// batch it would be in if every batch finished before the next.
	Batch   int   `json:"batch"`
	Bytes   int64 `json:"bytes"`        // to copy: its size times the brokers it joins (-1 unknown)
	Copied  int64 `json:"copied_bytes"` // copied so far
	Stalled bool  `json:"stalled"`
	// Adopted: it was already moving to the target when the run began.
	Adopted bool         `json:"adopted"`
	Err     *vocab.Error `json:"error,omitempty"`
}

func (r Result) Key() string           { return vocab.PartitionKey(r.Topic, r.Partition) }
func (r Result) Failure() *vocab.Error { return r.Err }

// Clock is what the executor waits on: the real clock, or a test's.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
