package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/placement"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// MoveBack carries partitions back through the paced executor
// (engine/moves, which the core cannot import: engine/undo passes it in
// RevertOptions). back lists each partition with its replicas now
// (Current, as the run left them) and before (Target); runArgs are the
// run's intent arguments, whose caps the moves back keep. It returns the
// error of each partition key that did not get back (a run interrupted
// half-way names the rest); a key missing from the map got back. err says
// that nothing was moved.
type MoveBack func(ctx context.Context, back []placement.Partition, runArgs json.RawMessage) (map[string]error, error)

// ReassignRunArgs is what the core reads of a reassign run's intent
// arguments (engine/moves writes them, with its caps besides): the
// partitions and the replicas the run moves them to.
type ReassignRunArgs struct {
	Moves []PartitionTarget `json:"moves"`
}

// reassignRun reverts a reassign run: each partition it completed, and
// that nobody changed since, goes back to its replicas before, through the
// paced executor with the run's caps. applied is nil for a run without an
// outcome (killed in the middle): then every partition of its plan is
// looked at, and only those the cluster shows as the run left them move.
func (u *undoer) reassignRun(applied map[string]auditlog.ItemOutcome) error {
	var before []ReplicasBefore
	if err := auditlog.DecodeField(u.ch.Intent.Before, &before); err != nil {
		return err
	}
	var args ReassignRunArgs
	if err := auditlog.DecodeField(u.ch.Intent.Args, &args); err != nil {
		return err
	}
	beforeOf := make(map[TopicPartition]ReplicasBefore, len(before))
	for _, b := range before {
		beforeOf[TopicPartition{Topic: b.Topic, Partition: b.Partition}] = b
	}
	var parts []PartitionTarget
	for _, m := range args.Moves {
		key := vocab.PartitionKey(m.Topic, m.Partition)
		if applied != nil {
			if _, ok := applied[key]; !ok {
				continue
			}
		} else if by, ok := u.undone[key]; ok {
			u.step(key, UndoSkipped, "already undone by %s", by)
			continue
		}
		parts = append(parts, m)
	}
	if len(parts) == 0 {
		if len(u.steps) == 0 {
			u.step("", UndoSkipped, "%s", undoNothingDone)
		}
		return nil
	}
	now, err := u.c.replicasNow(u.ctx, parts)
	if err != nil {
		u.step("", UndoFailed, "reading the replicas: %v", err)
		return nil
	}
	var back []placement.Partition
	for i, p := range parts {
		key := vocab.PartitionKey(p.Topic, p.Partition)
		b, ok := beforeOf[TopicPartition{Topic: p.Topic, Partition: p.Partition}]
		if !ok {
			u.step(key, UndoRefused, "the run recorded no replicas before for it")
			continue
		}
		cur, orig := now[i], b.Original()
		if v, ok := simulated[[]int32](u, simKey("replicas", key)); ok {
			cur.Replicas = v
		}
		switch {
		case cur.Missing:
			u.step(key, UndoSkipped, "the partition does not exist any more")
		case len(cur.Adding) > 0 || len(cur.Removing) > 0:
			u.step(key, UndoRefused, "a reassignment is in progress (replicas %v, adding %v, removing %v): resume the run (reassign with resume) or cancel it (cancel_partition_reassignments) first",
				cur.Replicas, cur.Adding, cur.Removing)
		case slices.Equal(cur.Replicas, orig):
			u.step(key, UndoSkipped, "already as before (%v)", cur.Replicas)
		case !slices.Equal(cur.Replicas, p.Replicas):
			u.step(key, UndoRefused, "changed since: replicas are %v, the run left %v", cur.Replicas, p.Replicas)
		default:
			back = append(back, placement.Partition{Topic: p.Topic, Partition: p.Partition, Current: cur.Replicas, Target: orig,
				Moves: len(slices.DeleteFunc(slices.Clone(orig), func(r int32) bool { return slices.Contains(cur.Replicas, r) }))})
		}
	}
	if len(back) == 0 {
		return nil
	}
	if u.o.DryRun {
		for _, p := range back {
			key := vocab.PartitionKey(p.Topic, p.Partition)
			u.simulate(simKey("replicas", key), p.Target)
			u.step(key, UndoWould, "move back to %v", p.Target)
		}
		return nil
	}
	if u.o.Move == nil {
		for _, p := range back {
			u.step(vocab.PartitionKey(p.Topic, p.Partition), UndoRefused, "a reassign run is moved back through the paced executor, which this undo was not given")
		}
		return nil
	}
	failed, err := u.o.Move(u.ctx, back, u.ch.Intent.Args)
	for _, p := range back {
		key := vocab.PartitionKey(p.Topic, p.Partition)
		what := fmt.Sprintf("move back to %v", p.Target)
		switch {
		case err != nil:
			u.step(key, UndoFailed, "%s: %v", what, err)
		case failed[key] != nil:
			u.step(key, UndoFailed, "%s: %v", what, failed[key])
		default:
			u.step(key, UndoReverted, "%s", what)
		}
	}
	return nil
}
