package moves

import (
	"context"
	"encoding/json"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/placement"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// MoveBack is the engine.MoveBack of client c: undo of a reassign run
// carries the partitions it completed back to their replicas before as a
// run of its own (marked undo_of, through the caller's context), under the
// caps, order and throttle the run had. base gives the rest (its lines,
// progress, question after Ctrl-C, clock and poll interval), and its
// throttle, when set (undo --throttle), replaces the run's; its caps,
// order and resume are not used. A run throttled by a function (which the
// audit log cannot hold) and no throttle given: the move back runs
// unthrottled, and says so.
func MoveBack(c *engine.Client, base Options) engine.MoveBack {
	return func(ctx context.Context, back []placement.Partition, runArgsJSON json.RawMessage) (map[string]error, error) {
		var a runArgs
		if err := auditlog.DecodeField(runArgsJSON, &a); err != nil {
			return nil, err
		}
		o := base
		o.MaxMovesPerBroker, o.MaxMoves, o.MaxLeaderMoves = a.MaxMovesPerBroker, a.MaxMoves, a.MaxLeaderMoves
		o.Order, o.Rethrottle, o.Resume = a.Order, nil, ""
		if !base.Throttle.Set() {
			o.Throttle = a.Throttle
			if a.Throttled && !a.Throttle.Set() {
				o.logf("warn", "reassign: the run was throttled by a function, which the audit log cannot hold: this move back is not throttled (undo --throttle BYTES sets a rate)")
			}
		}
		plan := make([]Move, len(back))
		for i, p := range back {
			plan[i] = Move{Topic: p.Topic, Partition: p.Partition, Current: p.Current, Target: p.Target}
		}
		res, err := Execute(ctx, c, plan, o)
		if res == nil {
			return nil, err
		}
		failed := map[string]error{}
		for _, r := range res {
			switch {
			case r.State == StateDone:
			case r.Err != nil:
				failed[r.Key()] = r.Err
			case err != nil:
				failed[r.Key()] = err
			default:
				failed[r.Key()] = vocab.Errorf(vocab.CodeUnknown, r.Key(), "%s when the move back ended", r.State)
			}
		}
		return failed, nil
	}
}
