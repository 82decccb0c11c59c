package moves

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/internal/movesim"
)

// A drain of broker 3 with a cap of 2 per broker: never more than 2 moves
// touch broker 3 at once, the next go as earlier ones finish, every
// partition is sent once, ends on its target with its preferred leader,
// and the throttle set for the run is lifted at its end. The audit log has
// the run's intent, its batches marked with its id, and its outcome.
func TestPacedRunKeepsTheCaps(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 9, 1000)
	var statuses []Status
	o := e.opts(Options{MaxMovesPerBroker: 2, Interval: time.Second, Throttle: Rates{All: 1 << 20},
		Progress: func(s Status) { statuses = append(statuses, s) }})
	res, err := Execute(ctxFor(t), e.cl, plan, o)
	require.NoError(t, err)

	require.Len(t, res, 9)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State, "%s", r.Key())
		assert.Nil(t, r.Err)
		assert.Positive(t, r.Batch)
		assert.EqualValues(t, 1000, r.Bytes, "one replica joins: the partition's size")
	}
	peak, per := e.sim.Peak()
	assert.Equal(t, 2, per[3], "broker 3 takes part in every move: 2 at a time")
	assert.LessOrEqual(t, peak, 2)
	for b, n := range per {
		assert.LessOrEqual(t, n, 2, "broker %d", b)
	}
	sent, batches := e.sim.Sent()
	for p := range 9 {
		assert.Equal(t, 1, sent[movesim.TP{Topic: "orders", Partition: int32(p)}], "orders[%d] sent once", p)
	}
	assert.Greater(t, batches, 4, "9 moves, 2 at a time: fed in several batches")

	// The cluster, through another client: targets, no replica on 3,
	// preferred leaders.
	md, err := e.adm.Metadata(context.Background(), "orders")
	require.NoError(t, err)
	for _, m := range plan {
		p := md.Topics["orders"].Partitions[m.Partition]
		assert.Equal(t, m.Target, p.Replicas, "orders[%d]", m.Partition)
		assert.NotContains(t, p.Replicas, int32(3))
		assert.Equal(t, m.Target[0], p.Leader, "orders[%d]: its preferred leader leads", m.Partition)
	}
	// Throttles: lifted from the brokers and the topic.
	bc, err := e.adm.DescribeBrokerConfigs(context.Background(), 0, 1, 2, 3)
	require.NoError(t, err)
	for _, rc := range bc {
		for _, c := range rc.Configs {
			if c.Source == 1 || c.Source == 5 { // dynamic
				assert.NotContains(t, c.Key, "throttled", "broker %s", rc.Name)
			}
		}
	}
	tc, err := e.adm.DescribeTopicConfigs(context.Background(), "orders")
	require.NoError(t, err)
	for _, c := range tc[0].Configs {
		if c.Value != nil && *c.Value != "" {
			assert.NotContains(t, c.Key, "throttled")
		}
	}

	// Progress: bytes, counts, rate.
	require.NotEmpty(t, statuses)
	last := statuses[len(statuses)-1]
	assert.Equal(t, 9, last.Done)
	assert.EqualValues(t, 9000, last.TotalBytes)
	assert.EqualValues(t, 9000, last.CopiedBytes)
	mid := slices.IndexFunc(statuses, func(s Status) bool { return s.Moving > 0 && s.Queued > 0 })
	require.GreaterOrEqual(t, mid, 0, "a poll saw moves in flight and queued")
	assert.Positive(t, statuses[mid+1].Rate, "bytes per second once copying")

	// The audit log: the run, its batches, its outcome.
	changes := e.changes(t)
	run := changes[slices.IndexFunc(changes, func(ch auditlog.Change) bool { return ch.Intent.Op == "reassign" })]
	require.NotNil(t, run.Outcome)
	assert.Len(t, run.Outcome.Items, 9)
	for _, it := range run.Outcome.Items {
		assert.Equal(t, auditlog.OutcomeOK, it.Outcome)
	}
	var batchLines int
	for _, ch := range changes {
		if ch.Intent.ID == run.Intent.ID {
			continue
		}
		assert.Equal(t, run.Intent.ID, ch.Intent.Run, "%s is a step of the run", ch.Intent.Op)
		assert.Less(t, run.IntentLine, ch.IntentLine, "written after the run's intent")
		assert.Less(t, ch.IntentLine, run.OutcomeLine, "and before its outcome")
		if ch.Intent.Op == "alter_partition_reassignments" {
			batchLines++
		}
	}
	assert.Equal(t, batches, batchLines, "each batch written ahead")
}

// The cluster cap holds apart from the brokers': moves that share no
// broker, 3 at a time.
func TestClusterCap(t *testing.T) {
	e := newEnv(t, 8, 500)
	var replicas [][]int32
	var plan []Move
	for p := range 8 {
		from, to := int32(p%4), int32(4+p%4)
		replicas = append(replicas, []int32{from})
		plan = append(plan, Move{Topic: "wide", Partition: int32(p), Current: []int32{from}, Target: []int32{to}})
	}
	e.sim.Topic("wide", replicas, 1000)
	res, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{MaxMoves: 3, MaxMovesPerBroker: 5}))
	require.NoError(t, err)
	for _, r := range res {
		assert.Equal(t, StateDone, r.State)
	}
	peak, _ := e.sim.Peak()
	assert.Equal(t, 3, peak)
}

// Smallest first by default, largest first when asked: with one move at a
// time the batches go in that order.
func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		order string
		want  []int32
	}{{OrderSmallFirst, []int32{1, 2, 0}}, {OrderLargeFirst, []int32{0, 2, 1}}, {OrderPlan, []int32{0, 1, 2}}} {
		t.Run(tc.order, func(t *testing.T) {
			e := newEnv(t, 3, 1<<20)
			e.sim.Topic("big", [][]int32{{0}}, 3000)
			e.sim.Topic("small", [][]int32{{0}}, 100)
			e.sim.Topic("mid", [][]int32{{0}}, 1000)
			var plan []Move
			for _, name := range []string{"big", "small", "mid"} {
				plan = append(plan, Move{Topic: name, Partition: 0, Current: []int32{0}, Target: []int32{1}})
			}
			_, err := Execute(ctxFor(t), e.cl, plan, e.opts(Options{MaxMoves: 1, Order: tc.order}))
			require.NoError(t, err)
			var got []string
			for _, ch := range e.changes(t) {
				if ch.Intent.Op == "alter_partition_reassignments" {
					var a struct {
						Partitions []engine.PartitionTarget `json:"partitions"`
					}
					require.NoError(t, auditlog.DecodeField(ch.Intent.Args, &a))
					require.Len(t, a.Partitions, 1)
					got = append(got, a.Partitions[0].Topic)
				}
			}
			var want []string
			for _, i := range tc.want {
				want = append(want, []string{"big", "small", "mid"}[i])
			}
			assert.Equal(t, want, got)
		})
	}
}

// Under dry-run nothing is sent or written: the rows say the batch each
// move would be in, and its bytes.
func TestDryRunShowsBatchesAndBytes(t *testing.T) {
	e := newEnv(t, 4, 250)
	plan := drainPlan(e, "orders", 5, 1000)
	res, err := Execute(engine.WithDryRun(ctxFor(t)), e.cl, plan, e.opts(Options{MaxMovesPerBroker: 2}))
	require.NoError(t, err)
	var batches []int
	for _, r := range res {
		assert.Equal(t, StateQueued, r.State)
		assert.EqualValues(t, 1000, r.Bytes)
		batches = append(batches, r.Batch)
	}
	slices.Sort(batches)
	assert.Equal(t, []int{1, 1, 2, 2, 3}, batches, "2 at a time through broker 3")
	sent, _ := e.sim.Sent()
	assert.Empty(t, sent)
	assert.Equal(t, 0, e.sim.Moving())
	assert.Empty(t, e.changes(t), "a dry run writes nothing")
}

func itoa(b int32) string { return strconv.Itoa(int(b)) }
