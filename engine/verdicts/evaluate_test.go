package verdicts

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lagp(v int64) *int64 { return &v }

// smp is a sample with a known lag; smpNil one whose lag is unknown.
func smp(offset, timeMs, lag int64) LagSample {
	return LagSample{Offset: offset, TimeMs: timeMs, Lag: lagp(lag)}
}
func smpNil(offset, timeMs int64) LagSample { return LagSample{Offset: offset, TimeMs: timeMs} }

type lagCase struct {
	name    string
	samples []LagSample
	opts    EvaluateOptions
	want    PartitionVerdict
}

func runLagCases(t *testing.T, cases []lagCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, EvaluateLag(tc.samples, tc.opts))
		})
	}
}

// Burrow's windows that several of its cases share (five commits 100 s
// apart).
func burrowRising() []LagSample {
	return []LagSample{smp(1000, 100000, 0), smp(2000, 200000, 50), smp(3000, 300000, 100), smp(4000, 400000, 150), smp(5000, 500000, 200)}
}
func burrowRisingLagged() []LagSample {
	return []LagSample{smp(1000, 100000, 50), smp(2000, 200000, 100), smp(3000, 300000, 150), smp(4000, 400000, 200), smp(5000, 500000, 250)}
}
func burrowStillFromZero() []LagSample {
	return []LagSample{smp(1000, 100000, 0), smp(1000, 200000, 50), smp(1000, 300000, 100), smp(1000, 400000, 150), smp(1000, 500000, 200)}
}
func burrowStill() []LagSample {
	return []LagSample{smp(1000, 100000, 100), smp(1000, 200000, 150), smp(1000, 300000, 200), smp(1000, 400000, 250), smp(1000, 500000, 300)}
}
func burrowRewindRecovered() []LagSample {
	return []LagSample{smp(1000, 100000, 100), smp(2000, 200000, 150), smp(3000, 300000, 200), smp(2000, 400000, 1250), smp(4000, 500000, 300)}
}

// burrowCases are Burrow's own evaluator cases (core/internal/evaluator/
// caching_test.go, TestCachingEvaluator_CheckRules, tests 0 to 15), with
// their expected statuses. Burrow's timeNow is in seconds: here in ms.
// Burrow's window is a commit history, so they run with Committing.
var burrowCases = []lagCase{
	{name: "burrow_0_zero_lag_somewhere_is_ok",
		samples: burrowRising(),
		opts:    EvaluateOptions{EndOffsets: []int64{5200}, CurrentLag: lagp(200), NowMs: 600000},
		want:    PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
	{name: "burrow_1_time_since_last_commit_equal_to_span_is_not_stop",
		samples: burrowRising(),
		opts:    EvaluateOptions{EndOffsets: []int64{5200}, CurrentLag: lagp(200), NowMs: 900000},
		want:    PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
	{name: "burrow_2_stop_even_with_zero_lag_at_the_start",
		samples: burrowRising(),
		opts:    EvaluateOptions{EndOffsets: []int64{5200}, CurrentLag: lagp(200), NowMs: 1000000},
		want:    PartitionVerdict{LagStatusStop, LagRuleStopped}},
	{name: "burrow_3_stop_with_lag_always_non_zero",
		samples: burrowRisingLagged(),
		opts:    EvaluateOptions{EndOffsets: []int64{5250}, CurrentLag: lagp(250), NowMs: 1000000},
		want:    PartitionVerdict{LagStatusStop, LagRuleStopped}},
	{name: "burrow_4_same_offset_but_zero_lag_once_is_ok",
		samples: burrowStillFromZero(),
		opts:    EvaluateOptions{EndOffsets: []int64{1200}, CurrentLag: lagp(200), NowMs: 600000},
		want:    PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
	{name: "burrow_5_stall_when_lag_always_non_zero",
		samples: burrowStill(),
		opts:    EvaluateOptions{EndOffsets: []int64{1300}, CurrentLag: lagp(300), NowMs: 600000},
		want:    PartitionVerdict{LagStatusStall, LagRuleStalled}},
	{name: "burrow_6_stall_when_lag_stays_the_same",
		samples: []LagSample{smp(1000, 100000, 100), smp(1000, 200000, 100), smp(1000, 300000, 100), smp(1000, 400000, 100), smp(1000, 500000, 100)},
		opts:    EvaluateOptions{EndOffsets: []int64{1100}, CurrentLag: lagp(100), NowMs: 600000},
		want:    PartitionVerdict{LagStatusStall, LagRuleStalled}},
	{name: "burrow_7_rewind_recovered_and_lag_decreased_is_ok",
		samples: burrowRewindRecovered(),
		opts:    EvaluateOptions{EndOffsets: []int64{4300}, CurrentLag: lagp(300), NowMs: 600000},
		want:    PartitionVerdict{LagStatusOK, LagRuleDecreasing}},
	{name: "burrow_8_current_lag_zero_is_ok_though_stopped_by_time",
		samples: burrowRisingLagged(),
		opts:    EvaluateOptions{EndOffsets: []int64{5250}, CurrentLag: lagp(0), NowMs: 1000000},
		want:    PartitionVerdict{LagStatusOK, LagRuleWithinAllowed}},
	{name: "burrow_9_stop_with_new_data_though_lag_always_zero_in_window",
		samples: burrow290Window(),
		opts:    EvaluateOptions{EndOffsets: []int64{792749024, 792749000, 792748800, 792748600, 792748500}, CurrentLag: lagp(931), NowMs: 1512224650000},
		want:    PartitionVerdict{LagStatusStop, LagRuleStopped}},
	{name: "burrow_10_not_stop_when_recent_end_offsets_show_caught_up",
		samples: burrow290Window(),
		opts:    EvaluateOptions{EndOffsets: []int64{792748094, 792748093, 792748093, 792748093}, CurrentLag: lagp(1), NowMs: 1512224650000},
		want:    PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
	{name: "burrow_11_nil_lags_do_not_change_case_0",
		samples: []LagSample{smp(1000, 100000, 0), smpNil(1500, 150000), smp(2000, 200000, 50), smpNil(2500, 250000), smp(3000, 300000, 100),
			smpNil(3500, 350000), smp(4000, 400000, 150), smpNil(4500, 450000), smp(5000, 500000, 200), smpNil(5500, 550000)},
		opts: EvaluateOptions{EndOffsets: []int64{5700}, CurrentLag: lagp(200), NowMs: 600000},
		want: PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
	{name: "burrow_12_allowed_lag_makes_a_stopped_partition_ok",
		samples: []LagSample{smp(1000, 100000, 2), smp(2000, 200000, 1), smp(2000, 300000, 1)},
		opts:    EvaluateOptions{EndOffsets: []int64{2001}, CurrentLag: lagp(1), NowMs: 550000, AllowedLag: 1},
		want:    PartitionVerdict{LagStatusOK, LagRuleWithinAllowed}},
	{name: "burrow_13_stall_with_an_allowed_lag",
		samples: burrowStill(),
		opts:    EvaluateOptions{EndOffsets: []int64{1300}, CurrentLag: lagp(300), NowMs: 600000, AllowedLag: 99},
		want:    PartitionVerdict{LagStatusStall, LagRuleStalled}},
	{name: "burrow_14_rewind_recovered_with_an_allowed_lag",
		samples: burrowRewindRecovered(),
		opts:    EvaluateOptions{EndOffsets: []int64{4300}, CurrentLag: lagp(300), NowMs: 600000, AllowedLag: 99},
		want:    PartitionVerdict{LagStatusOK, LagRuleDecreasing}},
	{name: "burrow_15_rewind_not_caught_up",
		samples: []LagSample{smp(1000, 100000, 100), smp(2000, 200000, 150), smp(3000, 300000, 200), smp(2000, 400000, 1250), smp(2500, 500000, 300)},
		opts:    EvaluateOptions{EndOffsets: []int64{4300}, CurrentLag: lagp(300), NowMs: 600000},
		want:    PartitionVerdict{LagStatusRewind, LagRuleRewound}},
}

// burrow290Window is Burrow's tests 9 and 10: 15 commits a second apart,
// each with zero lag.
func burrow290Window() []LagSample {
	times := []int64{1512224618356, 1512224619362, 1512224620366, 1512224621367, 1512224622370, 1512224623373, 1512224624378,
		1512224625379, 1512224626383, 1512224627383, 1512224628383, 1512224629388, 1512224630391, 1512224631394, 1512224632397}
	out := make([]LagSample, len(times))
	for i, t := range times {
		out[i] = smp(792748079+int64(i), t, 0)
	}
	return out
}

func TestEvaluateLagBurrowCases(t *testing.T) {
	cases := make([]lagCase, len(burrowCases))
	for i, c := range burrowCases {
		c.opts.Committing = true
		cases[i] = c
	}
	runLagCases(t, cases)
}

// TestEvaluateLagBurrowCasesAsObservations runs Burrow's windows as
// per-run samples (Committing false): the last commit is when the offset
// was first seen at its newest value, and STOP compares the time since
// with how long the offset stood still between its moves. The windows
// whose offset repeats change verdict (a window whose offset never moves
// has no commit after its first sample), and test 1, still for four of its
// 100 s steps: Burrow waits for the window's whole span.
func TestEvaluateLagBurrowCasesAsObservations(t *testing.T) {
	differs := map[string]PartitionVerdict{
		"burrow_1_time_since_last_commit_equal_to_span_is_not_stop": {LagStatusStop, LagRuleStopped},
		"burrow_4_same_offset_but_zero_lag_once_is_ok":              {LagStatusStop, LagRuleStopped},
		"burrow_5_stall_when_lag_always_non_zero":                   {LagStatusStop, LagRuleStopped},
		"burrow_6_stall_when_lag_stays_the_same":                    {LagStatusStop, LagRuleStopped},
		"burrow_13_stall_with_an_allowed_lag":                       {LagStatusStop, LagRuleStopped},
	}
	cases := make([]lagCase, len(burrowCases))
	for i, c := range burrowCases {
		if v, ok := differs[c.name]; ok {
			c.want = v
		}
		cases[i] = c
	}
	runLagCases(t, cases)
}

// TestEvaluateLagRules covers each rule and its edges beyond Burrow's
// cases: which rule decides, and the inputs Burrow never sees.
func TestEvaluateLagRules(t *testing.T) {
	moving := []LagSample{smp(100, 0, 50), smp(200, 60000, 60), smp(300, 120000, 70)}
	runLagCases(t, []lagCase{
		// the empty window and the samples that are not commits
		{name: "empty_window", samples: nil, opts: EvaluateOptions{NowMs: 1000, CurrentLag: lagp(5)},
			want: PartitionVerdict{LagStatusOK, LagRuleNoSamples}},
		{name: "only_samples_without_a_commit", samples: []LagSample{smp(-1, 0, 10), smp(-1, 1000, 20)},
			opts: EvaluateOptions{NowMs: 5000}, want: PartitionVerdict{LagStatusOK, LagRuleNoSamples}},
		{name: "samples_without_a_commit_are_left_out",
			samples: []LagSample{smp(-1, 0, 10), smp(100, 1000, 20), smp(-1, 2000, 30), smp(100, 3000, 40)},
			opts:    EvaluateOptions{NowMs: 3000, Committing: true}, want: PartitionVerdict{LagStatusStall, LagRuleStalled}},

		// the current lag
		{name: "current_lag_unknown", samples: []LagSample{smp(100, 0, 10), smpNil(100, 1000)}, opts: EvaluateOptions{NowMs: 99999},
			want: PartitionVerdict{LagStatusOK, LagRuleLagUnknown}},
		{name: "current_lag_negative_is_unknown", samples: moving, opts: EvaluateOptions{NowMs: 99999999, CurrentLag: lagp(-1)},
			want: PartitionVerdict{LagStatusOK, LagRuleLagUnknown}},
		{name: "current_lag_defaults_to_newest_sample", samples: []LagSample{smp(100, 0, 10), smp(100, 1000, 0)}, opts: EvaluateOptions{NowMs: 99999},
			want: PartitionVerdict{LagStatusOK, LagRuleWithinAllowed}},
		{name: "current_lag_given_wins_over_newest_sample", samples: []LagSample{smp(100, 0, 10), smp(100, 1000, 0)},
			opts: EvaluateOptions{NowMs: 99999, CurrentLag: lagp(7)}, want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "allowed_lag_is_inclusive", samples: moving, opts: EvaluateOptions{NowMs: 99999999, AllowedLag: 70},
			want: PartitionVerdict{LagStatusOK, LagRuleWithinAllowed}},
		{name: "negative_allowed_lag_is_zero", samples: moving, opts: EvaluateOptions{NowMs: 99999999, AllowedLag: -5, CurrentLag: lagp(0)},
			want: PartitionVerdict{LagStatusOK, LagRuleWithinAllowed}},

		// STOP
		{name: "stop_once_still_longer_than_it_moved", samples: append(append([]LagSample{}, moving...), smp(300, 180000, 80), smp(300, 240000, 90), smp(300, 300000, 100)),
			opts: EvaluateOptions{NowMs: 300000}, want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "stop_once_still_half_again_its_longest_pause", samples: append(append([]LagSample{}, moving...), smp(300, 180000, 80), smp(300, 240000, 90)),
			opts: EvaluateOptions{NowMs: 240000}, want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "not_stop_while_still_no_longer_than_half_again_its_pauses", samples: append(append([]LagSample{}, moving...), smp(300, 180000, 80)),
			opts: EvaluateOptions{NowMs: 210000}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "the_longest_pause_in_the_window_counts", samples: []LagSample{smp(100, 0, 50), smp(100, 60000, 60), smp(100, 120000, 70), smp(200, 180000, 75), smp(300, 190000, 80), smp(300, 300000, 90)},
			opts: EvaluateOptions{NowMs: 300000}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "a_remembered_pause_holds_off_stop", samples: []LagSample{smp(300, 60000, 80), smp(300, 120000, 90)},
			opts: EvaluateOptions{NowMs: 120000, ChangedMs: 30000, PauseMs: 100000}, want: PartitionVerdict{LagStatusOK, LagRuleUsualPause}},
		{name: "stop_past_half_again_the_remembered_pause", samples: []LagSample{smp(300, 60000, 80), smp(300, 190000, 90)},
			opts: EvaluateOptions{NowMs: 190000, ChangedMs: 30000, PauseMs: 100000}, want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "remembered_first_sight_counts_from_before_the_window", samples: []LagSample{smp(300, 60000, 80), smp(300, 120000, 90)},
			opts: EvaluateOptions{NowMs: 120000, ChangedMs: 1, PauseMs: 70000}, want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "remembered_pause_is_for_observations_only", samples: []LagSample{smp(300, 60000, 80), smp(300, 120000, 90)},
			opts: EvaluateOptions{NowMs: 120000, ChangedMs: 30000, PauseMs: 100000, Committing: true}, want: PartitionVerdict{LagStatusStall, LagRuleStalled}},
		{name: "committing_consumer_still_is_not_stop", samples: append(append([]LagSample{}, moving...), smp(300, 180000, 80), smp(300, 240000, 90), smp(300, 300000, 100)),
			opts: EvaluateOptions{NowMs: 300000, Committing: true}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "stop_unless_end_offsets_show_caught_up", samples: moving, opts: EvaluateOptions{NowMs: 999999, EndOffsets: []int64{400, 300}},
			want: PartitionVerdict{LagStatusOK, LagRuleCaughtUp}},
		{name: "not_warn_when_end_offsets_show_caught_up", samples: moving, opts: EvaluateOptions{NowMs: 120000, EndOffsets: []int64{300, 370}},
			want: PartitionVerdict{LagStatusOK, LagRuleCaughtUp}},
		{name: "warn_when_behind_every_recent_end_offset", samples: moving, opts: EvaluateOptions{NowMs: 120000, EndOffsets: []int64{301, 370}},
			want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "end_offsets_all_ahead_do_not_save_it", samples: moving, opts: EvaluateOptions{NowMs: 999999, EndOffsets: []int64{301, 350}},
			want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "single_sample_later_is_stop", samples: []LagSample{smp(100, 1000, 5)}, opts: EvaluateOptions{NowMs: 1001},
			want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "single_sample_now_is_too_short", samples: []LagSample{smp(100, 1000, 5)}, opts: EvaluateOptions{NowMs: 1000},
			want: PartitionVerdict{LagStatusOK, LagRuleWindowTooShort}},
		{name: "single_sample_now_zero_is_as_of_the_sample", samples: []LagSample{smp(100, 1000, 5)}, opts: EvaluateOptions{},
			want: PartitionVerdict{LagStatusOK, LagRuleWindowTooShort}},
		{name: "equal_timestamps_later_is_stop", samples: []LagSample{smp(100, 1000, 5), smp(200, 1000, 6)}, opts: EvaluateOptions{NowMs: 2000, Committing: true},
			want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "equal_timestamps_now_is_too_short", samples: []LagSample{smp(100, 1000, 5), smp(200, 1000, 6)}, opts: EvaluateOptions{NowMs: 1000},
			want: PartitionVerdict{LagStatusOK, LagRuleWindowTooShort}},

		// the clock going backwards
		{name: "now_before_newest_sample_is_not_stop", samples: moving, opts: EvaluateOptions{NowMs: 5},
			want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "sample_time_going_back_counts_as_the_one_before", samples: []LagSample{smp(100, 100000, 50), smp(200, 200000, 60), smp(300, 150000, 70)},
			opts: EvaluateOptions{NowMs: 200000}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "order_given_is_the_order_taken", samples: []LagSample{smp(300, 100000, 50), smp(200, 50000, 60)},
			opts: EvaluateOptions{NowMs: 100000}, want: PartitionVerdict{LagStatusRewind, LagRuleRewound}},

		// REWIND
		{name: "rewind_beats_zero_lag_in_window", samples: []LagSample{smp(500, 0, 0), smp(100, 1000, 400), smp(200, 2000, 300)},
			opts: EvaluateOptions{NowMs: 2000}, want: PartitionVerdict{LagStatusRewind, LagRuleRewound}},
		{name: "rewind_recovered_to_the_same_offset", samples: []LagSample{smp(500, 0, 10), smp(100, 1000, 400), smp(500, 2000, 20)},
			opts: EvaluateOptions{NowMs: 2000}, want: PartitionVerdict{LagStatusOK, LagRuleDecreasing}},
		{name: "only_the_first_rewind_counts", samples: []LagSample{smp(500, 0, 10), smp(400, 1000, 110), smp(600, 2000, 20), smp(100, 3000, 500), smp(150, 4000, 450)},
			opts: EvaluateOptions{NowMs: 4000}, want: PartitionVerdict{LagStatusOK, LagRuleDecreasing}},

		// zero lag in the window, STALL, WARN
		{name: "zero_lag_in_window_skips_stall", samples: []LagSample{smp(100, 0, 0), smp(100, 1000, 5)},
			opts: EvaluateOptions{NowMs: 1000, Committing: true}, want: PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
		{name: "allowed_lag_in_window_skips_stall", samples: []LagSample{smp(100, 0, 3), smp(100, 1000, 5)},
			opts: EvaluateOptions{NowMs: 1000, Committing: true, AllowedLag: 3, CurrentLag: lagp(5)}, want: PartitionVerdict{LagStatusOK, LagRuleLagZeroInWindow}},
		{name: "stall_needs_lag_throughout", samples: []LagSample{smp(100, 0, 4), smp(100, 1000, 5)},
			opts: EvaluateOptions{NowMs: 1000, Committing: true}, want: PartitionVerdict{LagStatusStall, LagRuleStalled}},
		{name: "observed_still_offset_is_stop", samples: []LagSample{smp(100, 0, 4), smp(100, 1000, 5)},
			opts: EvaluateOptions{NowMs: 0}, want: PartitionVerdict{LagStatusStop, LagRuleStopped}},
		{name: "warn_with_equal_lags", samples: []LagSample{smp(100, 0, 5), smp(200, 1000, 5), smp(300, 2000, 5)},
			opts: EvaluateOptions{NowMs: 2000}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "nil_lags_between_do_not_hide_a_decrease", samples: []LagSample{smp(100, 0, 9), smpNil(200, 1000), smp(300, 2000, 5)},
			opts: EvaluateOptions{NowMs: 2000}, want: PartitionVerdict{LagStatusOK, LagRuleDecreasing}},
		{name: "negative_lags_are_unknown_in_the_window", samples: []LagSample{smp(100, 0, 9), smp(200, 1000, -1), smp(300, 2000, 9)},
			opts: EvaluateOptions{NowMs: 2000}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
		{name: "all_lags_unknown_but_current", samples: []LagSample{smpNil(100, 0), smpNil(200, 1000)},
			opts: EvaluateOptions{NowMs: 1000, CurrentLag: lagp(5)}, want: PartitionVerdict{LagStatusWarn, LagRuleNotDecreasing}},
	})
}

// TestEvaluateLagHugeWindow: a million samples are judged in one pass,
// with no allocation.
func TestEvaluateLagHugeWindow(t *testing.T) {
	const n = 1_000_000
	samples := make([]LagSample, n)
	for i := range samples {
		samples[i] = smp(int64(i), int64(i)*1000, int64(n-i))
	}
	opts := EvaluateOptions{NowMs: n * 1000}
	assert.Equal(t, PartitionVerdict{LagStatusOK, LagRuleDecreasing}, EvaluateLag(samples, opts))
	allocs := testing.AllocsPerRun(3, func() { EvaluateLag(samples, opts) })
	assert.Zero(t, allocs)
}

func TestGroupStatus(t *testing.T) {
	v := func(statuses ...string) []PartitionVerdict {
		out := make([]PartitionVerdict, len(statuses))
		for i, s := range statuses {
			out[i] = PartitionVerdict{Status: s}
		}
		return out
	}
	for _, tc := range []struct {
		in   []PartitionVerdict
		want string
	}{
		{nil, GroupStatusOK},
		{v(LagStatusOK, LagStatusOK), GroupStatusOK},
		{v(LagStatusOK, LagStatusWarn), GroupStatusWarn},
		{v(LagStatusWarn, LagStatusStop), GroupStatusErr},
		{v(LagStatusStall), GroupStatusErr},
		{v(LagStatusRewind, LagStatusWarn), GroupStatusErr},
		{v(LagStatusOK, ""), GroupStatusOK},
	} {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			require.Equal(t, tc.want, GroupStatus(tc.in))
		})
	}
}

func BenchmarkEvaluateLag(b *testing.B) {
	for _, n := range []int{10, 1000} {
		samples := make([]LagSample, n)
		for i := range samples {
			samples[i] = smp(int64(i), int64(i)*1000, int64(n-i))
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				EvaluateLag(samples, EvaluateOptions{NowMs: int64(n) * 1000})
			}
		})
	}
}
