package engine

import (
	"context"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// An audited run is a change made of many calls over a long time: a paced
// reassignment (engine/moves) submits its moves in batches as earlier ones
// finish, sets and lifts throttles, elects leaders. Its intent line is
// written when it begins (the whole plan, the state before every partition
// it will touch); each call it makes is audited as usual, its intent
// marked with the run's id (run); its outcome line is written when the
// run ends. A run killed in the middle has no outcome: the log says what
// it meant to do and what it sent, and the run can be resumed from there
// (ContinueRun). Undo reverts a run as a whole, from its intent and the
// cluster, and leaves its steps alone.

type runKey struct{}

// withRun marks the mutations made under ctx as steps of run id.
func withRun(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, runKey{}, id)
}

// Run is one audited run (see above). Its zero ID means no audit log: the
// steps are plain calls and End writes nothing.
type Run struct {
	c  *Client
	op string
	// ID is the run's intent id, "" without an audit log.
	ID string
}

// BeginRun writes the intent line of run op (a row of the operations table
// marked Run) with its arguments and the state before, and returns the
// run. Under dry-run it refuses (DRY_RUN): a dry run says what it would do
// without beginning. An error means nothing may be sent.
func (c *Client) BeginRun(ctx context.Context, op string, args, before any) (*Run, error) {
	if err := runRow(op); err != nil {
		return nil, err
	}
	if c.DryRun(ctx) {
		return nil, Errorf(CodeDryRun, "", "%s: dry run: nothing was sent", op)
	}
	r := &Run{c: c, op: op}
	if log := c.cfg.Audit; log != nil {
		id, err := c.writeIntent(ctx, log, op, args, before, nil)
		if err != nil {
			return nil, err
		}
		r.ID = id
	}
	return r, nil
}

// ContinueRun is run id of op, begun earlier (by a process that ended
// before the run did): its further steps are marked with id and End writes
// its outcome.
func (c *Client) ContinueRun(op, id string) (*Run, error) {
	if err := runRow(op); err != nil {
		return nil, err
	}
	if c.cfg.Audit == nil {
		return nil, Errorf(CodeInvalidArgument, "", "%s: resuming run %s needs the audit log it was written to (--audit-log)", op, id)
	}
	return &Run{c: c, op: op, ID: id}, nil
}

func runRow(op string) error {
	if row := LookupOperation(op); row == nil || !row.Run {
		return Errorf(CodeInternal, "", "%s: not a run in the operations table; nothing was sent", op)
	}
	return nil
}

// Context marks the calls made under ctx as the run's steps.
func (r *Run) Context(ctx context.Context) context.Context { return withRun(ctx, r.ID) }

// End writes the run's outcome line: one item per key, ok when its error is
// nil; err, when not nil, is the run's failure as a whole. Without an
// audit log it writes nothing.
func (r *Run) End(items []Item, err error) error {
	log := r.c.cfg.Audit
	if r.ID == "" || log == nil {
		return nil
	}
	outs := make([]auditlog.ItemOutcome, 0, len(items))
	for _, it := range items {
		o := auditlog.ItemOutcome{Key: it.Key(), Outcome: auditlog.OutcomeOK}
		if f := it.Failure(); f != nil {
			o.Outcome, o.Error = f.Code, f.Message
		}
		outs = append(outs, o)
	}
	rec := auditlog.Record{Type: auditlog.TypeOutcome, ID: r.ID, Op: r.op, Items: outs}
	if err != nil {
		rec.Error = AsError(err, "").Error()
	}
	if werr := log.Append(rec); werr != nil {
		return &Error{Code: CodeAudit, Message: "the run ended but its outcome could not be written to the audit log: " + werr.Error()}
	}
	return nil
}
