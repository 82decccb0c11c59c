package moves

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// A plan the cluster cannot take is refused whole before anything is sent
// or written, with a message naming the partition and why.
func TestRefusesAPlanItCannotRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(e *env, plan []Move) []Move
		code  string
		says  []string
	}{
		{"stale", func(e *env, plan []Move) []Move {
			e.sim.SetReplicas("orders", 1, []int32{0, 1, 2})
			return plan
		}, "STALE_PLAN", []string{"orders[1]", "replicas are [0 1 2] now", "plan again"}},
		{"unknown partition", func(e *env, plan []Move) []Move {
			return append(plan, Move{Topic: "orders", Partition: 99, Target: []int32{0}})
		}, "UNKNOWN_TOPIC_OR_PARTITION", []string{"orders[99]", "no such partition"}},
		{"unknown topic", func(e *env, plan []Move) []Move {
			return append(plan, Move{Topic: "nope", Partition: 0, Target: []int32{0}})
		}, "UNKNOWN_TOPIC_OR_PARTITION", []string{"nope[0]"}},
		{"unknown broker", func(e *env, plan []Move) []Move {
			plan[2].Target = []int32{9, 0, 1}
			return plan
		}, "INVALID_REPLICA_ASSIGNMENT", []string{"orders[2]", "broker 9", "not in the cluster"}},
		{"target broker down", func(e *env, plan []Move) []Move {
			e.sim.Kill(2)
			return plan
		}, "BROKER_NOT_AVAILABLE", []string{"orders[0]", "broker 2", "fenced"}},
		{"moving elsewhere", func(e *env, plan []Move) []Move {
			e.sim.StartMove("orders", 3, []int32{0, 1, 2})
			return plan
		}, "REASSIGNMENT_IN_PROGRESS", []string{"orders[3]", "to [0 1 2] is in progress", "cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 4, 250)
			plan := tc.setup(e, drainPlan(e, "orders", 4, 1000))
			res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{}))
			require.Error(t, err)
			ee := engine.AsError(err, "")
			assert.Equal(t, tc.code, ee.Code)
			for _, s := range tc.says {
				assert.Contains(t, ee.Message, s)
			}
			assert.Contains(t, ee.Message, "nothing was sent")
			assert.True(t, slices.ContainsFunc(res, func(r Result) bool { return r.State == StateFailed && r.Err != nil }))
			sent, _ := e.sim.Sent()
			assert.Empty(t, sent, "nothing sent")
			assert.Empty(t, e.changes(t), "nothing written")
		})
	}
}

// A partition already moving to the plan's target is adopted, said so,
// and never sent again.
func TestAdoptsAMoveInProgressToItsTarget(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 3, 1000)
	e.sim.StartMove("orders", 0, plan[0].Target)
	res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{}))
	require.NoError(t, err)
	assert.True(t, res[0].Adopted)
	assert.Equal(t, StateDone, res[0].State)
	sent, _ := e.sim.Sent()
	assert.Zero(t, sent[movesim.TP{Topic: "orders", Partition: 0}])
	assert.Equal(t, 1, sent[movesim.TP{Topic: "orders", Partition: 1}])
	assert.True(t, slices.ContainsFunc(e.logs.get(), func(l string) bool {
		return strings.Contains(l, "orders[0] is already moving to [2 0 1]: adopted")
	}))
}

// A broker dying in the middle: the moves copying to it stop growing and
// are flagged stalled by name, the moves still queued for it wait rather
// than fail, the caps hold, and once it is back everything finishes, each
// partition sent once.
func TestBrokerDyingMidMove(t *testing.T) {
	e := newEnv(t, 4, 100)
	plan := drainPlan(e, "orders", 6, 1000)
	var stalled, waiting bool
	e.clock.OnSleep = func(n int) {
		switch n {
		case 2:
			e.sim.Kill(2)
		case 20:
			e.sim.Revive(2)
		}
	}
	o := e.opts(Options{MaxMovesPerBroker: 2, Interval: time.Second, StallAfter: 5 * time.Second, Progress: func(s Status) {
		stalled = stalled || slices.Contains(s.Stalled, "orders[0]")
		waiting = waiting || slices.Contains(s.Waiting, 2)
	}})
	res, err := Execute(ctxFor(t), e.cl, plan, o)
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, "%s: %v", r.Key(), r.Err)
	}
	assert.True(t, stalled, "orders[0], copied to broker 2, was flagged stalled")
	assert.True(t, waiting, "moves to broker 2 waited for it")
	assert.True(t, slices.ContainsFunc(e.logs.get(), func(l string) bool {
		return strings.Contains(l, "orders[0] stalled: no bytes copied for 5s") && strings.Contains(l, "broker 2, which it is copied to, is not live")
	}), "%q", e.logs.get())
	_, per := e.sim.Peak()
	assert.LessOrEqual(t, per[3], 2)
	sent, _ := e.sim.Sent()
	for tp, n := range sent {
		assert.Equal(t, 1, n, "%s sent once", tp)
	}
}

// The controller moving in the middle (NOT_CONTROLLER on the listing and
// on a batch): the calls are retried, nothing is lost or sent twice, the
// caps hold.
func TestControllerFailoverMidRun(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 6, 1000)
	e.clock.OnSleep = func(n int) {
		if n == 3 {
			e.sim.FailNext(kmsg.ListPartitionReassignments, kerr.NotController, 2)
			e.sim.FailNext(kmsg.AlterPartitionAssignments, kerr.NotController, 1)
		}
	}
	res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{MaxMovesPerBroker: 2, Interval: time.Second}))
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, "%s", r.Key())
	}
	_, per := e.sim.Peak()
	assert.LessOrEqual(t, per[3], 2)
	sent, _ := e.sim.Sent()
	for p := range 6 {
		assert.Equal(t, 1, sent[movesim.TP{Topic: "orders", Partition: int32(p)}], "orders[%d]", p)
	}
}

// A move Kafka refuses when it is sent (someone deleted the topic's
// partition meanwhile, a broker unknown to it) fails alone, named; the
// others finish and the run says which failed.
func TestARefusedMoveFailsAlone(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 3, 1000)
	e.sim.Refuse("orders", 1, kerr.InvalidReplicaAssignment)
	res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{}))
	require.NoError(t, err, "the run itself ends")
	assert.Equal(t, StateFailed, res[1].State)
	assert.Equal(t, "INVALID_REPLICA_ASSIGNMENT", res[1].Err.Code)
	assert.Equal(t, StateDone, res[0].State)
	assert.Equal(t, StateDone, res[2].State)
	changes := e.changes(t)
	run := changes[0]
	require.Equal(t, "reassign", run.Intent.Op)
	require.NotNil(t, run.Outcome)
	for _, it := range run.Outcome.Items {
		if it.Key == "orders[1]" {
			assert.Equal(t, "INVALID_REPLICA_ASSIGNMENT", it.Outcome)
		} else {
			assert.Equal(t, "ok", it.Outcome)
		}
	}
}
