package moves

import (
	"fmt"
	"github.com/kadmin-lua/kadmin-lua/engine"
	"math"
	"strings"
	"time"
)

// Status is a run's progress after a poll: the row Options.Progress is
// given and the line the terminal shows.
type Status struct {
	Run        string `json:"run,omitempty"` // the run's intent id ("" without an audit log)
	Partitions int    `json:"partitions"`
	Done       int    `json:"done"`
	Moving     int    `json:"moving"`
	Queued     int    `json:"queued"`
	Failed     int    `json:"failed"`
	Batches    int    `json:"batches"`
	// TotalBytes is what the run copies (each move's size times the
	// brokers it joins, where the log dirs told it), CopiedBytes how much
	// of it is copied: all of a done move, what the log dirs show of one
	// moving.
	TotalBytes  int64 `json:"total_bytes"`
	CopiedBytes int64 `json:"copied_bytes"`
	// Rate is bytes copied per second over the last minute; ETASeconds
	// the time left at that rate (-1: unknown).
	Rate           int64    `json:"rate_bytes"`
	ETASeconds     int64    `json:"eta_seconds"`
	ElapsedSeconds int64    `json:"elapsed_seconds"`
	Stalled        []string `json:"stalled"` // moves whose bytes have not grown for Options.StallAfter
	// Waiting are brokers not live (down or fenced) that queued moves
	// wait for.
	Waiting  []int32 `json:"waiting_for_brokers"`
	Throttle Rates   `json:"throttle"`
}

// String is the progress line: "3 done, 2 moving, 10 queued of 15
// partitions; 120.0 MiB of 1.2 GiB copied (10.0%) at 5.0 MiB/s, ETA 3m40s;
// stalled: orders[3]".
func (s Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d done, %d moving, %d queued", s.Done, s.Moving, s.Queued)
	if s.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", s.Failed)
	}
	fmt.Fprintf(&b, " of %d partitions", s.Partitions)
	if s.TotalBytes > 0 {
		pct := math.Round(float64(s.CopiedBytes)/float64(s.TotalBytes)*1000) / 10
		fmt.Fprintf(&b, "; %s of %s copied (%.1f%%)", engine.HumanBytes(s.CopiedBytes), engine.HumanBytes(s.TotalBytes), pct)
		if s.Rate > 0 {
			fmt.Fprintf(&b, " at %s/s", engine.HumanBytes(s.Rate))
		}
		if s.ETASeconds >= 0 && s.CopiedBytes < s.TotalBytes {
			fmt.Fprintf(&b, ", ETA %s", time.Duration(s.ETASeconds)*time.Second)
		}
	}
	if len(s.Stalled) > 0 {
		shown := s.Stalled
		more := ""
		if len(shown) > 5 {
			shown, more = shown[:5], fmt.Sprintf(" and %d more", len(s.Stalled)-5)
		}
		fmt.Fprintf(&b, "; stalled: %s%s", strings.Join(shown, " "), more)
	}
	if len(s.Waiting) > 0 {
		fmt.Fprintf(&b, "; waiting for broker(s) %v (not live)", s.Waiting)
	}
	return b.String()
}

// rateWindow is how far back the copy rate looks.
const rateWindow = time.Minute

// sample is the bytes copied at a time.
type sample struct {
	at     time.Time
	copied int64
}

// rater keeps the samples of the last rateWindow (at most maxSamples:
// memory stays bounded however long the run).
type rater struct{ samples []sample }

const maxSamples = 64

// rate adds the sample and returns bytes per second over the window (0
// when it cannot tell yet).
func (r *rater) rate(at time.Time, copied int64) int64 {
	r.samples = append(r.samples, sample{at, copied})
	i := 0
	for i < len(r.samples)-2 && at.Sub(r.samples[i+1].at) >= rateWindow {
		i++
	}
	if len(r.samples)-i > maxSamples {
		i = len(r.samples) - maxSamples
	}
	r.samples = append(r.samples[:0], r.samples[i:]...)
	first := r.samples[0]
	dt := at.Sub(first.at).Seconds()
	if dt <= 0 || copied <= first.copied {
		return 0
	}
	return int64(float64(copied-first.copied) / dt)
}
