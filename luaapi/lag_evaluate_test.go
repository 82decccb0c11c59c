package luaapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// evalLua runs one chunk in rt and returns its first value as JSON, or
// the error's text.
func evalLua(t *testing.T, rt *Runtime, src string) (string, error) {
	t.Helper()
	vals, err := rt.DoString(context.Background(), "test", src)
	if err != nil {
		return "", err
	}
	require.NotEmpty(t, vals)
	return vals[0].String(), nil
}

// luaSamples writes a window as a Lua array.
func luaSamples(samples []verdicts.LagSample) string {
	var b strings.Builder
	b.WriteString("{")
	for _, s := range samples {
		fmt.Fprintf(&b, "{offset = %d, time = %d", s.Offset, s.TimeMs)
		if s.Lag != nil {
			fmt.Fprintf(&b, ", lag = %d", *s.Lag)
		}
		b.WriteString("},")
	}
	b.WriteString("}")
	return b.String()
}

// luaOpts writes EvaluateOptions as lag_evaluate's options table.
func luaOpts(o verdicts.EvaluateOptions) string {
	parts := []string{fmt.Sprintf("now = %d", o.NowMs), fmt.Sprintf("allowed_lag = %d", o.AllowedLag), fmt.Sprintf("committing = %t", o.Committing)}
	if o.CurrentLag != nil {
		parts = append(parts, fmt.Sprintf("current_lag = %d", *o.CurrentLag))
	}
	var ends []string
	for _, e := range o.EndOffsets {
		ends = append(ends, fmt.Sprint(e))
	}
	parts = append(parts, "end_offsets = {"+strings.Join(ends, ", ")+"}")
	return "{" + strings.Join(parts, ", ") + "}"
}

// The binding gives what the engine gives, for Burrow's windows and the
// edge cases alike: each window goes through Lua tables and back.
func TestLagEvaluateFromLuaMatchesEngine(t *testing.T) {
	rt := newBareRuntime(t)
	type tc struct {
		samples []verdicts.LagSample
		opts    verdicts.EvaluateOptions
	}
	l := func(v int64) *int64 { return &v }
	moving := []verdicts.LagSample{{Offset: 100, TimeMs: 0, Lag: l(50)}, {Offset: 200, TimeMs: 60000, Lag: l(60)}, {Offset: 300, TimeMs: 120000, Lag: l(70)}}
	cases := []tc{
		{nil, verdicts.EvaluateOptions{NowMs: 5}},
		{moving, verdicts.EvaluateOptions{NowMs: 999999}},
		{moving, verdicts.EvaluateOptions{NowMs: 999999, EndOffsets: []int64{400, 300}}},
		{moving, verdicts.EvaluateOptions{NowMs: 120000, Committing: true}},
		{moving, verdicts.EvaluateOptions{NowMs: 120000, AllowedLag: 70}},
		{moving, verdicts.EvaluateOptions{NowMs: 120000, CurrentLag: l(-1)}},
		{[]verdicts.LagSample{{Offset: 500, TimeMs: 0, Lag: l(1)}, {Offset: 100, TimeMs: 1000}, {Offset: -1, TimeMs: 1500, Lag: l(-1)}, {Offset: 200, TimeMs: 2000, Lag: l(300)}}, verdicts.EvaluateOptions{NowMs: 2000}},
		{[]verdicts.LagSample{{Offset: 7, TimeMs: 1000, Lag: l(3)}, {Offset: 7, TimeMs: 500, Lag: l(4)}}, verdicts.EvaluateOptions{NowMs: 1000, Committing: true}},
	}
	seen := map[string]bool{}
	for i, c := range cases {
		want := verdicts.EvaluateLag(c.samples, c.opts)
		seen[want.Rule] = true
		got, err := evalLua(t, rt, fmt.Sprintf("local v = lag_evaluate(%s, %s) return v.status .. ' ' .. v.rule", luaSamples(c.samples), luaOpts(c.opts)))
		require.NoError(t, err, "case %d", i)
		assert.Equal(t, want.Status+" "+want.Rule, got, "case %d", i)
	}
	assert.Len(t, seen, 8, "the cases reach eight rules: %v", seen)
}

// now defaults to the current time: a window sampled an hour ago, with
// the offset still since, is STOP now and too short as of its samples.
func TestLagEvaluateNowDefaultsToTheClock(t *testing.T) {
	rt := newBareRuntime(t)
	got, err := evalLua(t, rt, `local t = kafka.now() - 3600 * 1000
		local s = {{offset = 5, time = t, lag = 3}, {offset = 5, time = t, lag = 4}}
		return lag_evaluate(s).rule .. " " .. lag_evaluate(s, {now = t}).rule`)
	require.NoError(t, err)
	assert.Equal(t, "stopped window_too_short", got)
}

// lag() rows feed it directly: committed -1 and lag -1 are what lag()
// says of a partition without a commit or without an end offset.
func TestLagEvaluateTakesLagRows(t *testing.T) {
	rt := newBareRuntime(t)
	got, err := evalLua(t, rt, `local row = {committed = -1, lag = -1}
		return lag_evaluate({{offset = row.committed, time = 0, lag = row.lag}}, {now = 10, current_lag = -1}).rule`)
	require.NoError(t, err)
	assert.Equal(t, "no_samples", got)
}

// It needs no cluster: on a runtime whose default cluster is a kfake one,
// it sends nothing; as a client method it answers alike.
func TestLagEvaluateSendsNothing(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := newEnvOn(t, c, Options{})
	n := countRequests(c)
	assert.Equal(t, "STALL", e.run(`local s = {{offset = 1, time = 0, lag = 2}, {offset = 1, time = 10, lag = 2}}
		assert(kafka.default:lag_evaluate(s, {now = 10, committing = true}).status == "STALL")
		return lag_evaluate(s, {now = 10, committing = true}).status`).String())
	assert.Zero(t, n.Load(), "lag_evaluate sent a request")
}

// Bad input is refused with an error naming the function and the
// argument, before anything is judged.
func TestLagEvaluateRefusesBadInput(t *testing.T) {
	rt := newBareRuntime(t)
	for src, want := range map[string]string{
		`lag_evaluate()`:                       "lag_evaluate: samples: is required",
		`lag_evaluate({offset = 1, time = 0})`: `lag_evaluate: samples: must be an array, found key "offset"`,
		`lag_evaluate("x")`:                    "lag_evaluate: samples: must be an array of",
		`lag_evaluate({{offset = 1}})`:         "lag_evaluate: sample #1: time: is required",
		`lag_evaluate({{time = 1}})`:           "lag_evaluate: sample #1: offset: is required",
		`lag_evaluate({{offset = 1, time = 0}, {offset = "x", time = 0}})`: `lag_evaluate: sample #2: offset: must be a committed offset between -1 and 9223372036854775807, got "x"`,
		`lag_evaluate({{offset = 1.5, time = 0}})`:                         "lag_evaluate: sample #1: offset: must be a committed offset",
		`lag_evaluate({{offset = -2, time = 0}})`:                          "lag_evaluate: sample #1: offset: must be a committed offset between -1",
		`lag_evaluate({{offset = 1, time = -5}})`:                          "lag_evaluate: sample #1: time: must be a timestamp in ms",
		`lag_evaluate({{offset = 1, time = 0, lag = -2}})`:                 "lag_evaluate: sample #1: lag: must be a lag between -1",
		`lag_evaluate({{offset = 1, time = 0, lagg = 1}})`:                 `lag_evaluate: sample #1: unknown key "lagg" (did you mean "lag"?)`,
		`lag_evaluate({}, {noww = 1})`:                                     `lag_evaluate: options: unknown key "noww" (did you mean "now"?)`,
		`lag_evaluate({}, {now = -1})`:                                     "lag_evaluate: options: now: must be a timestamp in ms",
		`lag_evaluate({}, {allowed_lag = -1})`:                             "lag_evaluate: options: allowed_lag: must be a lag between 0",
		`lag_evaluate({}, {current_lag = "many"})`:                         "lag_evaluate: options: current_lag: must be a lag",
		`lag_evaluate({}, {end_offsets = 5})`:                              "lag_evaluate: options: end_offsets: must be an array of offset",
		`lag_evaluate({}, {end_offsets = {1, -1}})`:                        "lag_evaluate: options: end_offsets #2: must be an offset",
		`lag_evaluate({}, {committing = "yes"})`:                           "lag_evaluate: options: committing: must be true or false",
	} {
		t.Run(src, func(t *testing.T) {
			_, err := rt.DoString(context.Background(), "test", src)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}
