package engine

import (
	"context"
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// A call that waits (wait_reassignments, a reset waiting for a group to
// empty, retries until the deadline) says what it is waiting for through
// the function its context carries; the caller decides whether and how
// often to show it (luaapi reports it on stderr every 10 s). The engine
// never prints.

type progressKey struct{}

// WithProgress returns ctx carrying fn, which long waits call with a short
// status: "3 partitions moving: orders[0] orders[1] orders[2]; 2 finished".
// fn must be quick and safe to call from any goroutine.
func WithProgress(ctx context.Context, fn func(status string)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressf reports a status on ctx's progress function, if it has one.
func progressf(ctx context.Context, format string, args ...any) {
	if fn, ok := ctx.Value(progressKey{}).(func(string)); ok && fn != nil {
		fn(fmt.Sprintf(format, args...))
	}
}

// ReportProgress reports status on ctx's progress function, if it has
// one: the packages above the core (a paced reassignment) say what they
// wait for the way the core's own waits do.
func ReportProgress(ctx context.Context, status string) { progressf(ctx, "%s", status) }

// wantsProgress reports whether ctx carries a progress function: work done
// only to be reported (measuring the bytes a move copied) is skipped
// without one.
func wantsProgress(ctx context.Context) bool {
	fn, ok := ctx.Value(progressKey{}).(func(string))
	return ok && fn != nil
}

// ReassignProgress is wait_reassignments' status: the partitions still
// moving (the first five named) and how many have finished.
func ReassignProgress(moving []Reassignment, finished int) string {
	s := fmt.Sprintf("%d partition(s) moving", len(moving))
	for i, r := range moving {
		if i == 5 {
			s += fmt.Sprintf(" +%d more", len(moving)-5)
			break
		}
		if i == 0 {
			s += ":"
		}
		s += " " + vocab.PartitionKey(r.Topic, r.Partition)
	}
	return fmt.Sprintf("%s; %d finished", s, finished)
}
