package engine

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// CodeAudit: the audit log could not be written. When the intent line
// fails nothing was sent; when the outcome line fails the change was made.
const CodeAudit = "AUDIT_LOG"

// auditor is the cluster id a client's intent lines carry (asked once).
type auditor struct {
	mu        sync.Mutex
	clusterID string
}

type undoKey struct{}

type dryRunKey struct{}

// WithDryRun marks the calls made under ctx as a dry run, whatever the
// client's configuration says: kafka.dry_run(true) raises a run's dry-run
// this way on a client it shares with other runs (loop mode). Nothing can
// lower a client's Config.DryRun.
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// DryRun reports whether calls made under ctx on c must change nothing.
func (c *Client) DryRun(ctx context.Context) bool {
	return c.cfg.DryRun || ctx.Value(dryRunKey{}) != nil
}

// withUndoOf marks the mutations made under ctx as undoing intent id.
func withUndoOf(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, undoKey{}, id)
}

// mutation is one mutating request as the engine sends it: every method
// that changes the cluster goes through mutate, which writes the intent
// (and refuses to send without it), sends, looks after an unknown outcome,
// and writes the outcome.
type mutation[B, R any] struct {
	op           string   // the Lua function's name: "create_topics"
	args         any      // the typed arguments, JSON-tagged; secrets as Secret or left out
	keys         []string // the items' keys, for a call that fails as a whole
	validateOnly bool     // the broker only checks: nothing changes, nothing is written
	// needBefore: send decides outcomes from the state before (topics that
	// existed, ACLs a filter matched), so before runs even without an
	// audit log, and its failure fails the call before anything is sent.
	needBefore bool
	before     func(ctx context.Context) (B, error)
	send       func(ctx context.Context, before B) (R, error)
	items      func(R) []Item
	// look resolves unknown outcomes (keys in unknown) by looking at the
	// cluster: it returns the result corrected to what it found and, per
	// key, auditlog.FoundApplied, auditlog.FoundNotApplied or auditlog.FoundUndetermined.
	look func(ctx context.Context, before B, res R, err error, unknown map[string]bool) (R, error, map[string]string)
	// detail is what undo needs to know about an applied item (a created
	// topic's id, the ACLs a filter deleted); nil when nothing.
	detail func(before B, res R, key string) any
}

// mutate runs m: see mutation.
func mutate[B, R any](ctx context.Context, c *Client, m mutation[B, R]) (R, error) {
	var zero R
	op := LookupOperation(m.op)
	if op == nil || op.Via != nil {
		// Every mutation has its row (operations.go): what it does under
		// dry-run and undo is declared, not remembered.
		return zero, Errorf(CodeInternal, "", "%s: no row in the operations table; nothing was sent", m.op)
	}
	if !m.validateOnly && c.DryRun(ctx) {
		// The floor of every dry run: whatever a caller forgot, only
		// Kafka's validate_only requests go out.
		return zero, Errorf(CodeDryRun, "", "%s: dry run: nothing was sent", m.op)
	}
	log := c.cfg.Audit
	if m.validateOnly {
		log = nil
	}
	var before B
	var beforeErr error
	if m.before != nil && (log != nil || m.needBefore) {
		before, beforeErr = m.before(ctx)
		if beforeErr != nil && (m.needBefore || ctx.Err() != nil) {
			return zero, beforeErr
		}
	}
	var id string
	if log != nil {
		var b any
		if m.before != nil && beforeErr == nil {
			b = before
		}
		var err error
		if id, err = c.writeIntent(ctx, log, m.op, m.args, b, beforeErr); err != nil {
			return zero, err
		}
	}
	var res R
	var err error
	if ctx.Err() != nil {
		err = AsError(ctx.Err(), "") // nothing was sent
	} else {
		res, err = m.send(ctx, before)
	}
	// Without an audit log only the unknown outcomes are wanted: a call
	// builds no outcome records to throw away.
	outs, unknown := outcomes(m, res, err, log != nil)
	if len(unknown) > 0 && m.look != nil {
		// Looking needs a context of its own: the call's may be over.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(c.cfg.timeout(), 10*time.Second))
		var found map[string]string
		res, err, found = m.look(lctx, before, res, err, unknown)
		cancel()
		for i := range outs {
			if unknown[outs[i].Key] {
				outs[i].Found = found[outs[i].Key]
				if outs[i].Found == "" {
					outs[i].Found = auditlog.FoundUndetermined
				}
			}
		}
	}
	if log == nil {
		return res, err
	}
	if m.detail != nil {
		for i := range outs {
			if !outs[i].Applied() {
				continue
			}
			if d := m.detail(before, res, outs[i].Key); d != nil {
				raw, jerr := auditlog.RedactedJSON(d)
				if jerr != nil {
					return res, &Error{Code: CodeAudit, Message: "the change was made but its outcome cannot be written to the audit log: " + jerr.Error()}
				}
				outs[i].Detail = raw
			}
		}
	}
	rec := auditlog.Record{Type: auditlog.TypeOutcome, ID: id, Op: m.op, Items: outs}
	if err != nil {
		rec.Error = AsError(err, "").Error()
	}
	if werr := log.Append(rec); werr != nil {
		return res, &Error{Code: CodeAudit, Message: "the change was sent but its outcome could not be written to the audit log: " + werr.Error()}
	}
	return res, err
}

// outcomes turns a result into per-item audit outcomes (when all), and the
// keys whose outcome is unknown (nil when none).
func outcomes[B, R any](m mutation[B, R], res R, err error, all bool) ([]auditlog.ItemOutcome, map[string]bool) {
	var items []Item
	if m.items != nil && err == nil {
		items = m.items(res)
	}
	var unknown map[string]bool
	var outs []auditlog.ItemOutcome
	if all {
		outs = make([]auditlog.ItemOutcome, 0, max(len(items), len(m.keys)))
	}
	add := func(key string, f *Error) {
		if f != nil && unknownOutcome(f) {
			if unknown == nil {
				unknown = map[string]bool{}
			}
			unknown[key] = true
		}
		if !all {
			return
		}
		o := auditlog.ItemOutcome{Key: key, Outcome: auditlog.OutcomeOK}
		if f != nil {
			o.Outcome, o.Error = f.Code, f.Message
			if unknownOutcome(f) {
				o.Outcome = auditlog.OutcomeUnknown
				o.Error = f.Code + ": " + f.Message
			}
		}
		outs = append(outs, o)
	}
	if err != nil {
		e := AsError(err, "")
		for _, k := range m.keys {
			add(k, e)
		}
		return outs, unknown
	}
	for _, it := range items {
		if f := it.Failure(); f != nil || all {
			add(it.Key(), f) // Key formats some names: only when wanted
		}
	}
	return outs, unknown
}

// UnknownOutcome reports whether a request that failed with e may or may
// not have been applied (a timeout, a cancel, a broken connection): the
// cluster must be asked, never guessed at.
func UnknownOutcome(e *Error) bool { return e != nil && unknownOutcome(e) }

// unknownOutcome reports errors after which a request may or may not have
// been applied: the broker timed out, the call's deadline or a cancel cut
// it, the connection broke, or no answer came.
func unknownOutcome(e *Error) bool {
	switch e.Code {
	case kerr.RequestTimedOut.Message, CodeTimeout, CodeCanceled, CodeNetwork, CodeUnknown:
		return true
	}
	return false
}

// writeIntent writes and syncs the intent line; an error means nothing may
// be sent.
func (c *Client) writeIntent(ctx context.Context, log *auditlog.Log, op string, args, before any, beforeErr error) (string, error) {
	argsJSON, err := auditlog.RedactedJSON(args)
	if err != nil {
		return "", Errorf(CodeInvalidArgument, "", "%s: the arguments cannot be written to the audit log (%v); nothing was sent", op, err)
	}
	beforeJSON, err := auditlog.RedactedJSON(before)
	if err != nil {
		return "", Errorf(CodeInvalidArgument, "", "%s: the state before cannot be written to the audit log (%v); nothing was sent", op, err)
	}
	cid, err := c.auditClusterID(ctx)
	if err != nil {
		return "", err
	}
	rec := auditlog.Record{Type: auditlog.TypeIntent, ID: log.NewID(), Op: op, ClusterID: cid,
		Brokers: c.cfg.Brokers, Profile: c.cfg.Profile, Args: argsJSON, Before: beforeJSON}
	if c.cfg.SASL != nil {
		rec.User = c.cfg.SASL.Username
	}
	if id, ok := ctx.Value(undoKey{}).(string); ok {
		rec.UndoOf = id
	}
	if id, ok := ctx.Value(runKey{}).(string); ok {
		rec.Run = id
	}
	if beforeErr != nil {
		rec.BeforeError = AsError(beforeErr, "").Error()
	}
	if err := log.Append(rec); err != nil {
		return "", &Error{Code: CodeAudit, Err: err,
			Message: "cannot write the intent line to the audit log (" + err.Error() + "); nothing was sent"}
	}
	return rec.ID, nil
}

// auditClusterID is the cluster's id, asked once per client.
func (c *Client) auditClusterID(ctx context.Context) (string, error) {
	c.aud.mu.Lock()
	id := c.aud.clusterID
	c.aud.mu.Unlock()
	if id != "" {
		return id, nil
	}
	if e := retryCall(ctx, "", func(ctx context.Context) error {
		resp, err := c.rawMetadata(ctx, []string{}...)
		if err == nil && resp.ClusterID != nil {
			id = *resp.ClusterID
		}
		return err
	}); e != nil {
		return "", e
	}
	c.aud.mu.Lock()
	c.aud.clusterID = id
	c.aud.mu.Unlock()
	return id, nil
}

// ClusterID is the id of the cluster the client talks to.
func (c *Client) ClusterID(ctx context.Context) (string, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.auditClusterID(ctx)
}

// asItems is a batch result as Items: pointers to its elements (an element
// itself, boxed, would be a copy and an allocation each).
func asItems[T any, P interface {
	*T
	Item
}](rs []T) []Item {
	out := make([]Item, len(rs))
	for i := range rs {
		out[i] = P(&rs[i])
	}
	return out
}

// oneItem is the Items of a call with a single result named key.
func oneItem(key string, err *Error) []Item { return []Item{singleItem{key, err}} }

type singleItem struct {
	key string
	err *Error
}

func (s singleItem) Key() string     { return s.key }
func (s singleItem) Failure() *Error { return s.err }
