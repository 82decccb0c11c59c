// Package verdicts is Burrow's lag evaluator (github.com/linkedin/Burrow,
// core/internal/evaluator/caching.go, calculatePartitionStatus) as a pure
// function over one partition's window of samples, and the group verdict
// folded from its partitions'. lag_status (engine) feeds it the windows the
// state store (engine/state) keeps between runs; it reads no cluster and
// no file. Its rules, in its order:
//
//  1. the current lag is within the allowed lag: OK;
//  2. the time since the last commit exceeds the window's span, and the
//     recent end offsets do not show the consumer caught up: STOP;
//  3. an offset went backwards and has not come back up to where it was:
//     REWIND;
//  4. the lag was within the allowed lag somewhere in the window: OK;
//  5. the offset never moved: STALL (observed without commits: OK while
//     it has stood still no longer than it used to, see stopped);
//  6. the lag never decreased: WARN (not when the recent end offsets show
//     the consumer caught up: see LagRuleCaughtUp);
//  7. else OK.
//
// kadmin-lua samples once per run rather than storing commits, so where a
// sample differs from a commit the docs (docs/decisions.md, "Lag verdicts:
// Burrow's rules on per-run samples") say how; the rule ids below are
// documented there too. The one rule that differs is STOP on observations
// (no live member commits): there the reference is not the window's span
// but how long the offset has been seen to stand still between moves.
package verdicts

// Partition statuses (Burrow's) and group statuses.
const (
	LagStatusOK     = "OK"
	LagStatusWarn   = "WARN"
	LagStatusStall  = "STALL"
	LagStatusStop   = "STOP"
	LagStatusRewind = "REWIND"

	GroupStatusOK       = "OK"
	GroupStatusWarn     = "WARN"
	GroupStatusErr      = "ERR"
	GroupStatusNotFound = "NOTFOUND"
)

// The rules a verdict names (PartitionVerdict.Rule): stable ids.
const (
	LagRuleNoSamples       = "no_samples"         // OK: no sample carries a committed offset
	LagRuleLagUnknown      = "lag_unknown"        // OK: the current lag is unknown
	LagRuleWithinAllowed   = "within_allowed_lag" // OK: the current lag is at most allowed_lag
	LagRuleStopped         = "stopped"            // STOP: no commit for longer than the window spans (observations: than the offset used to stand still)
	LagRuleRewound         = "rewound"            // REWIND: the offset went back and has not recovered
	LagRuleLagZeroInWindow = "lag_zero_in_window" // OK: the lag was within allowed_lag in the window
	LagRuleWindowTooShort  = "window_too_short"   // OK: the samples span no time: no trend to judge
	LagRuleUsualPause      = "within_usual_pause" // OK: observed, the offset has not moved, but for no longer than it used to stand still
	LagRuleStalled         = "stalled"            // STALL: the offset never moved, with lag throughout
	LagRuleNotDecreasing   = "lag_not_decreasing" // WARN: the offset moves but the lag never decreased
	LagRuleCaughtUp        = "recently_caught_up" // OK: the lag never decreased, but the consumer read past a recent end offset
	LagRuleDecreasing      = "lag_decreasing"     // OK: the lag decreased somewhere in the window
	// LagRuleWindowIncomplete is lag_status's, not EvaluateLag's: a
	// lagging partition whose window covers less than min_complete of its
	// span is not judged (Burrow's minimum-complete), and its group says so.
	LagRuleWindowIncomplete = "window_incomplete"
)

// LagSample is one sample of a partition's committed offset.
type LagSample struct {
	Offset int64  `json:"offset"`        // the committed offset
	TimeMs int64  `json:"time"`          // when it was taken (ms since the epoch)
	Lag    *int64 `json:"lag,omitempty"` // the lag then; nil when unknown
}

// EvaluateOptions are EvaluateLag's inputs besides the window.
type EvaluateOptions struct {
	NowMs      int64
	EndOffsets []int64 // the partition's recent end offsets, oldest first (may be empty)
	CurrentLag *int64  // nil: the newest sample's lag
	AllowedLag int64   // a current lag at or below this is OK (default 0)
	// Committing: each sample stands for a commit the consumer made, as in
	// Burrow's input (set it when a live group member owns the partition:
	// consumers commit periodically, moving or not). False: the samples are
	// only observations, and the last commit is taken to be the first
	// sample that saw the newest offset (when the offset last changed).
	Committing bool
	// For observations (Committing false), what the caller remembers
	// beyond the window (lag_status: its state store); zero when it does
	// not know. ChangedMs is when the newest offset was first seen (0: the
	// window's first sample carrying it); PauseMs is how long the offset
	// before it had stood still (from when it was first seen to when the
	// newest was).
	ChangedMs int64
	PauseMs   int64
}

// stillFactor: on observations a partition is STOP once its offset has
// stood still this many times as long as the longest it was seen to stand
// still before (so that a commit a little late is not a stop).
const stillFactor = 1.5

// PartitionVerdict is EvaluateLag's answer.
type PartitionVerdict struct {
	Status string `json:"status"` // one of LagStatus*
	Rule   string `json:"rule"`   // which rule decided, a stable snake_case id documented in docs
}

// EvaluateLag judges one partition's window of samples, oldest first, with
// Burrow's rules. The samples are taken in the order given (the order they
// were sampled in), never reordered: a time earlier than the sample before
// it (the clock stepped back) counts as that sample's time, and a NowMs
// earlier than the newest sample counts as the newest sample's time (0
// judges the window as of its newest sample). A sample with a negative
// offset (no commit) is left out; a negative lag is unknown, like nil. It
// reads the window once and allocates nothing, whatever its length.
func EvaluateLag(samples []LagSample, opts EvaluateOptions) PartitionVerdict {
	w := scanWindow(samples, max(opts.AllowedLag, 0))
	if w.n == 0 {
		return verdict(LagStatusOK, LagRuleNoSamples)
	}
	current := opts.CurrentLag
	if current == nil {
		current = w.newestLag
	}
	allowed := max(opts.AllowedLag, 0)
	switch {
	case current == nil || *current < 0:
		return verdict(LagStatusOK, LagRuleLagUnknown)
	case *current <= allowed:
		return verdict(LagStatusOK, LagRuleWithinAllowed)
	}
	stop := stopped(w, opts)
	recent := caughtUp(w.lastOffset, opts.EndOffsets)
	if stop && !recent {
		return verdict(LagStatusStop, LagRuleStopped)
	}
	if w.rewound && !w.recovered {
		return verdict(LagStatusRewind, LagRuleRewound)
	}
	switch {
	case w.lagWithinAllowed:
		return verdict(LagStatusOK, LagRuleLagZeroInWindow)
	case w.lastMs == w.firstMs:
		return verdict(LagStatusOK, LagRuleWindowTooShort)
	case !w.moved && !opts.Committing && !stop:
		// Observed only, and still for no longer than the offset stood
		// still between its moves before (a consumer that commits less
		// often than the window spans): not a stall, which needs a
		// consumer seen committing the same offset.
		return verdict(LagStatusOK, LagRuleUsualPause)
	case !w.moved:
		return verdict(LagStatusStall, LagRuleStalled)
	case !w.lagDecreased && recent:
		// Burrow's lags are taken against end offsets it refreshed a
		// while before, so a consumer that keeps up shows zero lag and
		// rule 4 spares it; samples take the lag against the end offset
		// of the moment, which a consumer that keeps up is always a
		// little behind (what it read since its last commit). Having
		// read past a recent sample's end offset is that zero.
		return verdict(LagStatusOK, LagRuleCaughtUp)
	case !w.lagDecreased:
		return verdict(LagStatusWarn, LagRuleNotDecreasing)
	}
	return verdict(LagStatusOK, LagRuleDecreasing)
}

// stopped is Burrow's checkIfOffsetsStopped. With commits (Committing),
// exactly Burrow's: the time since the last commit (the newest sample)
// exceeds the window's span. On observations a sample only sees where the
// offset stands, not each commit: the last commit is taken to be when the
// newest offset was first seen, and the reference is how long the offset
// was seen to stand still before (the longest stretch between its moves in
// the window, or the last one the caller remembers): a partition still for
// longer than stillFactor times that has stopped. Burrow's span would be a
// consumer's whole window of commits; from runs a minute apart it made a
// consumer that died read OK for half the window (issue 27).
func stopped(w window, opts EvaluateOptions) bool {
	now := max(opts.NowMs, w.lastMs)
	if opts.Committing {
		return now-w.lastMs > w.lastMs-w.firstMs
	}
	lastCommit := w.changedMs
	if opts.ChangedMs > 0 {
		lastCommit = opts.ChangedMs
	}
	pause := max(w.longestStill, opts.PauseMs)
	return float64(now-lastCommit) > stillFactor*float64(pause)
}

func verdict(status, rule string) PartitionVerdict {
	return PartitionVerdict{Status: status, Rule: rule}
}

// window is what Burrow's rules need of a window, read in one pass.
type window struct {
	n                int   // samples with a committed offset
	firstMs, lastMs  int64 // the first and newest sample's (monotonic) time
	changedMs        int64 // the time of the first sample carrying the newest offset
	longestStill     int64 // the longest time between moves (the first from the window's start)
	lastOffset       int64
	newestLag        *int64 // the newest sample's lag (nil when unknown)
	moved            bool   // some offset differs from the one before it
	rewound          bool   // some offset is below the one before it (the first such: Burrow's rewind)
	recovered        bool   // after the first rewind, an offset reached the one before it
	rewindFrom       int64  // the offset before the first rewind
	lagWithinAllowed bool   // some known lag is at most the allowed lag
	lagDecreased     bool   // some known lag is below the known lag before it
	lastKnownLag     int64
	haveKnownLag     bool
}

func scanWindow(samples []LagSample, allowed int64) window {
	var w window
	for i := range samples {
		s := &samples[i]
		if s.Offset < 0 {
			continue
		}
		t := s.TimeMs
		if w.n > 0 {
			t = max(t, w.lastMs) // the clock stepped back: not before the sample before it
		}
		switch {
		case w.n == 0:
			w.firstMs, w.changedMs = t, t
		case s.Offset != w.lastOffset:
			w.longestStill = max(w.longestStill, t-w.changedMs)
			w.moved, w.changedMs = true, t
			if s.Offset < w.lastOffset && !w.rewound {
				w.rewound, w.rewindFrom = true, w.lastOffset
			}
		}
		if w.rewound && !w.recovered && s.Offset >= w.rewindFrom {
			w.recovered = true
		}
		w.lastMs, w.lastOffset = t, s.Offset
		w.n++
		w.newestLag = nil
		if s.Lag != nil && *s.Lag >= 0 {
			lag := *s.Lag
			w.newestLag = s.Lag
			w.lagWithinAllowed = w.lagWithinAllowed || lag <= allowed
			w.lagDecreased = w.lagDecreased || (w.haveKnownLag && lag < w.lastKnownLag)
			w.lastKnownLag, w.haveKnownLag = lag, true
		}
	}
	return w
}

// caughtUp is Burrow's checkIfRecentLagZero: some recent end offset is at
// or below the newest committed offset, so the consumer had no lag a
// moment ago.
func caughtUp(committed int64, endOffsets []int64) bool {
	for _, e := range endOffsets {
		if e <= committed {
			return true
		}
	}
	return false
}

// groupRank orders statuses for GroupStatus.
func groupRank(partitionStatus string) int {
	switch partitionStatus {
	case LagStatusStop, LagStatusStall, LagStatusRewind, GroupStatusErr:
		return 2
	case LagStatusWarn:
		return 1
	}
	return 0
}

// GroupStatus folds partition statuses into a group's: ERR when any is
// STOP, STALL or REWIND, WARN when any is WARN, else OK (Burrow's rule).
// A group with no partitions is OK, as in Burrow; NOTFOUND is for the
// caller to say (a group that does not exist has no partitions to fold).
func GroupStatus(partitions []PartitionVerdict) string {
	worst := 0
	for _, p := range partitions {
		if worst = max(worst, groupRank(p.Status)); worst == 2 {
			break
		}
	}
	return [...]string{GroupStatusOK, GroupStatusWarn, GroupStatusErr}[worst]
}
