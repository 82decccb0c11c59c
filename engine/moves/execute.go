package moves

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// op is the run's row in the operations table and its audit lines' op.
const op = "reassign"

// maxFailedPolls is how many polls in a row may fail to read the cluster
// (each already retried within the client's timeout) before the run stops;
// what is moving goes on, and the run resumes later.
const maxFailedPolls = 5

// maxUnseen is how many polls in a row a sent move may be neither listed
// nor shown at its target before it is said to have ended elsewhere.
const maxUnseen = 5

// maxElections is how many times a moved partition's preferred leader is
// tried before the run says it was not elected and goes on.
const maxElections = 5

// executor is one run.
type executor struct {
	c      *engine.Client
	o      Options
	s      *sched
	prior  *priorRun // the run resumed, nil for a new one
	run    *engine.Run
	topics []string

	start       time.Time
	batches     int
	failedPolls int
	rater       rater
	rate        int64   // bytes per second at the last report
	waiting     []int32 // brokers not live that queued moves wait for

	throttled       bool    // this run set throttles: it removes them
	throttleBrokers []int32 // the brokers its moves touch
	rated           map[int32]int64
}

// Execute carries plan out (see the package doc) and returns a row per
// partition, sorted by topic and partition. Under dry-run it sends
// nothing: the rows say which batch each move would be in and its bytes.
// A plan that names an unknown partition or a broker not live, that is
// stale (a partition's replicas are not Current) or that meets a
// reassignment in progress to another target is refused whole, nothing
// sent. When ctx is cancelled the run stops feeding moves, asks
// Options.Ask whether to cancel those in flight, and returns CANCELED;
// it can be resumed.
func Execute(ctx context.Context, c *engine.Client, plan []Move, o Options) ([]Result, error) {
	prior, err := resumeFrom(ctx, c, &o)
	if err != nil {
		return nil, err
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if prior != nil {
		plan = prior.moves
	}
	if err := checkPlan(plan); err != nil {
		return nil, err
	}
	if len(plan) == 0 {
		return []Result{}, nil
	}
	e := &executor{c: c, o: o, prior: prior, rated: map[int32]int64{}}
	return e.execute(ctx, plan)
}

// checkPlan refuses what no cluster could take: an empty target, a broker
// twice in one, a partition twice.
func checkPlan(plan []Move) error {
	seen := make(map[vocab.TopicPartition]bool, len(plan))
	for _, m := range plan {
		key := vocab.PartitionKey(m.Topic, m.Partition)
		switch {
		case m.Topic == "" || m.Partition < 0:
			return vocab.Errorf(vocab.CodeInvalidArgument, key, "reassign: %s is not a partition", key)
		case len(m.Target) == 0:
			return vocab.Errorf(vocab.CodeInvalidArgument, key, "reassign: %s: the target names no broker", key)
		case seen[m.key()]:
			return vocab.Errorf(vocab.CodeInvalidArgument, key, "reassign: %s is in the plan twice", key)
		}
		seen[m.key()] = true
		for i, b := range m.Target {
			if slices.Contains(m.Target[:i], b) {
				return vocab.Errorf(vocab.CodeInvalidArgument, key, "reassign: %s: the target names broker %d twice", key, b)
			}
		}
	}
	return nil
}

func (e *executor) execute(ctx context.Context, plan []Move) ([]Result, error) {
	states := make([]*moveState, len(plan))
	for i, m := range plan {
		states[i] = &moveState{Move: m, tp: m.key(), bytes: -1}
		e.topics = append(e.topics, m.Topic)
	}
	e.topics = slices.Compact(slices.Sorted(slices.Values(e.topics)))
	e.s = newSched(&e.o, states)
	layout, err := e.c.LayoutOf(ctx, e.topics)
	if err != nil {
		return nil, err
	}
	if problems := e.classify(ctx, layout); len(problems) > 0 {
		return e.results(), refusal(problems)
	}
	if e.prior != nil {
		for _, m := range e.s.moves {
			m.batch = e.prior.batchOf[m.tp]
		}
	}
	if e.prior == nil && !slices.ContainsFunc(e.s.moves, func(m *moveState) bool {
		return m.state == StateQueued || m.state == StateMoving
	}) {
		return e.results(), nil // every partition is where the plan puts it: no run
	}
	e.measure(ctx, layout)
	e.s.order()
	if e.c.DryRun(ctx) {
		var queued []*moveState
		for _, m := range e.s.queue {
			queued = append(queued, m)
		}
		e.s.waves(layout.Moving)
		for _, m := range queued {
			m.state = StateQueued
		}
		return e.results(), nil
	}
	if err := e.begin(ctx, layout); err != nil {
		return e.results(), err
	}
	e.start = e.o.Clock.Now()
	for _, m := range e.s.moves {
		if m.state == StateMoving {
			m.grewAt = e.start
		}
	}
	if err := e.throttleStart(e.run.Context(ctx)); err != nil {
		return e.end(e.results(), err)
	}
	return e.loop(ctx)
}

// begin writes the run's intent line (a new run) or takes up the run
// resumed.
func (e *executor) begin(ctx context.Context, layout engine.ReplicaLayout) error {
	if e.prior != nil {
		run, err := e.c.ContinueRun(op, e.prior.id)
		e.run, e.batches = run, e.prior.batches
		return err
	}
	args := runArgs{MaxMovesPerBroker: e.o.MaxMovesPerBroker, MaxMoves: e.o.MaxMoves, MaxLeaderMoves: e.o.MaxLeaderMoves,
		Order: e.o.Order, Throttle: e.o.Throttle, Throttled: e.o.Throttle.Set() || e.o.Rethrottle != nil}
	before := make([]engine.ReplicasBefore, 0, len(e.s.moves))
	for _, m := range e.s.moves {
		args.Moves = append(args.Moves, engine.PartitionTarget{Topic: m.Topic, Partition: m.Partition, Replicas: m.Target})
		b := engine.ReplicasBefore{Topic: m.Topic, Partition: m.Partition, Replicas: layout.Partitions[m.tp].Replicas}
		if r, ok := layout.Moving[m.tp]; ok {
			b.Replicas, b.Adding, b.Removing = r.Replicas, r.AddingReplicas, r.RemovingReplicas
		}
		before = append(before, b)
	}
	run, err := e.c.BeginRun(ctx, op, args, before)
	e.run = run
	return err
}

// loop polls the cluster and feeds moves until none is left.
func (e *executor) loop(ctx context.Context) ([]Result, error) {
	rctx := e.run.Context(ctx)
	for {
		if ctx.Err() != nil {
			return e.interrupted(ctx)
		}
		layout, err := e.c.LayoutOf(ctx, e.topics)
		if err != nil {
			if ctx.Err() != nil {
				return e.interrupted(ctx)
			}
			if e.failedPolls++; e.failedPolls >= maxFailedPolls {
				return e.stopped(err)
			}
			e.o.logf("warn", "reassign: cannot read the cluster (%v): trying again in %s", err, e.o.Interval)
		} else {
			e.failedPolls = 0
			e.observe(layout)
			e.measureCopied(ctx, layout)
			e.elect(rctx, layout)
			e.rethrottle(rctx, e.status())
			if ctx.Err() != nil {
				return e.interrupted(ctx)
			}
			if e.finished() {
				e.report(ctx)
				return e.finish(ctx)
			}
			l := e.s.inFlight(layout.Moving)
			batch, waiting := e.s.pick(&l, e.down(layout))
			e.waitingFor(waiting)
			if len(batch) > 0 {
				if err := e.submit(rctx, batch); err != nil {
					if ctx.Err() != nil {
						return e.interrupted(ctx)
					}
					return e.stopped(err)
				}
			}
			e.report(ctx)
		}
		if err := e.o.Clock.Sleep(ctx, e.o.Interval); err != nil {
			return e.interrupted(ctx)
		}
	}
}

// down are the brokers this run's moves touch that the layout does not
// show live.
func (e *executor) down(l engine.ReplicaLayout) map[int32]bool {
	var out map[int32]bool
	for _, m := range e.s.moves {
		for _, b := range m.adding {
			if _, live := l.Brokers[b]; !live {
				if out == nil {
					out = map[int32]bool{}
				}
				out[b] = true
			}
		}
	}
	return out
}

// waitingFor records the brokers queued moves wait for, saying so when
// the list changes.
func (e *executor) waitingFor(brokers []int32) {
	if !slices.Equal(brokers, e.waiting) && len(brokers) > 0 {
		e.o.logf("warn", "reassign: broker(s) %v not live (down or fenced): the moves to them wait", brokers)
	}
	e.waiting = brokers
}

// report tells the status to Options.Progress and to the context's
// progress function (the terminal's line).
func (e *executor) report(ctx context.Context) {
	st := e.status()
	e.rate = e.rater.rate(e.o.Clock.Now(), st.CopiedBytes)
	st.withRate(e.rate)
	if e.o.Progress != nil {
		e.o.Progress(st)
	}
	engine.ReportProgress(ctx, st.String())
}

// submit sends a batch, each move's outcome read from the answer: taken,
// refused (the move fails), or unknown (the next polls tell).
func (e *executor) submit(rctx context.Context, batch []*moveState) error {
	e.batches++
	targets := make([]engine.PartitionTarget, len(batch))
	var bytes int64
	for i, m := range batch {
		targets[i] = engine.PartitionTarget{Topic: m.Topic, Partition: m.Partition, Replicas: m.Target}
		bytes += max(m.bytes, 0)
	}
	res, err := e.c.AlterPartitionReassignments(rctx, targets)
	now := e.o.Clock.Now()
	sent := func(m *moveState, uncertain bool) {
		m.state, m.batch, m.uncertain, m.unseen, m.grewAt, m.copied = StateMoving, e.batches, uncertain, 0, now, 0
		m.moved = true // its preferred leader is elected once it is done
	}
	if err != nil {
		if !engine.UnknownOutcome(engine.AsError(err, "")) {
			e.batches--
			return err // refused whole: nothing was taken
		}
		for _, m := range batch {
			sent(m, true)
		}
		return nil
	}
	for _, r := range res {
		m := e.s.by[vocab.TopicPartition{Topic: r.Topic, Partition: r.Partition}]
		switch {
		case m == nil:
		case r.Err == nil:
			sent(m, false)
		case engine.UnknownOutcome(r.Err):
			sent(m, true)
		default:
			m.state, m.batch, m.err = StateFailed, e.batches, r.Err
			e.o.logf("warn", "reassign: %s: Kafka refused the move to %v: %v", m.tp, m.Target, r.Err)
		}
	}
	e.o.logf("info", "reassign: batch %d: %d partition(s), %s to copy", e.batches, len(batch), engine.HumanBytes(bytes))
	return nil
}

// observe moves each partition sent to the state the cluster shows.
func (e *executor) observe(l engine.ReplicaLayout) {
	for _, m := range e.s.moves {
		if m.state != StateMoving {
			continue
		}
		if _, listed := l.Moving[m.tp]; listed {
			m.unseen, m.uncertain = 0, false
			continue
		}
		now, ok := l.Partitions[m.tp]
		switch {
		case !ok:
			m.state, m.err = StateFailed, vocab.Errorf("UNKNOWN_TOPIC_OR_PARTITION", m.tp.String(), "the partition was deleted while it moved")
		case slices.Equal(now.Replicas, m.Target):
			m.state, m.stalled, m.uncertain = StateDone, false, false
			m.copied = max(m.bytes, 0)
		case m.uncertain && slices.Equal(now.Replicas, m.current):
			m.state, m.uncertain = StateQueued, false // Kafka did not take it: sent again
		default:
			if m.unseen++; m.unseen >= maxUnseen {
				m.state = StateFailed
				m.err = vocab.Errorf("NO_REASSIGNMENT_IN_PROGRESS", m.tp.String(),
					"its reassignment ended without reaching the target %v: replicas are %v (cancelled elsewhere?)", m.Target, now.Replicas)
				e.o.logf("warn", "reassign: %s: %s", m.tp, m.err.Message)
			}
		}
	}
}

// finished reports whether nothing is left to do: nothing queued or
// moving, no election due.
func (e *executor) finished() bool {
	for _, m := range e.s.moves {
		if m.state == StateQueued || m.state == StateMoving || e.electionDue(m) {
			return false
		}
	}
	return true
}

// finish ends a run whose moves are all done or failed: the throttles
// are lifted and the outcome line written.
func (e *executor) finish(ctx context.Context) ([]Result, error) {
	var err error
	if e.throttled {
		err = e.throttleEnd(e.run.Context(ctx))
	}
	return e.end(e.results(), err)
}

// end writes the run's outcome.
func (e *executor) end(res []Result, err error) ([]Result, error) {
	items := make([]vocab.Item, len(res))
	for i := range res {
		items[i] = res[i]
	}
	if werr := e.run.End(items, err); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// stopped ends a run that cannot go on (the cluster cannot be read, a
// batch was refused whole) without an outcome: what moves goes on, the
// throttles stay, and the run can be resumed.
func (e *executor) stopped(err error) ([]Result, error) {
	_, moving, queued, _ := e.s.counts()
	ee := *engine.AsError(err, "")
	ee.Message = fmt.Sprintf("%s; the run stopped with %d move(s) in flight (left moving, throttles kept) and %d queued%s",
		ee.Message, moving, queued, e.resumeHint())
	return e.results(), &ee
}

// resumeHint says how to resume the run.
func (e *executor) resumeHint() string {
	if e.run == nil || e.run.ID == "" {
		return " (no audit log: it cannot be resumed, run it again with a new plan)"
	}
	// Said to a script's author and to an operator running a runbook
	// (drain-broker, rebalance, set-replication-factor), who resumes
	// from the shell.
	return fmt.Sprintf(": resume it with reassign(plan, {resume = %q}), or run the runbook again with --resume", e.run.ID)
}

// refusal is the error of a plan refused before anything was sent.
func refusal(problems []*moveState) error {
	const shown = 5
	var lines []string
	for i, m := range problems {
		if i == shown {
			lines = append(lines, fmt.Sprintf("and %d more", len(problems)-shown))
			break
		}
		lines = append(lines, m.err.Message)
	}
	return &vocab.Error{Code: problems[0].err.Code, Resource: problems[0].tp.String(),
		Message: "the plan is refused, nothing was sent: " + strings.Join(lines, "; ")}
}

// results are the rows, sorted by topic and partition.
func (e *executor) results() []Result {
	out := make([]Result, len(e.s.moves))
	for i, m := range e.s.moves {
		out[i] = Result{Topic: m.Topic, Partition: m.Partition, Current: orEmpty(m.current), Target: m.Target, State: m.state,
			Batch: m.batch, Bytes: m.bytes, Copied: m.copied, Stalled: m.stalled, Adopted: m.adopted, Err: m.err}
		if m.state == StateDone {
			out[i].Copied = max(m.bytes, 0)
		}
	}
	slices.SortFunc(out, func(a, b Result) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

func orEmpty(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}
