// Package undo is `kadmin-lua undo`: it reads which audited changes to
// revert (--since, --id, --resource, --key), checks that the audit log can
// be trusted for each (its hash chain and key, the cluster it was recorded
// on, an outcome that agrees with its intent), and reverts them newest
// first through the admin core, whose operations table declares how each op
// is reverted (engine.Reverter). It drives the cluster through the core
// only: the core never imports it.
package undo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/moves"
	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Options say what Run may do.
type Options struct {
	// Since keeps the changes from this intent id (inclusive) or from this
	// time (RFC 3339, or a date) on; "" keeps them all.
	Since string
	// Select narrows the changes further, to intent ids and to items by
	// resource or config key (select.go); nil keeps them all.
	Select *Selection
	DryRun bool // say what would be reverted; change nothing
	// Confirm is asked before deleting a topic a change created; nil or
	// false refuses.
	Confirm func(prompt string) bool
	// Moves is how a reassign run moves back through the paced executor:
	// its lines, progress, question after Ctrl-C (nil leaves the moves
	// in flight), clock and poll interval. The caps, order and throttle
	// are the run's own.
	Moves moves.Options
}

// SelectSince keeps the changes from since on: an intent id (that change
// and every later one), or a time.
func SelectSince(changes []auditlog.Change, since string) ([]auditlog.Change, error) {
	if since == "" {
		return changes, nil
	}
	if i := slices.IndexFunc(changes, func(ch auditlog.Change) bool { return ch.Intent.ID == since }); i >= 0 {
		return changes[i:], nil
	}
	var at time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if at, err = time.Parse(layout, since); err == nil {
			break
		}
	}
	if err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, "", "--since %q is neither an id in the audit log nor a time (RFC 3339, e.g. 2026-11-30T10:00:00Z, or a date)", since)
	}
	var out []auditlog.Change
	for _, ch := range changes {
		if t, err := time.Parse(time.RFC3339Nano, ch.Intent.Time); err == nil && !t.Before(at) {
			out = append(out, ch)
		}
	}
	return out, nil
}

// Run reverts changes (as auditlog.Read returns them, oldest first) through
// c, newest first, and returns a step per resource. It fails as a whole
// only when the cluster cannot be asked who it is.
func Run(ctx context.Context, c *engine.Client, changes []auditlog.Change, o Options) ([]engine.UndoStep, error) {
	undone := undoneKeys(changes)
	changes, err := SelectSince(changes, o.Since)
	if err != nil {
		return nil, err
	}
	changes = o.Select.Select(changes)
	cluster, err := c.ClusterID(ctx)
	if err != nil {
		return nil, err
	}
	cfg := c.Config()
	r := c.Reverter(engine.RevertOptions{DryRun: o.DryRun, Confirm: o.Confirm, Move: moves.MoveBack(c, o.Moves)})
	var steps []engine.UndoStep
	for i := len(changes) - 1; i >= 0; i-- {
		ch := changes[i]
		switch {
		case ch.Intent.UndoOf != "":
			steps = append(steps, step(ch, engine.UndoSkipped, "an undo (of %s) itself: not undone again", ch.Intent.UndoOf))
		case ch.Intent.Run != "":
			steps = append(steps, step(ch, engine.UndoSkipped, "a step of run %s: undone with the run (undo --id %s)", ch.Intent.Run, ch.Intent.Run))
		case ch.Untrusted == "" && otherProfile(ch, cfg.Profile, cfg.Brokers) != "":
			steps = append(steps, step(ch, engine.UndoSkipped, "%s", otherProfile(ch, cfg.Profile, cfg.Brokers)))
		case ch.Intent.ClusterID != "" && ch.Intent.ClusterID != cluster:
			steps = append(steps, step(ch, engine.UndoRefused, "recorded on cluster %s; connected to %s", ch.Intent.ClusterID, cluster))
		default:
			if err := verifyChange(ch); err != nil {
				steps = append(steps, step(ch, engine.UndoRefused, "audit entry %s: %v", ch.Intent.ID, err))
				continue
			}
			steps = append(steps, r.Revert(ctx, ch, undone[ch.Intent.ID])...)
		}
	}
	return steps, nil
}

// step is a step about the whole of ch.
func step(ch auditlog.Change, action, format string, args ...any) engine.UndoStep {
	return engine.UndoStep{ID: ch.Intent.ID, Time: ch.Intent.Time, Op: ch.Intent.Op,
		Action: action, Message: fmt.Sprintf(format, args...)}
}

// undoneKeys maps each intent id to the item keys that later undo calls
// (intents with undo_of) reverted, and by which intent.
func undoneKeys(changes []auditlog.Change) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, ch := range changes {
		if ch.Intent.UndoOf == "" || ch.Outcome == nil || ch.Untrusted != "" {
			continue
		}
		for _, it := range ch.Outcome.Items {
			if it.Applied() {
				if out[ch.Intent.UndoOf] == nil {
					out[ch.Intent.UndoOf] = map[string]string{}
				}
				out[ch.Intent.UndoOf][it.Key] = ch.Intent.ID
			}
		}
	}
	return out
}
