package luaapi

import (
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

func init() {
	register(
		&Func{Name: "lag_evaluate", Area: "groups",
			Params: []Param{{Name: "samples", Type: lagSamples, Doc: "one partition's window of samples, oldest first"}},
			Options: []Field{
				{Name: "now", Type: timestampMs, Doc: "the time to judge at, in ms (default: now)"},
				{Name: "end_offsets", Type: List[int64](offsetNum).ArrayOnly(), Doc: "the partition's recent end offsets, oldest first"},
				{Name: "current_lag", Type: lagValue, Doc: "the lag now (default: the newest sample's lag); -1 is unknown"},
				{Name: "allowed_lag", Type: Int64(0).Named("lag"), Doc: "a current lag at or below this is OK (default 0)"},
				{Name: "committing", Type: Bool(), Doc: "each sample stands for a commit: the consumer is alive and commits (a live member owns the partition)"},
			},
			Returns: "{status=string, rule=string}",
			Summary: "Judge one partition's lag over a window of samples with Burrow's rules: OK, WARN, STALL, STOP or REWIND.",
			Doc: `Needs no cluster: it judges the samples it is given. samples is one partition's window, oldest first, each {offset=, time=, lag=}: the committed offset, when it was sampled (ms) and the lag then (nil or -1 when unknown); a sample with offset -1 (no commit, as lag() says) is left out. The rules are Burrow's, in its order, and rule names the one that decided:
within_allowed_lag (OK): the current lag is at most allowed_lag; stopped (STOP): no commit for longer than the window spans (without committing: the offset has stood still one and a half times as long as the longest it stood still between its moves in the window), unless a recent end offset is at or below the newest committed offset (the consumer was caught up a moment ago); rewound (REWIND): the offset went back and has not come back up; lag_zero_in_window (OK): the lag was at most allowed_lag somewhere in the window, so the rules below are skipped; window_too_short (OK): the samples span no time; within_usual_pause (OK, without committing): the offset never moved but has not stood still for longer than stopped allows; stalled (STALL, with committing): the offset never moved; recently_caught_up (OK): the lag never decreased, but a recent end offset is at or below the newest committed offset; lag_not_decreasing (WARN): the offset moves but the lag never decreased; lag_decreasing (OK): otherwise. no_samples and lag_unknown (OK) say there was nothing to judge.
Samples are not commits: without committing, the last commit is when the offset was first seen at its newest value, and a consumer whose offset stands still reads STOP once it has stood still half as long again as it did between its moves (from runs a minute apart and moving each run: at the second run it did not). committing=true says each sample stands for a commit (a live member owns the partition and commits, moving or not), as Burrow sees commits: standing still then reads STALL, and STOP is Burrow's own rule. lag_status also uses what its state store remembers of the offset from before the window. Samples are used in the order given; a time earlier than the sample before it (a clock stepped back) counts as that sample's time, and a now before the newest sample as the newest sample's time. docs/decisions.md ("Lag verdicts") says why.`,
			Example: `local samples = {
  {offset = 100, time = 0, lag = 50}, {offset = 200, time = 60000, lag = 60}, {offset = 300, time = 120000, lag = 80},
  {offset = 300, time = 180000, lag = 90}, {offset = 300, time = 240000, lag = 95}, {offset = 300, time = 300000, lag = 99},
}
local v = lag_evaluate(samples, {now = 300000})
print(v.status, v.rule)
print(lag_evaluate(samples, {now = 300000, committing = true}).status)
print(lag_evaluate(samples, {now = 300000, end_offsets = {300, 399}}).status)
return v.status == "STOP"`,
			Run: lagEvaluate},
	)
}

// lagValue is a lag: -1 (lag()'s unknown) or more.
var lagValue = Int64(-1).Named("lag")

// lagSamples is lag_evaluate's window.
var lagSamples = List[verdicts.LagSample](Record(
	Field{Name: "offset", Type: Int64(-1).Named("committed offset"), Required: true, Doc: "the committed offset (-1: no commit, left out)"},
	Field{Name: "time", Type: timestampMs, Required: true, Doc: "when the sample was taken"},
	Field{Name: "lag", Type: lagValue, Doc: "the lag then (nil or -1: unknown)"},
).Then(func(rec Rec, _ string) (any, error) {
	s := verdicts.LagSample{Offset: get[int64](rec, "offset"), TimeMs: get[int64](rec, "time")}
	if rec.Has("lag") {
		lag := get[int64](rec, "lag")
		s.Lag = &lag
	}
	return s, nil
})).Items("sample").ArrayOnly()

func lagEvaluate(c *Call) (any, error) {
	opts := verdicts.EvaluateOptions{
		NowMs:      time.Now().UnixMilli(),
		EndOffsets: param[[]int64](c, "end_offsets"),
		AllowedLag: param[int64](c, "allowed_lag"),
		Committing: param[bool](c, "committing"),
	}
	if c.Given("now") {
		opts.NowMs = param[int64](c, "now")
	}
	if c.Given("current_lag") {
		lag := param[int64](c, "current_lag")
		opts.CurrentLag = &lag
	}
	return verdicts.EvaluateLag(param[[]verdicts.LagSample](c, "samples"), opts), nil
}
