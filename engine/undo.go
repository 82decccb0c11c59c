package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// Undo reverts what an audit log says was changed, newest first, from the
// before-states its intent lines recorded. It never touches a resource
// changed again since: the current state must be what the change left (the
// after-state), else it refuses and says why; a resource already back as it
// was is skipped. Its own changes go through the same audited path, marked
// undo_of. What cannot be undone (deleted topics and records, partition
// increases, SCRAM password changes, ...) is said plainly.

// Undo step actions.
const (
	UndoReverted    = "reverted"
	UndoWould       = "would revert" // dry run
	UndoSkipped     = "skipped"      // nothing to do: not applied, already as before, an undo itself
	UndoRefused     = "refused"      // changed since, not confirmed, another cluster...
	UndoImpossible  = "cannot undo"
	UndoFailed      = "failed" // the reverting call failed
	undoNothingDone = "nothing was applied"
)

// UndoOptions say what Undo may do.
type UndoOptions struct {
	// Since keeps the changes from this intent id (inclusive) or from this
	// time (RFC 3339, or a date) on; "" keeps them all.
	Since string
	// Select narrows the changes further, to intent ids and to items by
	// resource or config key (undo_select.go); nil keeps them all.
	Select *UndoSelection
	DryRun bool // say what would be reverted; change nothing
	// Confirm is asked before deleting a topic a change created; nil or
	// false refuses.
	Confirm func(prompt string) bool
}

// UndoStep is what Undo did, or would do, with one resource of one change.
type UndoStep struct {
	ID       string `json:"id"`
	Time     string `json:"time"`
	Op       string `json:"op"`
	Resource string `json:"resource,omitempty"`
	Action   string `json:"action"`
	Message  string `json:"message"`
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
		return nil, Errorf(CodeInvalidArgument, "", "--since %q is neither an id in the audit log nor a time (RFC 3339, e.g. 2026-11-30T10:00:00Z, or a date)", since)
	}
	var out []auditlog.Change
	for _, ch := range changes {
		if t, err := time.Parse(time.RFC3339Nano, ch.Intent.Time); err == nil && !t.Before(at) {
			out = append(out, ch)
		}
	}
	return out, nil
}

// Undo reverts changes (as auditlog.Read returns them, oldest first),
// newest first, and returns a step per resource. It fails as a whole only
// when the cluster cannot be asked who it is.
func (c *Client) Undo(ctx context.Context, changes []auditlog.Change, o UndoOptions) ([]UndoStep, error) {
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
	var steps []UndoStep
	sim := map[string]any{}
	for i := len(changes) - 1; i >= 0; i-- {
		ch := changes[i]
		u := &undoer{c: c, o: o, ch: ch, ctx: withUndoOf(ctx, ch.Intent.ID), undone: undone[ch.Intent.ID], sim: sim}
		switch {
		case ch.Intent.UndoOf != "":
			u.step("", UndoSkipped, "an undo (of %s) itself: not undone again", ch.Intent.UndoOf)
		case ch.Untrusted == "" && otherProfile(ch, c.cfg.Profile, c.cfg.Brokers) != "":
			u.step("", UndoSkipped, "%s", otherProfile(ch, c.cfg.Profile, c.cfg.Brokers))
		case ch.Intent.ClusterID != "" && ch.Intent.ClusterID != cluster:
			u.step("", UndoRefused, "recorded on cluster %s; connected to %s", ch.Intent.ClusterID, cluster)
		default:
			u.undo()
		}
		steps = append(steps, u.steps...)
	}
	return steps, nil
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

// undoer reverts one change.
type undoer struct {
	c      *Client
	o      UndoOptions
	ch     auditlog.Change
	ctx    context.Context
	undone map[string]string // item key -> the undo intent that reverted it
	// sim is, in a dry run, the state the reverts so far would have left,
	// by resource: an older change to the same resource is checked
	// against it rather than against the cluster. Keys: simKey.
	sim   map[string]any
	steps []UndoStep
}

func simKey(kind string, parts ...string) string {
	return kind + "\x00" + strings.Join(parts, "\x00")
}

// simulated returns what a dry run's earlier revert left for key, if any.
func simulated[T any](u *undoer, key string) (T, bool) {
	v, ok := u.sim[key].(T)
	return v, ok
}

// simulate records, in a dry run, what a revert would leave.
func (u *undoer) simulate(key string, v any) {
	if u.o.DryRun {
		u.sim[key] = v
	}
}

func (u *undoer) step(resource, action, format string, args ...any) {
	u.steps = append(u.steps, UndoStep{ID: u.ch.Intent.ID, Time: u.ch.Intent.Time, Op: u.ch.Intent.Op,
		Resource: resource, Action: action, Message: fmt.Sprintf(format, args...)})
}

func (u *undoer) undo() {
	if u.refuseUnverified() {
		return
	}
	in, out := u.ch.Intent, u.ch.Outcome
	if out == nil {
		u.step("", UndoRefused, "no outcome was recorded (the process ended before the call did): what it changed is unknown; look at the cluster")
		return
	}
	applied := map[string]auditlog.ItemOutcome{}
	for _, it := range out.Items {
		if by, ok := u.undone[it.Key]; ok && it.Applied() {
			u.step(it.Key, UndoSkipped, "already undone by %s", by)
			continue
		}
		if it.Applied() {
			applied[it.Key] = it
		}
	}
	if len(applied) == 0 && len(u.steps) > 0 {
		return
	}
	if len(applied) == 0 {
		msg := undoNothingDone
		if out.Error != "" {
			msg += ": " + out.Error
		}
		u.step("", UndoSkipped, "%s", msg)
		return
	}
	if in.Op == "delete_topics" || in.Op == "delete_groups" {
		u.dropMissing(applied)
		if len(applied) == 0 {
			return
		}
	}
	op := LookupOperation(in.Op)
	switch {
	case op == nil || op.Via != nil:
		u.step("", UndoImpossible, "kadmin-lua undo does not know the operation %q", in.Op)
		return
	case !op.Undoable():
		u.step(strings.Join(slices.Sorted(maps.Keys(applied)), ", "), UndoImpossible, "%s", op.Undo)
		return
	case in.BeforeError != "":
		u.step("", UndoRefused, "the state before was not recorded (%s)", in.BeforeError)
		return
	}
	err := op.revert(u, applied)
	if err != nil {
		u.step("", UndoFailed, "reading the audit line: %v", err)
	}
}

// dropMissing leaves out the topics or groups a delete with if_exists
// found missing: nothing was deleted.
func (u *undoer) dropMissing(applied map[string]auditlog.ItemOutcome) {
	var topics topicStates
	var groups GroupsBefore
	_ = auditlog.DecodeField(u.ch.Intent.Before, &topics)
	_ = auditlog.DecodeField(u.ch.Intent.Before, &groups)
	for _, k := range slices.Sorted(maps.Keys(applied)) {
		if _, known := topics[k]; (known && !topics[k].Exists && topics[k].Hidden == "") || (u.ch.Intent.Op == "delete_groups" && !groups.existed(k)) {
			u.step(k, UndoSkipped, "it did not exist: nothing was deleted")
			delete(applied, k)
		}
	}
}

// revert runs the reverting call (unless a dry run) and records the step.
func (u *undoer) revert(resource, what string, call func(ctx context.Context) error) {
	if u.o.DryRun {
		u.step(resource, UndoWould, "%s", what)
		return
	}
	if err := call(u.ctx); err != nil {
		u.step(resource, UndoFailed, "%s: %v", what, err)
		return
	}
	u.step(resource, UndoReverted, "%s", what)
}

// itemErr is a batch's first failure as an error.
func itemErr[T Item](items []T, err error) error {
	if err != nil {
		return err
	}
	if f, _ := FirstFailure(items); f != nil {
		return f
	}
	return nil
}
