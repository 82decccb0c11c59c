package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// lag_status: lag judged over time. Each call samples lag now (LagWith),
// adds the sample to the state store, judges every partition's window
// with Burrow's rules (verdicts.EvaluateLag) and folds them into a verdict per
// group, with the rates, the trend and an ETA read off the window, and the
// caller's thresholds on top.

// LagStatusOptions tune LagStatus.
type LagStatusOptions struct {
	// Lag is how the sample is taken (Time, ReadCommitted, AtRisk,
	// NoCommit); its shaping options (OnlyLagging, Sort, Top) are ignored:
	// every partition is sampled. Time is set when MaxLagMs is.
	Lag LagOptions
	// MaxLag and MaxLagMs make a group ERR past these totals (records; ms
	// behind, from the records' timestamps), whatever its trend: the
	// thresholds Burrow users asked to combine with its rules. 0: none.
	MaxLag   int64
	MaxLagMs int64
	// AllowedLag: a partition lagging at most this many records is OK.
	AllowedLag int64
	// Worst is how many partitions each group lists, worst first
	// (DefaultLagStatusWorst when 0).
	Worst int
	// Partitions lists every partition's verdict too, by topic and
	// partition (GroupLagStatus.Partitions).
	Partitions bool
	// MinComplete is Burrow's minimum-complete: a lagging partition whose
	// window covers less than this fraction of the store's Window is not
	// judged (rule window_incomplete) and its group counts it in
	// Incomplete. 0 (Burrow's default) judges every window.
	MinComplete float64
	// Summary leaves out the lists of partitions (Worst, Partitions):
	// the worst partition is named in WorstTopic and WorstPartition.
	Summary bool
}

// DefaultLagStatusWorst: partitions listed per group.
const DefaultLagStatusWorst = 5

// Trends of a group's lag (GroupLagStatus.Trend), from its window's rates.
const (
	TrendFalling = "falling" // consumed faster than produced
	TrendRising  = "rising"  // produced faster than consumed
	TrendSteady  = "steady"  // as fast, or no traffic
	TrendUnknown = "unknown" // fewer than two samples
)

// PartitionLagStatus is one partition's verdict.
type PartitionLagStatus struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Status    string `json:"status"`
	Rule      string `json:"rule"`
	Lag       int64  `json:"lag"`
	Committed int64  `json:"committed"`
	EndOffset int64  `json:"end_offset"`
	LagMs     *int64 `json:"lag_ms,omitempty"`
	// StuckMs: how long the committed offset has not moved while the
	// partition lags, by the window, where the verdict is STALL or STOP
	// (nil otherwise: a healthy consumer stands still between commits).
	StuckMs *int64 `json:"stuck_ms,omitempty"`
	// ConsumeRate and ProduceRate are records/s over the window; nil with
	// fewer than two samples (or no commit).
	ConsumeRate *float64 `json:"consume_rate,omitempty"`
	ProduceRate *float64 `json:"produce_rate,omitempty"`
	Samples     int      `json:"samples"`
	// WindowMs is the time the window covers (now minus its oldest
	// sample), Complete that over the store's Window, at most 1.
	WindowMs int64   `json:"window_ms"`
	Complete float64 `json:"complete"`
	// Reset says why the window started afresh in this call (the clock
	// went backwards, the topic was made again).
	Reset string `json:"reset,omitempty"`
	Err   *Error `json:"error,omitempty"`
}

// GroupLagStatus is one result of LagStatus.
type GroupLagStatus struct {
	Group  string `json:"group"`
	State  string `json:"state"`
	Status string `json:"status"` // verdicts.GroupStatusOK, Warn, Err or NotFound
	// Reason says what decided a status other than OK: a threshold passed,
	// or the worst partition and its rule.
	Reason      string `json:"reason,omitempty"`
	TotalLag    int64  `json:"total_lag"`
	MaxLag      int64  `json:"max_lag"` // the largest lag of a partition
	MaxLagMs    *int64 `json:"max_lag_ms,omitempty"`
	RecordsLost int64  `json:"records_lost"`      // as in GroupLag
	AtRisk      int    `json:"at_risk,omitempty"` // as in GroupLag
	// ReadingRemote and RemoteOnly: as in GroupLag (with Time).
	ReadingRemote int      `json:"reading_remote,omitempty"`
	RemoteOnly    int64    `json:"remote_only,omitempty"`
	RemoteUnknown int      `json:"remote_unknown,omitempty"`
	ConsumeRate   *float64 `json:"consume_rate,omitempty"`
	ProduceRate   *float64 `json:"produce_rate,omitempty"`
	Trend         string   `json:"trend"`
	// EtaSeconds: when the lag falls, seconds until it is zero at the
	// window's rates (0 when there is no lag); nil otherwise.
	EtaSeconds *float64 `json:"eta_seconds,omitempty"`
	// Samples is the longest window among the partitions. WindowMs and
	// Complete are the least complete window's among the partitions with
	// a commit (0 when none): the time it covers, and that over the
	// store's Window, at most 1 (Burrow's "complete", in time).
	Samples  int     `json:"samples"`
	WindowMs int64   `json:"window_ms"`
	Complete float64 `json:"complete"`
	// Incomplete counts the lagging partitions not judged because their
	// window is less complete than LagStatusOptions.MinComplete: the
	// group's status does not speak for them.
	Incomplete int `json:"incomplete,omitempty"`
	// StateFile: the samples are kept in a --state file for the next run
	// (false: in this process only).
	StateFile bool `json:"state_file"`
	// Worst lists the worst partitions (nil with Summary); WorstTopic and
	// WorstPartition name the first of them (nil when the group has no
	// partition).
	Worst          []PartitionLagStatus `json:"worst,omitempty"`
	WorstTopic     *string              `json:"worst_topic,omitempty"`
	WorstPartition *int32               `json:"worst_partition,omitempty"`
	// Partitions (with LagStatusOptions.Partitions): every partition's
	// verdict, by topic and partition.
	Partitions []PartitionLagStatus `json:"partitions,omitempty"`
	Err        *Error               `json:"error,omitempty"`
	FailedIn   string               `json:"failed_in,omitempty"` // as in GroupLag

	// OddTimestamps: as in GroupLag (lag in time unknown on that many
	// partitions, left out of MaxLagMs).
	OddTimestamps int `json:"odd_timestamps,omitempty"`
}

func (g GroupLagStatus) Key() string     { return g.Group }
func (g GroupLagStatus) Failure() *Error { return g.Err }

// FailurePhase is the phase the group's error came from (FailedIn).
func (g GroupLagStatus) FailurePhase() string { return g.FailedIn }

// State is the store the client keeps its samples in: the configuration's,
// or one in memory made for the client.
func (c *Client) State() *state.Store {
	if c.cfg.State != nil {
		return c.cfg.State
	}
	c.localStateOnce.Do(func() { c.localState = state.New(state.Options{}) })
	return c.localState
}

func isNotFound(e *Error) bool { return e != nil && e.Code == kerr.GroupIDNotFound.Message }

// groupJudgment gathers a group's judged partitions as they come, in
// partition order: what the group's verdict needs of them.
type groupJudgment struct {
	samples, rank    int
	consume, produce float64
	rated            bool
	windowed         bool    // some partition with a commit was seen
	windowMs         int64   // the least complete window's span
	complete         float64 // and its completeness
	incomplete       int
	worst            []PartitionLagStatus // the worst so far, worst first
	all              []PartitionLagStatus // every one, when asked for
}

func (a *groupJudgment) add(ps PartitionLagStatus, worst int, keepAll bool) {
	if ps.ConsumeRate != nil && ps.ProduceRate != nil {
		a.consume += *ps.ConsumeRate
		a.produce += *ps.ProduceRate
		a.rated = true
	}
	if ps.Committed >= 0 && (!a.windowed || ps.Complete < a.complete) {
		a.windowed, a.windowMs, a.complete = true, ps.WindowMs, ps.Complete
	}
	if ps.Rule == verdicts.LagRuleWindowIncomplete {
		a.incomplete++
	}
	a.samples = max(a.samples, ps.Samples)
	a.rank = max(a.rank, severity(ps.Status))
	if keepAll {
		a.all = append(a.all, ps)
	}
	a.worst = insertWorst(a.worst, ps, worst)
}

// judgeGroup is one group's verdict from its partitions' judgment.
func judgeGroup(g GroupLag, a *groupJudgment, o LagStatusOptions) GroupLagStatus {
	st := GroupLagStatus{Group: g.Group, State: g.State, TotalLag: g.TotalLag, MaxLagMs: g.MaxLagMs, RecordsLost: g.RecordsLost, AtRisk: g.AtRisk, ReadingRemote: g.ReadingRemote, RemoteOnly: g.RemoteOnly, RemoteUnknown: g.RemoteUnknown, OddTimestamps: g.OddTimestamps, Trend: TrendUnknown, Worst: []PartitionLagStatus{}, Err: g.Err}
	switch {
	case isNotFound(g.Err):
		st.Status, st.Reason, st.Err = verdicts.GroupStatusNotFound, "the group does not exist", nil
		return st
	case g.Err != nil:
		st.Status, st.Reason = verdicts.GroupStatusErr, g.Err.Error()
		return st
	}
	st.Samples, st.WindowMs, st.Complete, st.Incomplete = a.samples, a.windowMs, a.complete, a.incomplete
	st.Status = [...]string{verdicts.GroupStatusOK, verdicts.GroupStatusWarn, verdicts.GroupStatusErr}[a.rank]
	if a.rated {
		consume, produce := a.consume, a.produce
		st.ConsumeRate, st.ProduceRate = &consume, &produce
		st.Trend, st.EtaSeconds = trend(consume, produce, st.TotalLag)
	}
	if o.Partitions && !o.Summary { // a summary lists none: an empty list would read as a group with none
		st.Partitions = a.all
		if st.Partitions == nil {
			st.Partitions = []PartitionLagStatus{}
		}
	}
	if a.worst != nil {
		st.Worst = a.worst
	}

	var reasons []string
	if o.MaxLag > 0 && st.TotalLag > o.MaxLag {
		reasons = append(reasons, fmt.Sprintf("total lag %d records is over max_lag %d", st.TotalLag, o.MaxLag))
	}
	switch {
	case o.MaxLagMs > 0 && st.RecordsLost > 0:
		// The first unread record is gone: how far behind is not known,
		// only that it is more than the oldest record left (lag_ms).
		reasons = append(reasons, fmt.Sprintf("%d records were deleted before it read them: its lag in time is unknown (at least %d ms), so max_lag_ms %d cannot be held", st.RecordsLost, deref(st.MaxLagMs), o.MaxLagMs))
	case o.MaxLagMs > 0 && st.MaxLagMs != nil && *st.MaxLagMs > o.MaxLagMs:
		reasons = append(reasons, fmt.Sprintf("lag in time %d ms is over max_lag_ms %d", *st.MaxLagMs, o.MaxLagMs))
	}
	if len(reasons) > 0 {
		st.Status = verdicts.GroupStatusErr
	}
	if len(st.Worst) > 0 && st.Worst[0].Status != verdicts.LagStatusOK {
		w := st.Worst[0]
		reasons = append(reasons, fmt.Sprintf("%s[%d] is %s (%s)", w.Topic, w.Partition, w.Status, w.Rule))
	}
	if st.Incomplete > 0 {
		reasons = append(reasons, fmt.Sprintf("%d lagging partitions not judged: their window covers %.0f%% of its span, less than min_complete", st.Incomplete, 100*st.Complete))
	}
	st.Reason = strings.Join(reasons, "; ")
	return st
}

// insertWorst puts p into worst, the n worst partitions so far, ERR-making
// first, then WARN, each by lag, most first; equal ones keep the order
// they came in (partition order), as a stable sort would.
func insertWorst(worst []PartitionLagStatus, p PartitionLagStatus, n int) []PartitionLagStatus {
	worse := func(a, b PartitionLagStatus) int {
		if s := cmp.Compare(severity(b.Status), severity(a.Status)); s != 0 {
			return s
		}
		return cmp.Compare(b.Lag, a.Lag)
	}
	i, _ := slices.BinarySearchFunc(worst, p, func(e, t PartitionLagStatus) int {
		if worse(e, t) <= 0 {
			return -1 // equal ones keep their order: p goes after them
		}
		return 1
	})
	if i >= n {
		return worst
	}
	if worst == nil {
		worst = make([]PartitionLagStatus, 0, min(n, 8)+1)
	}
	worst = slices.Insert(worst, i, p)
	if len(worst) > n {
		worst = worst[:n]
	}
	return worst
}

// judge holds one LagStatus call's settings and the scratch of its
// partition judgments.
type judge struct {
	windowMs, allowed, nowMs int64
	minComplete              float64

	samples []verdicts.LagSample
	lags    []int64
	ends    []int64
	current int64
	// ints and floats are slabs the results' optional numbers point into:
	// three small allocations a partition were a tenth of lag_status's
	// CPU for 300,000 partitions, and objects the collector marked.
	ints   []int64
	floats []float64
}

// slabSize is how many numbers a judge's slab holds before the next.
const slabSize = 4096

// int64 is a pointer to v, from the judge's slab.
func (j *judge) int64(v int64) *int64 {
	if len(j.ints) == cap(j.ints) {
		j.ints = make([]int64, 0, slabSize) // a new slab: pointers into the old stay good
	}
	j.ints = append(j.ints, v)
	return &j.ints[len(j.ints)-1]
}

// float64 is a pointer to v, from the judge's slab.
func (j *judge) float64(v float64) *float64 {
	if len(j.floats) == cap(j.floats) {
		j.floats = make([]float64, 0, slabSize)
	}
	j.floats = append(j.floats, v)
	return &j.floats[len(j.floats)-1]
}

// partition is Burrow's verdict on one partition's window, with its
// rates. A partition the group never committed to is not judged (Burrow
// sees only commits): OK, rule "no_commit".
func (j *judge) partition(p PartitionLag, w state.PartitionWindow) PartitionLagStatus {
	allowed, nowMs := j.allowed, j.nowMs
	ps := PartitionLagStatus{Topic: p.Topic, Partition: p.Partition, Lag: p.Lag, Committed: p.Committed, EndOffset: p.EndOffset, LagMs: p.LagMs, Samples: len(w.Samples), Reset: w.Reset}
	if len(w.Samples) > 0 {
		ps.WindowMs = max(nowMs-w.Samples[0].TimeMs, 0)
		ps.Complete = 1
		if ps.WindowMs < j.windowMs {
			ps.Complete = float64(ps.WindowMs) / float64(j.windowMs)
		}
	}
	if c, pr, ok := windowRates(w.Samples); ok {
		ps.ConsumeRate, ps.ProduceRate = j.float64(c), j.float64(pr)
	}
	if p.Committed < 0 {
		ps.Status, ps.Rule = verdicts.LagStatusOK, "no_commit"
		return ps
	}
	if p.Lag > max(allowed, 0) && ps.Complete < j.minComplete {
		// Burrow's minimum-complete: not judged on a part of a window.
		ps.Status, ps.Rule = verdicts.LagStatusOK, verdicts.LagRuleWindowIncomplete
		return ps
	}
	j.samples, j.lags, j.ends = j.samples[:0], j.lags[:0], j.ends[:0]
	for _, s := range w.Samples {
		j.lags = append(j.lags, s.Lag)
	}
	// Burrow's "recently caught up" looks at the end offsets of the
	// newest samples only (this run's and the one before): over the
	// whole window, a consumer that died caught up read OK until that
	// sample left the window.
	for _, s := range w.Samples[max(len(w.Samples)-2, 0):] {
		j.ends = append(j.ends, s.End)
	}
	for i, s := range w.Samples {
		ls := verdicts.LagSample{Offset: s.Committed, TimeMs: s.TimeMs}
		if s.Lag >= 0 {
			ls.Lag = &j.lags[i]
		}
		j.samples = append(j.samples, ls)
	}
	j.current = p.Lag
	// A partition a live member owns is being committed to, moving or not
	// (Burrow's input): a still offset is then STALL, not STOP.
	// Judged as of the newest sample: one taken within the minimum
	// distance of it was merged into it, and a few milliseconds of an
	// offset standing still are no stop.
	asOf := nowMs
	if n := len(w.Samples); n > 0 {
		asOf = w.Samples[n-1].TimeMs
	}
	v := verdicts.EvaluateLag(j.samples, verdicts.EvaluateOptions{NowMs: asOf, EndOffsets: j.ends, CurrentLag: &j.current, AllowedLag: allowed,
		Committing: p.MemberID != "", ChangedMs: w.ChangedMs, PauseMs: w.PauseMs})
	ps.Status, ps.Rule = v.Status, v.Rule
	// Stuck only where standing still is the verdict: between its
	// commits a healthy consumer's offset stands still too.
	if (v.Status == verdicts.LagStatusStall || v.Status == verdicts.LagStatusStop) && len(w.Samples) > 1 && w.ChangedMs < nowMs {
		ps.StuckMs = j.int64(nowMs - w.ChangedMs)
	}
	return ps
}

// severity orders statuses for the worst-first list.
func severity(status string) int {
	switch status {
	case verdicts.LagStatusStop, verdicts.LagStatusStall, verdicts.LagStatusRewind:
		return 2
	case verdicts.LagStatusWarn:
		return 1
	}
	return 0
}

// windowRates are the records/s consumed and produced between the
// window's first and last samples; ok false with fewer than two samples,
// no time between them or no commit.
func windowRates(ss []state.Sample) (consume, produce float64, ok bool) {
	if len(ss) < 2 {
		return 0, 0, false
	}
	first, last := ss[0], ss[len(ss)-1]
	dt := float64(last.TimeMs-first.TimeMs) / 1000
	if dt <= 0 || first.Committed < 0 || last.Committed < 0 {
		return 0, 0, false
	}
	return float64(last.Committed-first.Committed) / dt, float64(last.End-first.End) / dt, true
}

// trend names where the lag goes and, when it falls, when it is zero.
func trend(consume, produce float64, lag int64) (string, *float64) {
	net := consume - produce
	if math.Abs(net) <= 0.01*math.Max(consume, produce) || math.Abs(net) < 1e-3 {
		if lag == 0 {
			zero := 0.0
			return TrendSteady, &zero
		}
		return TrendSteady, nil
	}
	if net < 0 {
		return TrendRising, nil
	}
	eta := float64(lag) / net
	return TrendFalling, &eta
}
