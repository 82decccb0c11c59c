package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// Reverting audited changes: each op's reverter is declared in its row of
// the operations table (operations.go) and written here (revert_ops.go) or
// beside its area (raft_voters.go). undo (engine/undo) selects the changes
// to revert, checks that the audit log can be trusted for them and calls
// Reverter.Revert newest first. A revert never touches a resource changed
// again since: the current state must be what the change left (the
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

// RevertOptions say what a Reverter may do.
type RevertOptions struct {
	DryRun bool // say what would be reverted; change nothing
	// Confirm is asked before deleting a topic a change created; nil or
	// false refuses.
	Confirm func(prompt string) bool
	// Move carries partitions back through the paced executor
	// (engine/moves), for the undo of a reassign run; nil refuses it.
	Move MoveBack
}

// UndoStep is what undo did, or would do, with one resource of one change.
type UndoStep struct {
	ID       string `json:"id"`
	Time     string `json:"time"`
	Op       string `json:"op"`
	Resource string `json:"resource,omitempty"`
	Action   string `json:"action"`
	Message  string `json:"message"`
}

// Reverter reverts audited changes through a client, one at a time. In a
// dry run it remembers what each revert would leave, so that an older
// change to the same resource is checked against that rather than against
// the cluster.
type Reverter struct {
	c   *Client
	o   RevertOptions
	sim map[string]any
}

// Reverter returns a reverter of changes through c, for one undo run.
func (c *Client) Reverter(o RevertOptions) *Reverter {
	return &Reverter{c: c, o: o, sim: map[string]any{}}
}

// Revert reverts the items of ch its outcome says were applied, by the
// reverter its op's row declares, and returns a step per resource. undone
// maps the item keys a later undo reverted already to that undo's intent
// id. ch must be verified first (undo does): Revert trusts what it says.
func (r *Reverter) Revert(ctx context.Context, ch auditlog.Change, undone map[string]string) []UndoStep {
	u := &undoer{c: r.c, o: r.o, ch: ch, ctx: withUndoOf(ctx, ch.Intent.ID), undone: undone, sim: r.sim}
	u.undo()
	return u.steps
}

// undoer reverts one change.
type undoer struct {
	c      *Client
	o      RevertOptions
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
	in, out := u.ch.Intent, u.ch.Outcome
	if op := LookupOperation(in.Op); out == nil && op != nil && op.Run && op.Undoable() {
		// A run killed in the middle has no outcome, and may never have
		// one: what it changed is read from the cluster, partition by
		// partition, against its intent.
		if in.BeforeError != "" {
			u.step("", UndoRefused, "the state before was not recorded (%s)", in.BeforeError)
			return
		}
		if err := op.revert(u, nil); err != nil {
			u.step("", UndoFailed, "reading the audit line: %v", err)
		}
		return
	}
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
	var topics TopicsBefore
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
