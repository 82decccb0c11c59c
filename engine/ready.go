package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// The readiness gate for provisioning jobs (wait_ready): a Job that makes
// topics or ACLs against a cluster that is still starting must wait until
// the cluster can take them, and fail plainly when it never does, rather
// than run against half a cluster ("fail silently", bitnami/charts#13619).

// Readiness defaults.
const (
	DefaultReadyTimeout  = 5 * time.Minute
	DefaultReadyInterval = time.Second
)

// ReadyOptions say what ready is and how long to wait for it.
type ReadyOptions struct {
	// Brokers is how many brokers must be live (registered and unfenced:
	// the metadata lists them); at least 1.
	Brokers int
	// Timeout bounds the whole wait (DefaultReadyTimeout).
	Timeout time.Duration
	// Interval is the time between looks (DefaultReadyInterval).
	Interval time.Duration
}

// Readiness is what the last look saw.
type Readiness struct {
	Brokers         int      `json:"brokers"`          // live brokers
	UnderReplicated []string `json:"under_replicated"` // partitions with fewer in-sync replicas than replicas, "topic[p]"
	Offline         []string `json:"offline"`          // partitions without a leader
	WaitedMs        int64    `json:"waited_ms"`
}

// ready reports whether r is what o asks for.
func (r *Readiness) ready(o ReadyOptions) bool {
	return r.Brokers >= o.Brokers && len(r.UnderReplicated) == 0 && len(r.Offline) == 0
}

// WaitReady looks at the cluster every Interval until at least Brokers
// brokers are live and no partition is under-replicated or offline, and
// returns what it saw then. A cluster that cannot be reached yet (still
// starting) is looked at again; one that is not ready within Timeout is a
// TIMEOUT error saying what was missing at the last look.
func (c *Client) WaitReady(ctx context.Context, o ReadyOptions) (*Readiness, error) {
	o.Brokers = max(o.Brokers, 1)
	if o.Timeout <= 0 {
		o.Timeout = DefaultReadyTimeout
	}
	if o.Interval <= 0 {
		o.Interval = DefaultReadyInterval
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	end, _ := ctx.Deadline()
	var last *Readiness
	var lastErr error
	for {
		pollCtx, cancelPoll := c.callCtx(ctx)
		r, err := c.readiness(pollCtx)
		cancelPoll()
		if err == nil {
			last, lastErr = r, nil
			r.WaitedMs = time.Since(start).Milliseconds()
			if r.ready(o) {
				return r, nil
			}
			progressf(ctx, "waiting for the cluster: %s", r.missing(o))
		} else {
			// The wait's own end cut the look short. The look's deadline
			// is the wait's, on a timer of its own that may fire first:
			// its time, not ctx.Err(), says so.
			if ctx.Err() != nil || !time.Now().Before(end) {
				return nil, readyTimeout(ctx, o, last, lastErr)
			}
			lastErr = err
			if e := AsError(err, ""); !e.Retriable && e.Code != CodeNetwork && e.Code != CodeTimeout {
				return nil, e // refused, not starting: waiting does not help
			}
			progressf(ctx, "waiting for the cluster: %v", err)
		}
		t := time.NewTimer(o.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, readyTimeout(ctx, o, last, lastErr)
		case <-t.C:
		}
	}
}

// readiness looks at the cluster once: one Metadata request.
func (c *Client) readiness(ctx context.Context) (*Readiness, error) {
	meta, err := c.rawMetadata(ctx)
	if err != nil {
		return nil, err
	}
	r := &Readiness{Brokers: len(meta.Brokers), UnderReplicated: []string{}, Offline: []string{}}
	for _, t := range meta.Topics {
		if t.Topic == nil {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			// Its partitions are not known to have leaders (being made:
			// LEADER_NOT_AVAILABLE): offline until they are, not skipped.
			code := err.Error()
			if ke, ok := err.(*kerr.Error); ok {
				code = ke.Message
			}
			r.Offline = append(r.Offline, *t.Topic+": "+code)
			continue
		}
		for _, p := range t.Partitions {
			key := vocab.PartitionKey(*t.Topic, p.Partition)
			switch {
			case p.Leader < 0:
				r.Offline = append(r.Offline, key)
			case len(p.ISR) < len(p.Replicas):
				r.UnderReplicated = append(r.UnderReplicated, key)
			}
		}
	}
	slices.Sort(r.Offline)
	slices.Sort(r.UnderReplicated)
	return r, nil
}

// missing says what r lacks of o.
func (r *Readiness) missing(o ReadyOptions) string {
	var parts []string
	if r.Brokers < o.Brokers {
		parts = append(parts, fmt.Sprintf("%d of %d brokers live", r.Brokers, o.Brokers))
	}
	for _, x := range []struct {
		what string
		list []string
	}{{"offline", r.Offline}, {"under-replicated", r.UnderReplicated}} {
		if len(x.list) > 0 {
			shown := x.list[:min(len(x.list), 5)]
			more := ""
			if len(x.list) > len(shown) {
				more = fmt.Sprintf(" and %d more", len(x.list)-len(shown))
			}
			parts = append(parts, fmt.Sprintf("%d partitions %s (%s%s)", len(x.list), x.what, strings.Join(shown, ", "), more))
		}
	}
	return strings.Join(parts, "; ")
}

func readyTimeout(ctx context.Context, o ReadyOptions, last *Readiness, lastErr error) *Error {
	if err := ctx.Err(); err != nil && err != context.DeadlineExceeded {
		return AsError(err, "") // canceled (Ctrl-C, SIGTERM)
	}
	e := &Error{Code: CodeTimeout, Retriable: true}
	switch {
	case lastErr != nil:
		e.Message = fmt.Sprintf("the cluster was not ready after %s: it could not be asked (%v)", o.Timeout, lastErr)
	case last != nil:
		e.Message = fmt.Sprintf("the cluster was not ready after %s: %s", o.Timeout, last.missing(o))
	default:
		e.Message = fmt.Sprintf("the cluster was not ready after %s: no answer", o.Timeout)
	}
	return e
}
