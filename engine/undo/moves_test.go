package undo

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/moves"
	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// movesEnv is a sim of 4 brokers, a topic of 6 partitions on {3, a, b},
// an audited client, and a plan moving every replica off broker 3.
func movesEnv(t *testing.T) (*movesim.Sim, *movesim.Clock, *engine.Client, string, []moves.Move) {
	t.Helper()
	sim := movesim.New(t, 4, 250)
	var replicas [][]int32
	var plan []moves.Move
	for p := range 6 {
		a, b, c := int32(p%3), int32((p+1)%3), int32((p+2)%3)
		replicas = append(replicas, []int32{3, a, b})
		plan = append(plan, moves.Move{Topic: "orders", Partition: int32(p), Current: []int32{3, a, b}, Target: []int32{c, a, b}})
	}
	sim.Topic("orders", replicas, 1000)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := auditlog.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = log.Close() })
	cl, err := engine.New(engine.Config{Brokers: sim.Addrs, Timeout: 5 * time.Second, Audit: log})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return sim, movesim.NewClock(sim), cl, path, plan
}

// Undo of a reassign run moves every partition it completed back, as one
// run of its own through the executor, under the run's caps; the run's
// batches are left alone (undone with it), and the undo's own lines are
// marked undo_of.
func TestUndoMovesARunBackThroughTheExecutor(t *testing.T) {
	sim, clock, cl, path, plan := movesEnv(t)
	o := moves.Options{MaxMovesPerBroker: 2, Interval: time.Second, Clock: clock}
	_, err := moves.Execute(context.Background(), cl, plan, o)
	require.NoError(t, err)
	sim.ResetPeak()

	steps := undoLog(t, cl, path, Options{Moves: moves.Options{Interval: time.Second, Clock: clock}})
	var reverted []string
	for _, s := range steps {
		switch s.Op {
		case "reassign":
			assert.Equal(t, engine.UndoReverted, s.Action, "%s: %s", s.Resource, s.Message)
			reverted = append(reverted, s.Resource)
		default:
			assert.Equal(t, engine.UndoSkipped, s.Action)
			assert.Contains(t, s.Message, "a step of run")
		}
	}
	assert.Len(t, reverted, 6)
	for _, m := range plan {
		assert.Equal(t, m.Current, sim.Replicas("orders", m.Partition), "orders[%d] back as it was", m.Partition)
	}
	_, per := sim.Peak()
	assert.Equal(t, 2, per[3], "the moves back keep the run's cap of 2 per broker")

	changes := testChanges(t, path)
	var undoRun *auditlog.Change
	for i, ch := range changes {
		if ch.Intent.Op == "reassign" && ch.Intent.UndoOf != "" {
			undoRun = &changes[i]
		}
	}
	require.NotNil(t, undoRun, "the moves back are a run of their own")
	assert.Equal(t, changes[0].Intent.ID, undoRun.Intent.UndoOf)
	require.NotNil(t, undoRun.Outcome)

	// Undone already: a second undo does nothing.
	again := undoLog(t, cl, path, Options{Moves: moves.Options{Interval: time.Second, Clock: clock}})
	assert.False(t, slices.ContainsFunc(again, func(s engine.UndoStep) bool { return s.Action == engine.UndoReverted }))
}

// A run killed (or interrupted) half-way has no outcome; its undo reads
// the cluster: what it completed moves back, what it left moving is
// refused (resume or cancel it first), what it never sent is as before.
func TestUndoOfAnUnfinishedRun(t *testing.T) {
	sim, clock, cl, path, plan := movesEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	clock.OnSleep = func(n int) {
		if n == 5 {
			cancel()
		}
	}
	res, err := moves.Execute(ctx, cl, plan, moves.Options{MaxMovesPerBroker: 2, Interval: time.Second, Clock: clock})
	require.Error(t, err)
	clock.OnSleep = nil
	state := map[string]string{}
	for _, r := range res {
		state[r.Key()] = r.State
	}
	steps := undoLog(t, cl, path, Options{Moves: moves.Options{Interval: time.Second, Clock: clock}})
	var done, moving, queued int
	for _, s := range steps {
		if s.Op != "reassign" {
			continue
		}
		switch state[s.Resource] {
		case moves.StateDone:
			done++
			assert.Equal(t, engine.UndoReverted, s.Action, s.Resource)
		case moves.StateMoving:
			moving++
			assert.Equal(t, engine.UndoRefused, s.Action, s.Resource)
			assert.Contains(t, s.Message, "resume the run")
		case moves.StateQueued:
			queued++
			assert.Equal(t, engine.UndoSkipped, s.Action, s.Resource)
			assert.Contains(t, s.Message, "already as before")
		}
	}
	assert.Positive(t, done)
	assert.Positive(t, moving)
	assert.Positive(t, queued)
	for _, m := range plan {
		if state[movesim.TP{Topic: "orders", Partition: m.Partition}.String()] == moves.StateDone {
			assert.Equal(t, m.Current, sim.Replicas("orders", m.Partition))
		}
	}
}

func testChanges(t *testing.T, path string) []auditlog.Change {
	t.Helper()
	changes, problems, err := auditlog.ReadFile(path, auditlog.Options{})
	require.NoError(t, err)
	require.Empty(t, problems)
	return changes
}

// A run throttled by a function (the audit log holds that it throttled,
// not the function): its move back says it runs unthrottled unless undo
// is given a rate, and runs under the rate it is given.
func TestUndoOfARunThrottledByAFunction(t *testing.T) {
	_, clock, cl, path, plan := movesEnv(t)
	o := moves.Options{MaxMovesPerBroker: 2, Interval: time.Second, Clock: clock,
		Rethrottle: func(moves.Status) (moves.Rates, bool) { return moves.Rates{All: 1 << 20}, true }}
	_, err := moves.Execute(context.Background(), cl, plan, o)
	require.NoError(t, err)

	var lines []string
	logged := func(level, msg string) { lines = append(lines, level+" "+msg) }
	steps := undoLog(t, cl, path, Options{Moves: moves.Options{Interval: time.Second, Clock: clock, Log: logged,
		Throttle: moves.Rates{All: 5 << 20}}})
	require.True(t, slices.ContainsFunc(steps, func(s engine.UndoStep) bool { return s.Action == engine.UndoReverted }))
	var undoRun *auditlog.Change
	changes := testChanges(t, path)
	for i, ch := range changes {
		if ch.Intent.Op == "reassign" && ch.Intent.UndoOf != "" {
			undoRun = &changes[i]
		}
	}
	require.NotNil(t, undoRun)
	var args struct {
		Throttle moves.Rates `json:"throttle"`
	}
	require.NoError(t, auditlog.DecodeField(undoRun.Intent.Args, &args))
	assert.Equal(t, int64(5<<20), args.Throttle.All, "the move back runs under the rate undo was given")
	assert.False(t, slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "not throttled") }), "%v", lines)

	// Moved again, then undone with no rate: said, not silent.
	sim2, clock2, cl2, path2, plan2 := movesEnv(t)
	_ = sim2
	o.Clock = clock2
	_, err = moves.Execute(context.Background(), cl2, plan2, o)
	require.NoError(t, err)
	lines = nil
	undoLog(t, cl2, path2, Options{Moves: moves.Options{Interval: time.Second, Clock: clock2, Log: logged}})
	assert.True(t, slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "warn ") && strings.Contains(l, "throttled by a function") && strings.Contains(l, "not throttled")
	}), "%v", lines)
}
