package luaapi

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is watch's time in tests: Sleep moves it on at once, then
// calls slept (the test changes the cluster between refreshes there).
type fakeClock struct {
	now    time.Time
	sleeps []time.Duration
	slept  func(n int)
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
}

func (f *fakeClock) Now() time.Time { return f.now }
func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.now = f.now.Add(d)
	f.sleeps = append(f.sleeps, d)
	if f.slept != nil {
		f.slept(len(f.sleeps))
	}
	return ctx.Err()
}

func pipedScreen(io.Writer) (bool, int, int) { return false, 0, 0 }

// lagOf is a one-group lag result of partitions {committed, end}.
func lagOf(group string, parts ...[2]int64) []lagGroup {
	g := lagGroup{Group: group, State: "Empty"}
	for i, p := range parts {
		lag := p[1] - max(p[0], 0) // without a commit, from the log start (0)
		g.TotalLag += lag
		g.Partitions = append(g.Partitions, lagPartition{Topic: "orders", Partition: int32(i), Committed: p[0], EndOffset: p[1], Lag: lag})
	}
	return []lagGroup{g}
}

func TestWatchLagViewBarsDeltasRatesAndETA(t *testing.T) {
	w := newWatchLag(5)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	first := w.render(lagOf("app", [2]int64{0, 1000}, [2]int64{0, 500}, [2]int64{300, 300}), t0, 0, false)
	assert.Equal(t, []string{
		"app  Empty  total lag 1500  ETA -  change -",
		"  TOPIC   PARTITION  LAG   ETA  CHANGE  CONSUME/S  PRODUCE/S",
		"  orders  0          1000  -    -       -          -          " + strings.Repeat("#", 30),
		"  orders  1          500   -    -       -          -          " + strings.Repeat("#", 15),
		"  orders  2          0     0s   -       -          -",
	}, first, "the first refresh: bars scaled to the largest lag, nothing to compare with yet")

	// Two seconds on: partition 0 consumed 200 and got 100 more (lag falls
	// 50/s: 900 left, 18 s), partition 1 consumed nothing (its lag rises,
	// but with no commit yet in a window still filling its commit interval
	// may just be longer than two seconds: "-"), partition 2 is caught up.
	second := w.render(lagOf("app", [2]int64{200, 1100}, [2]int64{0, 600}, [2]int64{340, 340}), t0.Add(2*time.Second), 0, false)
	assert.Equal(t, []string{
		"app  Empty  total lag 1500  ETA never  change 0  consume 120.0/s  produce 120.0/s",
		"  TOPIC   PARTITION  LAG  ETA  CHANGE  CONSUME/S  PRODUCE/S",
		"  orders  0          900  18s  -100    100.0      50.0       " + strings.Repeat("#", 30),
		"  orders  1          600  -    +100    0.0        50.0       " + strings.Repeat("#", 20),
		"  orders  2          0    0s   0       20.0       20.0",
	}, second)

	// Rates are over the window (5 refreshes): at 4 s partition 0 has
	// consumed 600 in 4 s (150/s), the lag fell 400 in 4 s: 600 left, 6 s.
	third := w.render(lagOf("app", [2]int64{600, 1200}, [2]int64{0, 700}, [2]int64{380, 380}), t0.Add(4*time.Second), 0, false)
	assert.Contains(t, third, "  orders  0          600  6s   -300    150.0      50.0       "+strings.Repeat("#", 26))
	assert.Equal(t, "app  Empty  total lag 1300  ETA 26s  change -200  consume 170.0/s  produce 120.0/s", third[0],
		"the group: its total lag fell 200 in 4 s (1300 left at 50/s); the rates are the partitions' sums")
}

func TestWatchLagWindowAndEdgeCases(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	row := func(lines []string, p int) string { return lines[2+p] }

	t.Run("window", func(t *testing.T) {
		w := newWatchLag(2) // the rates are over the last two refreshes only
		w.render(lagOf("g", [2]int64{0, 100}), at(0), 0, false)
		w.render(lagOf("g", [2]int64{90, 100}), at(1), 0, false)
		lines := w.render(lagOf("g", [2]int64{95, 100}), at(2), 0, false)
		assert.Equal(t, "  orders  0          5    1s   -5      5.0        0.0        "+strings.Repeat("#", 30), row(lines, 0))
	})
	t.Run("no commit", func(t *testing.T) {
		w := newWatchLag(5)
		w.render(lagOf("g", [2]int64{-1, 100}), at(0), 0, false)
		lines := w.render([]lagGroup{{Group: "g", TotalLag: 50, Partitions: []lagPartition{{Topic: "orders", Committed: 50, EndOffset: 100, Lag: 50}}}}, at(10), 0, false)
		assert.Equal(t, "  orders  0          50   10s  -50     -          0.0        "+strings.Repeat("#", 30), row(lines, 0),
			"no consume rate without a commit to start from; the lag fell 5/s: 10 s")
	})
	t.Run("clock back", func(t *testing.T) {
		w := newWatchLag(5)
		w.render(lagOf("g", [2]int64{0, 100}), at(10), 0, false)
		lines := w.render(lagOf("g", [2]int64{50, 100}), at(5), 0, false)
		assert.Equal(t, "  orders  0          50   -    -       -          -          "+strings.Repeat("#", 30), row(lines, 0),
			"a sample from before the last starts over")
	})
	t.Run("error and gone", func(t *testing.T) {
		w := newWatchLag(5)
		w.render(lagOf("g", [2]int64{0, 100}, [2]int64{0, 10}), at(0), 0, false)
		failed := lagOf("g", [2]int64{0, 100}, [2]int64{0, 10})
		failed[0].Partitions[1].Lag, failed[0].Partitions[1].Err = -1, "NOT_LEADER_FOR_PARTITION"
		failed[0].Err, failed[0].TotalLag = "NOT_LEADER_FOR_PARTITION", 100
		lines := w.render(failed, at(1), 0, false)
		assert.Equal(t, "g  Empty  total lag 100  ETA -  change -  consume 0.0/s  produce 0.0/s  error NOT_LEADER_FOR_PARTITION", lines[0],
			"a total that leaves a failed partition out is not compared")
		assert.Equal(t, "  orders  1          -    -    -       -          - NOT_LEADER_FOR_PARTITION", row(lines, 1))
		lines = w.render(lagOf("g", [2]int64{0, 100}), at(2), 0, false)
		require.Len(t, lines, 3)
		assert.NotContains(t, w.parts, "g\x00orders\x001", "a partition no longer shown is forgotten")
	})
	t.Run("no groups", func(t *testing.T) {
		assert.Equal(t, []string{"(no groups)"}, newWatchLag(5).render(nil, at(0), 0, false))
	})
	t.Run("narrow terminal", func(t *testing.T) {
		lines := newWatchLag(5).render(lagOf("g", [2]int64{0, 100}, [2]int64{0, 50}), at(0), 70, true)
		assert.Equal(t, "  orders  0          100  -    -       -          -          █████████", row(lines, 0), "the bar takes what the columns leave")
		assert.Equal(t, "  orders  1          50   -    -       -          -          ████▌", row(lines, 1), "in eighths on a terminal")
	})
}

func TestWatchETAFormat(t *testing.T) {
	for d, want := range map[time.Duration]string{
		400 * time.Millisecond:                "1s",
		45 * time.Second:                      "45s",
		250 * time.Second:                     "4m10s",
		2*time.Hour + 5*time.Minute:           "2h05m",
		76 * time.Hour:                        "3d04h",
		400 * 24 * time.Hour:                  "> 1y",
		59*time.Second + 500*time.Millisecond: "1m00s",
	} {
		assert.Equal(t, want, eta(d), d.String())
	}
}

// watchEnv is a runtime with no cluster, watch's clock and screen faked.
func watchEnv(t *testing.T, screen watchScreen) (*Runtime, *bytes.Buffer, *fakeClock) {
	t.Helper()
	var out bytes.Buffer
	rt := New(Options{Stdout: &out, Stderr: io.Discard})
	t.Cleanup(rt.Close)
	clock := newFakeClock()
	rt.watchClock, rt.watchScreen = clock, screen
	return rt, &out, clock
}

// counterTables is a function returning a table that changes with each
// call: row b's count moves, row c comes on the third call.
const counterTables = `
local n = 0
function tables()
  n = n + 1
  local rows = {{name = "a", count = 1, state = "ok"}, {name = "b", count = n * 10, state = "ok"}}
  if n >= 3 then rows[3] = {name = "c", count = 0, state = "new"} end
  return rows
end`

func TestWatchMarksChangedCellsPiped(t *testing.T) {
	rt, out, clock := watchEnv(t, pipedScreen)
	_, err := rt.DoString(context.Background(), "t", counterTables+"\nwatch(tables, 1.5, {count = 3})")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond}, clock.sleeps, "no wait after the last refresh")
	assert.Equal(t, `watch function  every 1.5s  refresh 1  2026-12-01T10:00:00Z
NAME  COUNT  STATE
a     1      ok
b     10     ok

watch function  every 1.5s  refresh 2  2026-12-01T10:00:01Z
NAME  COUNT  STATE
a     1      ok
b     20*    ok
(1 changed since the last refresh, marked *)

watch function  every 1.5s  refresh 3  2026-12-01T10:00:03Z
NAME  COUNT  STATE
a     1      ok
b     30*    ok
c*    0*     new*
(4 changed since the last refresh, marked *)

`, out.String())
	assert.NotContains(t, out.String(), "\x1b", "piped: no terminal escapes")
}

func TestWatchMarksValuesThatAreNoTable(t *testing.T) {
	rt, out, _ := watchEnv(t, pipedScreen)
	_, err := rt.DoString(context.Background(), "t", `local n = 0
watch(function() n = n + 1 return math.min(n, 2), "fixed" end, 0.1, {count = 3})`)
	require.NoError(t, err)
	blocks := strings.Split(strings.TrimSpace(out.String()), "\n\n")
	require.Len(t, blocks, 3)
	assert.Equal(t, "1\nfixed", blocks[0][strings.Index(blocks[0], "\n")+1:])
	assert.Equal(t, "2*\nfixed\n(1 changed since the last refresh, marked *)", blocks[1][strings.Index(blocks[1], "\n")+1:])
	assert.Equal(t, "2\nfixed", blocks[2][strings.Index(blocks[2], "\n")+1:])
}

func TestWatchRedrawsInPlaceOnATerminal(t *testing.T) {
	screen := func(io.Writer) (bool, int, int) { return true, 24, 6 }
	rt, out, _ := watchEnv(t, screen)
	_, err := rt.DoString(context.Background(), "t", counterTables+"\nwatch(tables, 2, {count = 3})")
	require.NoError(t, err)
	s := out.String()
	require.True(t, strings.HasPrefix(s, "\x1b[?25l\r\x1b[J"), "the cursor is hidden, the first block drawn where it is: %q", s)
	assert.True(t, strings.HasSuffix(s, "\x1b[?25h"), "and shown again at the end: %q", s)
	draws := strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "\x1b[?25l"), "\x1b[?25h"), "\r\x1b[J")
	require.Len(t, draws, 4)
	assert.Equal(t, "", draws[0])
	assert.Equal(t, "watch function  every 2s\nNAME  COUNT  STATE\na     1      ok\nb     10     ok\n\x1b[4A", draws[1],
		"cut to the width; the next draw goes back up the block's 4 lines")
	assert.Equal(t, "watch function  every 2s\nNAME  COUNT  STATE\na     1      ok\nb     \x1b[7m20*\x1b[27m    ok\n(1 changed since the las\n\x1b[5A", draws[2],
		"a changed cell in reverse video")
	assert.Equal(t, "watch function  every 2s\nNAME  COUNT  STATE\na     1      ok\nb     \x1b[7m30*\x1b[27m    ok\n... 2 more lines (a larg\n", draws[3],
		"cut to the height: 5 lines of 6, the last says what is left out")
}

func TestFitLineKeepsEscapesWhole(t *testing.T) {
	assert.Equal(t, "ab\x1b[7mc\x1b[0m", fitLine("ab\x1b[7mcdef\x1b[27m", 3))
	assert.Equal(t, "ab\x1b[7mc\x1b[27m", fitLine("ab\x1b[7mc\x1b[27m", 3), "a line that fits is kept as it is")
	assert.Equal(t, "██", fitLine("████", 2))
}

func TestWatchRefusesBadArguments(t *testing.T) {
	rt, out, _ := watchEnv(t, pipedScreen)
	for src, want := range map[string]string{
		`watch(nil)`:                           "watch: fn: ",
		`watch(42)`:                            "watch: fn: ",
		`watch("lag(")`:                        "watch: fn: watch:1:",
		`watch("lag()", 0.05)`:                 "watch: interval: must be a finite number between 0.1 and 3600, got 0.05",
		`watch("lag()", 1e9)`:                  "watch: interval: must be a finite number between 0.1 and 3600, got 1000000000",
		`watch("lag()", 0/0)`:                  "watch: interval: ",
		`watch("lag()", "2")`:                  "watch: interval: ",
		`watch("lag()", 2, {count = 0})`:       "watch: options: count: must be an integer between 1",
		`watch("lag()", 2, {window = 1})`:      "watch: options: window: must be an integer between 2 and 1000, got 1",
		`watch("lag()", 2, {cuont = 1})`:       `did you mean "count"`,
		`watch("lag()", 2, {count = 1}, true)`: "watch: takes at most",
	} {
		_, err := rt.DoString(context.Background(), "t", src)
		require.Error(t, err, src)
		re := err.(*RunError)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, out.String(), "a refused watch draws nothing")
}

func TestWatchEndsAtAnErrorOfTheChunk(t *testing.T) {
	rt, out, clock := watchEnv(t, pipedScreen)
	_, err := rt.DoString(context.Background(), "t", `local n = 0
watch(function() n = n + 1 if n == 2 then no_such_function() end return n end, 1)`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "attempt to call nil 'no_such_function'")
	assert.Len(t, clock.sleeps, 1, "ended at the second refresh")
	assert.Equal(t, 1, strings.Count(out.String(), "refresh "), out.String())

	// A bad argument of a call inside is no refresh failure either.
	out.Reset()
	_, err = rt.DoString(context.Background(), "t", `watch("lag(nil, {bogus = 1})", 1)`)
	require.Error(t, err)
	assert.Equal(t, "INVALID_ARGUMENT", err.(*RunError).Code)
	assert.Contains(t, err.Error(), `lag: options: unknown key "bogus"`)
	assert.Empty(t, out.String())
}

func TestWatchStopsWhenCanceled(t *testing.T) {
	screen := func(io.Writer) (bool, int, int) { return true, 80, 24 }
	rt, out, clock := watchEnv(t, screen)
	ctx, cancel := context.WithCancel(context.Background())
	clock.slept = func(n int) {
		if n == 2 {
			cancel() // Ctrl-C while waiting for the third refresh
		}
	}
	_, err := rt.DoString(ctx, "t", `watch("1 + 1", 1)`)
	require.Error(t, err)
	assert.Equal(t, "CANCELED", err.(*RunError).Code)
	assert.Equal(t, KindCanceled, err.(*RunError).Kind)
	assert.Equal(t, 2, strings.Count(out.String(), "refresh "))
	assert.True(t, strings.HasSuffix(out.String(), "\x1b[?25h"), "the cursor is shown again: %q", out.String())

	// The runtime goes on.
	vals, err := rt.DoString(context.Background(), "t", "return 1 + 1")
	require.NoError(t, err)
	assert.Equal(t, "2", vals[0].String())
}

// Rows are known by their identifying columns: a row coming first marks
// only itself, and a sub-table's rows are known under their parent's.
func TestWatchMarksRowsByTheirNames(t *testing.T) {
	rt, out, _ := watchEnv(t, pipedScreen)
	_, err := rt.DoString(context.Background(), "t", `local n = 0
watch(function()
  n = n + 1
  local groups = {
    {group = "b", state = "Stable", members = {{member_id = "m1", host = "h1"}, {member_id = "m2", host = "h2"}}},
    {group = "c", state = "Stable", members = {{member_id = "m1", host = "h1"}}},
  }
  if n == 2 then
    table.insert(groups, 1, {group = "a", state = "Empty", members = {}})
    groups[3].members[1].host = "h9" -- c's m1 moved; b's m1 did not
  end
  return groups
end, 1, {count = 2})`)
	require.NoError(t, err)
	blocks := strings.Split(strings.TrimSpace(out.String()), "\n\n")
	require.Len(t, blocks, 2)
	assert.Equal(t, `GROUP  STATE
a*     Empty*
b      Stable
  MEMBER_ID  HOST
  m1         h1
  m2         h2
c      Stable
  MEMBER_ID  HOST
  m1         h9*
(3 changed since the last refresh, marked *)`, blocks[1][strings.Index(blocks[1], "\n")+1:])
}
