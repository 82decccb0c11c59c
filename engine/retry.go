package engine

import (
	"context"
	"errors"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// retryCall runs fn until it succeeds, fails with a non-retriable error, or
// ctx ends. Only for requests that change nothing (reads), or whose failure
// means nothing was applied.
func retryCall(ctx context.Context, resource string, fn func(context.Context) error) *Error {
	for attempt := 0; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		e := AsError(err, resource)
		if e.Retriable {
			progressf(ctx, "retrying (attempt %d): %s", attempt+1, e)
		}
		if !e.Retriable || !vocab.Backoff(ctx, attempt) {
			if ctx.Err() != nil && e.Code != CodeTimeout && e.Code != CodeCanceled {
				// Say why we stopped retrying, and what we last saw.
				e = ctxError(ctx, resource, e)
			}
			return e
		}
	}
}

// ctxError is the error for an item still failing when the call's context
// ended: TIMEOUT (or CANCELED), carrying the last error seen.
func ctxError(ctx context.Context, resource string, last *Error) *Error {
	e := AsError(ctx.Err(), resource)
	if errors.Is(e, errCallEnded) {
		return e // the client ended the call, and says why (first_contact.go)
	}
	if last != nil && last.Code == e.Code {
		return last // already says it timed out (and what it saw before)
	}
	if last != nil && last.Code != e.Code {
		e.Message += "; last error: " + last.Code
		if last.Message != "" && last.Message != last.Code {
			e.Message += ": " + last.Message
		}
	}
	return e
}

// retryItems runs a per-item request until every item has a final answer or
// ctx ends. do is called with the keys still pending and returns each key's
// answer (nil for success) — keys it does not answer count as retriable
// failures. Whole-request errors that are retriable are retried too.
func retryItems[K comparable](ctx context.Context, keys []K, resource func(K) string,
	do func(context.Context, []K) (map[K]*Error, error),
) map[K]*Error {
	final := make(map[K]*Error, len(keys))
	pending := keys
	for attempt := 0; len(pending) > 0; attempt++ {
		answers, err := do(ctx, pending)
		var next []K
		for _, k := range pending {
			var e *Error
			if err != nil && ctx.Err() != nil && final[k] != nil {
				// The deadline ended this attempt: keep what the last
				// answer said, so the TIMEOUT can name it.
				e = ctxError(ctx, resource(k), final[k])
			} else if err != nil {
				e = AsError(err, resource(k))
			} else if a, ok := answers[k]; ok {
				e = a
			} else {
				e = &Error{Code: CodeUnknown, Message: "no answer from the broker", Retriable: true, Resource: resource(k)}
			}
			final[k] = e
			if e != nil && e.Retriable {
				next = append(next, k)
			}
		}
		pending = next
		if len(pending) > 0 {
			progressf(ctx, "retrying %d item(s) (attempt %d): %s", len(pending), attempt+1, final[pending[0]])
		}
		if len(pending) > 0 && !vocab.Backoff(ctx, attempt) {
			for _, k := range pending {
				final[k] = ctxError(ctx, resource(k), final[k])
			}
			break
		}
	}
	return final
}
