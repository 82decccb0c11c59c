package moves

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// What a run sees of its moves at each poll: bytes copied and stalls, the
// preferred leaders of the moves done, and the status it reports.

// measureCopied reads how far this run's moving partitions have copied,
// and flags a move whose bytes have not grown for StallAfter as stalled
// (once, with a line saying so and naming a broker it joins that is not
// live). When the log dirs cannot be read nothing is judged: a move is
// never called stalled for want of a measure.
func (e *executor) measureCopied(ctx context.Context, l engine.ReplicaLayout) {
	var moving []engine.Reassignment
	for _, m := range e.s.moves {
		if m.state != StateMoving {
			continue
		}
		if r, ok := l.Moving[m.tp]; ok {
			moving = append(moving, r)
		}
	}
	if len(moving) == 0 {
		return
	}
	copied, ok := e.c.ReassignCopied(ctx, moving)
	if !ok {
		return
	}
	now := e.o.Clock.Now()
	for _, r := range moving {
		m := e.s.by[vocab.TopicPartition{Topic: r.Topic, Partition: r.Partition}]
		b := copied[m.tp]
		if b.Total > 0 {
			m.bytes = b.Total // the source grows while producers write
		}
		if b.Copied > m.copied {
			m.copied, m.grewAt = b.Copied, now
			if m.stalled {
				m.stalled = false
				e.o.logf("info", "reassign: %s is copying again", m.tp)
			}
			continue
		}
		if !m.stalled && now.Sub(m.grewAt) >= e.o.StallAfter {
			m.stalled = true
			why := ""
			for _, b := range r.AddingReplicas {
				if _, live := l.Brokers[b]; !live {
					why = fmt.Sprintf("; broker %d, which it is copied to, is not live (down or fenced)", b)
					break
				}
			}
			e.o.logf("warn", "reassign: %s stalled: no bytes copied for %s (%s of %s copied to %v)%s; it stays in flight: cancel it (cancel_partition_reassignments) or wait",
				m.tp, now.Sub(m.grewAt).Round(1e9), engine.HumanBytes(m.copied), engine.HumanBytes(max(m.bytes, 0)), r.AddingReplicas, why)
		}
	}
}

// electionDue reports whether m is done and its preferred leader is still
// to be elected.
func (e *executor) electionDue(m *moveState) bool {
	return !e.o.NoElect && m.state == StateDone && m.moved && !m.electDone
}

// elect runs preferred-leader elections for the moves done whose leader
// is not their target's first replica, at most MaxLeaderMoves at a time.
// A partition whose election keeps failing is given up (and said) after
// maxElections tries: its move is done all the same.
func (e *executor) elect(rctx context.Context, l engine.ReplicaLayout) {
	var due []*moveState
	for _, m := range e.s.moves {
		if !e.electionDue(m) {
			continue
		}
		if l.Partitions[m.tp].Leader == m.Target[0] {
			m.electDone = true
			continue
		}
		if len(due) < e.o.MaxLeaderMoves {
			due = append(due, m)
		}
	}
	if len(due) == 0 {
		return
	}
	tps := make([]vocab.TopicPartition, len(due))
	for i, m := range due {
		tps[i] = m.tp
	}
	res, err := e.c.ElectLeaders(rctx, engine.ElectPreferred, nil, tps)
	failed := map[vocab.TopicPartition]error{}
	if err != nil {
		for _, m := range due {
			failed[m.tp] = err
		}
	}
	for _, r := range res {
		if r.Err != nil {
			failed[vocab.TopicPartition{Topic: r.Topic, Partition: r.Partition}] = r.Err
		}
	}
	for _, m := range due {
		ferr, bad := failed[m.tp]
		if !bad {
			m.electDone = true
			continue
		}
		if m.elect++; m.elect >= maxElections {
			m.electDone = true
			e.o.logf("warn", "reassign: %s: its preferred leader %d was not elected (%v); elect_leaders can try again", m.tp, m.Target[0], ferr)
		}
	}
}

// status is the run's progress now.
func (e *executor) status() Status {
	st := Status{Partitions: len(e.s.moves), Batches: e.batches, Throttle: e.o.Throttle, ETASeconds: -1, Stalled: []string{}}
	if e.run != nil {
		st.Run = e.run.ID
	}
	st.Done, st.Moving, st.Queued, st.Failed = e.s.counts()
	for _, m := range e.s.moves {
		if m.bytes > 0 && m.state != StateFailed {
			st.TotalBytes += m.bytes
			switch m.state {
			case StateDone:
				st.CopiedBytes += m.bytes
			case StateMoving:
				st.CopiedBytes += min(m.copied, m.bytes)
			}
		}
		if m.stalled {
			st.Stalled = append(st.Stalled, m.tp.String())
		}
	}
	st.Waiting = append([]int32{}, e.waiting...)
	st.ElapsedSeconds = int64(e.o.Clock.Now().Sub(e.start).Seconds())
	st.withRate(e.rate)
	return st
}

// withRate sets the rate and the time left at it.
func (st *Status) withRate(rate int64) {
	st.Rate, st.ETASeconds = rate, -1
	if rate > 0 {
		st.ETASeconds = (st.TotalBytes - st.CopiedBytes) / rate
	}
}

// interrupted stops feeding moves (the context was cancelled: Ctrl-C),
// asks whether to cancel the moves in flight (they go back to their
// replicas before, and are queued again for a resume), lifts the
// throttles when nothing of the run moves any more, and says how to
// resume. The run keeps no outcome: it resumes.
func (e *executor) interrupted(ctx context.Context) ([]Result, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	rctx := e.run.Context(cctx)
	var moving []*moveState
	for _, m := range e.s.moves {
		if m.state == StateMoving {
			moving = append(moving, m)
		}
	}
	what := "left moving"
	if len(moving) > 0 && e.o.Ask != nil && e.o.Ask(cancelQuestion(moving)) {
		parts := make([]engine.PartitionTarget, len(moving))
		for i, m := range moving {
			parts[i] = engine.PartitionTarget{Topic: m.Topic, Partition: m.Partition}
		}
		res, err := e.c.CancelPartitionReassignments(rctx, parts)
		if err != nil {
			e.o.logf("warn", "reassign: cancelling the moves in flight failed (%v): they go on", err)
		}
		for _, r := range res {
			m := e.s.by[vocab.TopicPartition{Topic: r.Topic, Partition: r.Partition}]
			if m != nil && r.Err == nil {
				m.state, m.stalled = StateQueued, false
			}
		}
		what = "cancelled"
	}
	done, still, queued, _ := e.s.counts()
	if still == 0 && e.throttled {
		if err := e.throttleEnd(rctx); err != nil {
			e.o.logf("warn", "reassign: %v", err)
		}
	} else if still > 0 && e.throttled {
		e.o.logf("info", "reassign: the replication throttles stay while %d move(s) go on: a resume (or wait_reassignments) lifts them", still)
	}
	if what == "cancelled" && still > 0 {
		what = fmt.Sprintf("cancelled but %d", still)
	}
	msg := fmt.Sprintf("interrupted: %d done, %d moving (%s), %d queued%s", done, len(moving), what, queued, e.resumeHint())
	// Said as a line too: the command line reports only the signal, and
	// how to resume must not be lost with the error.
	e.o.logf("warn", "reassign: %s", msg)
	return e.results(), &vocab.Error{Code: vocab.CodeCanceled, Message: msg}
}

// cleanupTimeout bounds what an interrupted run still sends.
const cleanupTimeout = 30 * time.Second

func cancelQuestion(moving []*moveState) string {
	names := make([]string, 0, 5)
	for i, m := range moving {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(moving)-5))
			break
		}
		names = append(names, m.tp.String())
	}
	return fmt.Sprintf("reassign: %d move(s) in flight (%s). Cancel them, back to their replicas before? (no: they go on moving)",
		len(moving), strings.Join(names, " "))
}
