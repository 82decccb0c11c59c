package moves

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// interruptAt runs plan until the clock's nth sleep, where the context is
// cancelled (Ctrl-C), and returns what Execute returned.
func (e *env) interruptAt(t *testing.T, plan []Move, n int, o Options) ([]Result, error) {
	ctx, cancel := context.WithCancel(ctxFor(t))
	defer cancel()
	e.clock.OnSleep = func(i int) {
		if i == n {
			cancel()
		}
	}
	defer func() { e.clock.OnSleep = nil }()
	return Execute(ctx, e.cl, plan, e.opts(o))
}

// throttleRates are the brokers whose leader throttle rate is set.
func (e *env) throttleRates(t *testing.T) []string {
	t.Helper()
	bc, err := e.adm.DescribeBrokerConfigs(context.Background(), 0, 1, 2, 3)
	require.NoError(t, err)
	var out []string
	for _, rc := range bc {
		for _, c := range rc.Configs {
			if c.Key == engine.LeaderThrottledRate && c.Value != nil {
				out = append(out, rc.Name)
			}
		}
	}
	return out
}

// batchesOf are the partitions each batch of run id sent, in order.
func batchesOf(t *testing.T, changes []auditlog.Change, id string) [][]string {
	var out [][]string
	for _, ch := range changes {
		if ch.Intent.Run != id || ch.Intent.Op != "alter_partition_reassignments" {
			continue
		}
		var a struct {
			Partitions []engine.PartitionTarget `json:"partitions"`
		}
		require.NoError(t, auditlog.DecodeField(ch.Intent.Args, &a))
		var keys []string
		for _, p := range a.Partitions {
			keys = append(keys, movesim.TP{Topic: p.Topic, Partition: p.Partition}.String())
		}
		out = append(out, keys)
	}
	return out
}

// Ctrl-C stops feeding: the moves in flight go on (no question asked, as
// with --yes), the throttles stay for them, the run keeps no outcome and
// says how to resume. Resuming finishes the rest: nothing done or in
// flight is sent again, the batches after the resume are the same run's,
// and its outcome is written once everything is done.
func TestInterruptThenResume(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 8, 1000)
	o := Options{MaxMovesPerBroker: 2, Interval: time.Second, Throttle: Rates{All: 1 << 20}}
	res, err := e.interruptAt(t, plan, 3, o)
	require.Error(t, err)
	ee := engine.AsError(err, "")
	assert.Equal(t, engine.CodeCanceled, ee.Code)
	changes := e.changes(t)
	run := changes[0]
	require.Equal(t, "reassign", run.Intent.Op)
	assert.Nil(t, run.Outcome, "an interrupted run has no outcome: it resumes")
	assert.Contains(t, ee.Message, `resume it with reassign(plan, {resume = "`+run.Intent.ID+`"}), or run the runbook again with --resume`,
		"said to a script's author and to an operator at the shell")
	assert.Contains(t, ee.Message, "2 moving (left moving)")
	var moving int
	for _, r := range res {
		if r.State == StateMoving {
			moving++
		}
	}
	assert.Equal(t, 2, moving)
	assert.Equal(t, 2, e.sim.Moving(), "left in flight")
	assert.NotEmpty(t, e.throttleRates(t), "the throttles stay for the moves in flight")

	res, err = Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: ResumeLatest, Interval: time.Second}))
	require.NoError(t, err)
	require.Len(t, res, 8, "the run's own plan")
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, "%s", r.Key())
		assert.Positive(t, r.Batch)
	}
	sent, _ := e.sim.Sent()
	for p := range 8 {
		assert.Equal(t, 1, sent[movesim.TP{Topic: "orders", Partition: int32(p)}], "orders[%d] sent once over both runs", p)
	}
	_, per := e.sim.Peak()
	assert.LessOrEqual(t, per[3], 2, "the resumed run keeps the run's cap")
	assert.Empty(t, e.throttleRates(t), "lifted at the end")

	changes = e.changes(t)
	var runs int
	for _, ch := range changes {
		if ch.Intent.Op == "reassign" {
			runs++
			require.NotNil(t, ch.Outcome)
			assert.Len(t, ch.Outcome.Items, 8)
		}
	}
	assert.Equal(t, 1, runs, "one run, resumed")
	seen := map[string]bool{}
	for _, b := range batchesOf(t, changes, run.Intent.ID) {
		for _, k := range b {
			assert.False(t, seen[k], "%s in one batch only", k)
			seen[k] = true
		}
	}
	assert.Len(t, seen, 8)
}

// kill -9 leaves the audit log cut anywhere. Cut right after a batch's
// intent line, whether or not its request went out: the resumed run sends
// what the cluster does not have, and only that.
func TestResumeAfterTheLogWasCutAtABatch(t *testing.T) {
	for _, reached := range []bool{true, false} {
		name := "request sent"
		if !reached {
			name = "request not sent"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, 4, 250)
			plan := drainPlan(e, "orders", 6, 1000)
			o := Options{MaxMovesPerBroker: 2, Interval: time.Second}
			_, err := e.interruptAt(t, plan, 6, o)
			require.Error(t, err)
			id := e.changes(t)[0].Intent.ID
			batches := batchesOf(t, e.changes(t), id)
			require.GreaterOrEqual(t, len(batches), 2)
			cutAfterIntent(t, e.audit, "alter_partition_reassignments", 2)
			if !reached {
				// The second batch's request never reached Kafka: its
				// partitions are where they were.
				for _, k := range batches[1] {
					var tp movesim.TP
					tp.Topic, tp.Partition = splitKey(t, k)
					e.sim.CancelMove(tp.Topic, tp.Partition)
					e.sim.SetReplicas(tp.Topic, tp.Partition, plan[tp.Partition].Current)
				}
			}
			before, _ := e.sim.Sent()
			res, err := Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: id, Interval: time.Second}))
			require.NoError(t, err)
			for _, r := range res {
				assert.Equal(t, StateDone, r.State, "%s", r.Key())
			}
			after, _ := e.sim.Sent()
			for _, k := range batches[0] {
				tp := movesim.TP{}
				tp.Topic, tp.Partition = splitKey(t, k)
				assert.Equal(t, before[tp], after[tp], "%s of the first batch is not sent again", k)
			}
			for _, k := range batches[1] {
				tp := movesim.TP{}
				tp.Topic, tp.Partition = splitKey(t, k)
				if reached {
					assert.Equal(t, before[tp], after[tp], "%s reached Kafka: not sent again", k)
				} else {
					assert.Equal(t, before[tp]+1, after[tp], "%s never reached Kafka: sent by the resume", k)
				}
			}
		})
	}
}

// Asked after Ctrl-C, yes cancels the moves in flight: they go back to
// their replicas before, queued again for a resume, and the throttles are
// lifted since nothing of the run moves.
func TestInterruptCancelsWhenAsked(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 6, 1000)
	var asked string
	o := Options{MaxMovesPerBroker: 2, Interval: time.Second, Throttle: Rates{All: 1 << 20},
		Ask: func(q string) bool { asked = q; return true }}
	res, err := e.interruptAt(t, plan, 2, o)
	require.Error(t, err)
	assert.Contains(t, asked, "2 move(s) in flight")
	assert.Contains(t, err.Error(), "(cancelled)")
	assert.Equal(t, 0, e.sim.Moving())
	for _, r := range res {
		assert.NotEqual(t, StateMoving, r.State)
		if r.State == StateQueued {
			assert.Equal(t, plan[r.Partition].Current, e.sim.Replicas("orders", r.Partition), "back where it was")
		}
	}
	assert.Empty(t, e.throttleRates(t))
}

// What cannot be resumed says why.
func TestResumeRefusals(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 2, 100)
	_, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{Interval: time.Second}))
	require.NoError(t, err)
	id := e.changes(t)[0].Intent.ID

	_, err = Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: id}))
	assert.ErrorContains(t, err, "run "+id+" ended at")
	_, err = Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: "20260101T000000.000000Z-00000000"}))
	assert.Equal(t, engine.CodeNotFound, engine.AsError(err, "").Code)

	// Nothing unfinished: resume=latest begins a new run of the plan given.
	res, err := Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: ResumeLatest}))
	require.NoError(t, err)
	assert.Empty(t, res)

	plain, err := engine.New(engine.Config{Brokers: e.sim.Addrs, Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer plain.Close()
	_, err = Execute(ctxFor(t), plain, nil, e.opts(Options{Resume: ResumeLatest}))
	assert.ErrorContains(t, err, "resume needs the audit log the run was written to (--audit-log)")
}

// cutAfterIntent keeps the audit log up to the nth intent line of op,
// dropping everything after it, as a kill -9 right after it leaves it.
func cutAfterIntent(t *testing.T, path, op string, n int) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	var kept []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, auditlog.MaxLine)
	seen := 0
	for sc.Scan() {
		kept = append(kept, sc.Text())
		var r auditlog.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		if r.Type == auditlog.TypeIntent && r.Op == op {
			if seen++; seen == n {
				break
			}
		}
	}
	require.NoError(t, f.Close())
	require.Equal(t, n, seen)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"), 0o600))
}

func splitKey(t *testing.T, k string) (string, int32) {
	i := strings.LastIndexByte(k, '[')
	var p int32
	for _, c := range k[i+1 : len(k)-1] {
		p = p*10 + c - '0'
	}
	return k[:i], p
}

// A run interrupted with moves in flight leaves its throttles for them,
// and says a resume lifts them. When those moves have all finished by the
// time it is resumed, the resume has nothing to send, and it still lifts
// the throttles and writes the run's outcome.
func TestResumeOfARunWhoseMovesFinishedLiftsItsThrottles(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 2, 1000)
	o := Options{MaxMovesPerBroker: 2, Interval: time.Second, Throttle: Rates{All: 1 << 20}}
	_, err := e.interruptAt(t, plan, 1, o)
	require.Error(t, err)
	require.Equal(t, 2, e.sim.Moving(), "both moves left in flight")
	require.NotEmpty(t, e.throttleRates(t), "their throttles stay")
	e.sim.Advance(time.Hour) // they finish while nothing watches

	res, err := Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: ResumeLatest, Interval: time.Second}))
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, "%s", r.Key())
	}
	assert.Empty(t, e.throttleRates(t), "lifted by the resume")
	tc, err := e.adm.DescribeTopicConfigs(context.Background(), "orders")
	require.NoError(t, err)
	for _, c := range tc[0].Configs {
		if c.Value != nil && *c.Value != "" {
			assert.NotContains(t, c.Key, "throttled", "topic orders")
		}
	}
	changes := e.changes(t)
	require.Equal(t, "reassign", changes[0].Intent.Op)
	assert.NotNil(t, changes[0].Outcome, "the run ended")
}

// A run throttled by a function (which the audit log cannot hold) and
// interrupted: its resume keeps the rates the function set while the
// moves finish, and lifts them at the end.
func TestResumeOfARunThrottledByAFunctionLiftsItsThrottles(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 4, 1000)
	o := Options{MaxMovesPerBroker: 2, Interval: time.Second,
		Rethrottle: func(Status) (Rates, bool) { return Rates{All: 1 << 20}, true }}
	_, err := e.interruptAt(t, plan, 2, o)
	require.Error(t, err)
	require.Positive(t, e.sim.Moving())
	require.NotEmpty(t, e.throttleRates(t), "the rates the function set stay for the moves in flight")

	res, err := Execute(ctxFor(t), e.cl, nil, e.opts(Options{Resume: ResumeLatest, Interval: time.Second}))
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, "%s", r.Key())
	}
	assert.Empty(t, e.throttleRates(t), "lifted by the resume")
}
