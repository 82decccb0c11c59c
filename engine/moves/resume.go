package moves

import (
	"context"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// runArgs are a run's intent arguments: the plan (each partition's
// target) and what it runs under. The replicas before are the intent's
// before-state.
type runArgs struct {
	Moves             []engine.PartitionTarget `json:"moves"`
	MaxMovesPerBroker int                      `json:"max_moves_per_broker"`
	MaxMoves          int                      `json:"max_moves"`
	MaxLeaderMoves    int                      `json:"max_leader_moves"`
	Order             string                   `json:"order"`
	Throttle          Rates                    `json:"throttle"`
	// Throttled: the run throttles (a rate, or a function the log cannot
	// hold), so whatever resumes it lifts the throttles at its end.
	Throttled bool `json:"throttled,omitempty"`
}

// priorRun is a run read back from the audit log to resume it.
type priorRun struct {
	id      string
	moves   []Move // Current: the replicas before the run
	batches int    // batches it sent
	batchOf map[vocab.TopicPartition]int
	// throttled: the run set throttles, which stay until it ends.
	throttled bool
}

// resumeFrom finds the run Options.Resume names in the client's audit log
// and fills o's caps, order and throttle from it where o leaves them
// unset. It returns nil for a new run: no resume asked, or ResumeLatest
// with no run left unfinished (said in a line).
func resumeFrom(ctx context.Context, c *engine.Client, o *Options) (*priorRun, error) {
	if o.Resume == "" {
		return nil, nil
	}
	log := c.Config().Audit
	if log == nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "reassign: resume needs the audit log the run was written to (--audit-log)")
	}
	changes, _, err := log.ReadBack()
	if err != nil {
		return nil, err
	}
	cluster, err := c.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	ch := findRun(changes, o.Resume, cluster)
	switch {
	case ch == nil && o.Resume == ResumeLatest:
		o.Resume = ""
		o.logf("info", "reassign: no unfinished run on this cluster in the audit log: a new run begins")
		return nil, nil
	case ch == nil:
		return nil, vocab.Errorf(vocab.CodeNotFound, o.Resume, "reassign: no reassign run %q in the audit log", o.Resume)
	case ch.Untrusted != "":
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, ch.Intent.ID, "reassign: run %s cannot be resumed: the audit log does not vouch for it (%s)", ch.Intent.ID, ch.Untrusted)
	case ch.Intent.ClusterID != cluster:
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, ch.Intent.ID, "reassign: run %s was recorded on cluster %s; connected to %s", ch.Intent.ID, ch.Intent.ClusterID, cluster)
	case ch.Outcome != nil:
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, ch.Intent.ID, "reassign: run %s ended at %s: nothing to resume", ch.Intent.ID, ch.Outcome.Time)
	}
	var args runArgs
	var before []engine.ReplicasBefore
	if err := auditlog.DecodeField(ch.Intent.Args, &args); err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, ch.Intent.ID, "reassign: run %s: its arguments: %v", ch.Intent.ID, err)
	}
	if err := auditlog.DecodeField(ch.Intent.Before, &before); err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, ch.Intent.ID, "reassign: run %s: its state before: %v", ch.Intent.ID, err)
	}
	p := &priorRun{id: ch.Intent.ID, batchOf: map[vocab.TopicPartition]int{}, throttled: args.Throttled || args.Throttle.Set()}
	was := make(map[vocab.TopicPartition][]int32, len(before))
	for _, b := range before {
		was[vocab.TopicPartition{Topic: b.Topic, Partition: b.Partition}] = b.Original()
	}
	for _, m := range args.Moves {
		tp := vocab.TopicPartition{Topic: m.Topic, Partition: m.Partition}
		p.moves = append(p.moves, Move{Topic: m.Topic, Partition: m.Partition, Current: was[tp], Target: m.Replicas})
	}
	p.batches = countBatches(changes, p)
	fill(&o.MaxMovesPerBroker, args.MaxMovesPerBroker)
	fill(&o.MaxMoves, args.MaxMoves)
	fill(&o.MaxLeaderMoves, args.MaxLeaderMoves)
	if o.Order == "" {
		o.Order = args.Order
	}
	if !o.Throttle.Set() {
		o.Throttle = args.Throttle
	}
	o.logf("info", "reassign: resuming run %s (begun %s): %d partition(s), %d batch(es) sent before", p.id, ch.Intent.Time, len(p.moves), p.batches)
	return p, nil
}

func fill(v *int, from int) {
	if *v == 0 {
		*v = from
	}
}

// findRun is the run want names: ResumeLatest, the newest reassign run on
// cluster without an outcome; else the run with that intent id. Undo's
// runs (undo_of) are not resumed: running undo again does what is left.
func findRun(changes []auditlog.Change, want, cluster string) *auditlog.Change {
	for i := len(changes) - 1; i >= 0; i-- {
		ch := &changes[i]
		if ch.Intent.Op != op || ch.Intent.UndoOf != "" {
			continue
		}
		if want == ResumeLatest {
			if ch.Outcome == nil && ch.Intent.ClusterID == cluster {
				return ch
			}
			continue
		}
		if ch.Intent.ID == want {
			return ch
		}
	}
	return nil
}

// countBatches counts the batches the run sent (its steps that are
// alter_partition_reassignments) and records which batch sent each
// partition.
func countBatches(changes []auditlog.Change, p *priorRun) int {
	n := 0
	for _, ch := range changes {
		if ch.Intent.Run != p.id || ch.Intent.Op != "alter_partition_reassignments" {
			continue
		}
		n++
		var args struct {
			Partitions []engine.PartitionTarget `json:"partitions"`
		}
		if auditlog.DecodeField(ch.Intent.Args, &args) == nil {
			for _, t := range args.Partitions {
				p.batchOf[vocab.TopicPartition{Topic: t.Topic, Partition: t.Partition}] = n
			}
		}
	}
	return n
}
