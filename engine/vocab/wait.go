package vocab

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff sleeps before attempt n+1 (100ms doubling to 1s, with jitter). It
// returns false, without sleeping the whole time, when ctx ends first.
func Backoff(ctx context.Context, attempt int) bool {
	d := 100 * time.Millisecond << min(attempt, 4)
	d = min(d, time.Second)
	return SleepCtx(ctx, d/2+rand.N(d/2+1))
}

// SleepCtx sleeps d; false, without sleeping the whole time, when ctx ends
// first.
func SleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
