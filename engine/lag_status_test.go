package engine

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// produceN appends n records to topic's partition 0.
func produceN(t *testing.T, kc *kgo.Client, topic string, n int) {
	t.Helper()
	rs := make([]*kgo.Record, n)
	for i := range rs {
		rs[i] = &kgo.Record{Topic: topic, Partition: 0, Value: []byte("v")}
	}
	require.NoError(t, kc.ProduceSync(context.Background(), rs...).FirstErr())
}

// oneTopic makes topic (1 partition, RF 3) and returns a producer client
// that writes to partition 0.
func oneTopic(t *testing.T, c *kfake.Cluster, adm *kadm.Client, topic string) *kgo.Client {
	t.Helper()
	_, err := adm.CreateTopic(context.Background(), 1, 3, nil, topic)
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	return kc
}

func statusOf(t *testing.T, sts []GroupLagStatus, group string) GroupLagStatus {
	t.Helper()
	for _, s := range sts {
		if s.Group == group {
			return s
		}
	}
	t.Fatalf("no status for %s", group)
	return GroupLagStatus{}
}

// lag_status over runs on kfake, one sample a minute on a fake clock, with
// consumers driven by the test: one catching up, one that stopped, one
// that rewound, one falling behind, and a live member committing the same
// offset (stalled). 10 records are produced between runs. The window is 5
// minutes: the five runs fill 4 of them.
func TestLagStatusJudgesConsumersOverRuns(t *testing.T) {
	cl, c, adm := newTestClient(t)
	cl.cfg.State = state.New(state.Options{Window: 5 * time.Minute})
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 100)

	// The stalled group has a live member that commits, but never moves.
	member, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup("stalled"), kgo.ConsumeTopics("t"), kgo.DisableAutoCommit())
	require.NoError(t, err)
	defer member.Close()
	pollCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	member.PollRecords(pollCtx, 1)
	cancel()

	start := time.UnixMilli(1_700_000_000_000)
	now := start
	opts := LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}, MaxLag: 1000}
	commits := map[string][]int64{
		"catching-up":    {10, 40, 70, 100, 130},
		"stopped":        {50, 50, 50, 50, 50},
		"rewound":        {60, 80, 30, 35, 40},
		"falling-behind": {10, 15, 20, 25, 30},
	}
	var sts []GroupLagStatus
	for run := range 5 {
		for g, offs := range commits {
			if g == "stopped" && run > 0 {
				continue // it committed once and never again
			}
			commitAt(t, adm, g, "t", map[int32]int64{0: offs[run]})
		}
		var cerr error
		member.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{"t": {0: {Epoch: -1, Offset: 5}}},
			func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
				cerr = err
				if err == nil {
					cerr = kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
				}
			})
		require.NoError(t, cerr)
		sts, err = cl.LagStatus(ctx, []string{"catching-up", "stopped", "rewound", "falling-behind", "stalled"}, opts)
		require.NoError(t, err)
		produceN(t, kc, "t", 10)
		now = now.Add(time.Minute)
	}

	up := statusOf(t, sts, "catching-up")
	assert.Equal(t, verdicts.GroupStatusOK, up.Status, up.Reason)
	assert.Equal(t, verdicts.LagRuleDecreasing, up.Worst[0].Rule)
	assert.Equal(t, TrendFalling, up.Trend)
	require.NotNil(t, up.ConsumeRate)
	require.NotNil(t, up.ProduceRate)
	// 10 -> 130 over 4 minutes; 100 -> 140 produced over the same.
	assert.InDelta(t, 120.0/240, *up.ConsumeRate, 1e-9)
	assert.InDelta(t, 40.0/240, *up.ProduceRate, 1e-9)
	require.NotNil(t, up.EtaSeconds)
	assert.InDelta(t, 10/(80.0/240), *up.EtaSeconds, 1e-6, "10 records left at 1/3 record/s net")
	assert.Equal(t, 5, up.Samples)
	assert.EqualValues(t, 4*60_000, up.WindowMs)
	assert.InDelta(t, 0.8, up.Complete, 1e-9)
	assert.InDelta(t, 0.8, up.Worst[0].Complete, 1e-9)

	st := statusOf(t, sts, "stopped")
	assert.Equal(t, verdicts.GroupStatusErr, st.Status)
	assert.Equal(t, verdicts.LagStatusStop, st.Worst[0].Status)
	assert.Contains(t, st.Reason, "t[0] is STOP (stopped)")

	rw := statusOf(t, sts, "rewound")
	assert.Equal(t, verdicts.GroupStatusErr, rw.Status)
	assert.Equal(t, verdicts.LagStatusRewind, rw.Worst[0].Status)

	fb := statusOf(t, sts, "falling-behind")
	assert.Equal(t, verdicts.GroupStatusWarn, fb.Status)
	assert.Equal(t, verdicts.LagRuleNotDecreasing, fb.Worst[0].Rule)
	assert.Equal(t, TrendRising, fb.Trend)
	assert.Nil(t, fb.EtaSeconds, "no ETA while the lag rises")

	sl := statusOf(t, sts, "stalled")
	assert.Equal(t, verdicts.GroupStatusErr, sl.Status, sl.Reason)
	assert.Equal(t, verdicts.LagStatusStall, sl.Worst[0].Status)
	assert.NotEmpty(t, sl.Worst[0].Rule)

	// The window is the store's: 5 samples of the catching-up group.
	id, err := cl.ClusterID(ctx)
	require.NoError(t, err)
	w := cl.State().Window(id, "catching-up", "t", 0)
	require.Len(t, w, 5)
	assert.Equal(t, int64(130), w[4].Committed)
	assert.Equal(t, int64(140), w[4].End)
}

// Thresholds combine with the rules: a group past max_lag is ERR even
// when its trend is fine; a group that does not exist is NOTFOUND and its
// samples are dropped, so one made again starts afresh.
func TestLagStatusThresholdsAndGroupsThatGoAndComeBack(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 500)
	now := time.UnixMilli(1_700_000_000_000)
	opts := LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}, MaxLag: 100}

	commitAt(t, adm, "g", "t", map[int32]int64{0: 10})
	sts, err := cl.LagStatus(ctx, []string{"g"}, opts)
	require.NoError(t, err)
	assert.Equal(t, verdicts.GroupStatusErr, sts[0].Status)
	assert.Contains(t, sts[0].Reason, "total lag 490 records is over max_lag 100")
	assert.Equal(t, TrendUnknown, sts[0].Trend)

	_, err = adm.DeleteGroup(ctx, "g")
	require.NoError(t, err)
	now = now.Add(time.Minute)
	sts, err = cl.LagStatus(ctx, []string{"g"}, opts)
	require.NoError(t, err)
	assert.Equal(t, verdicts.GroupStatusNotFound, sts[0].Status)
	assert.Nil(t, sts[0].Err, "not found is a verdict, not a failure")
	id, _ := cl.ClusterID(ctx)
	assert.Nil(t, cl.State().Window(id, "g", "t", 0))

	commitAt(t, adm, "g", "t", map[int32]int64{0: 450})
	now = now.Add(time.Minute)
	sts, err = cl.LagStatus(ctx, []string{"g"}, opts)
	require.NoError(t, err)
	assert.Equal(t, verdicts.GroupStatusOK, sts[0].Status, sts[0].Reason)
	assert.Equal(t, 1, sts[0].Samples, "a group made again starts a new window")
}

// insertWorst, fed partitions one by one, lists what a stable sort by
// severity then lag would put first, ties in the order they came.
func TestInsertWorstIsAStableSortsHead(t *testing.T) {
	statuses := []string{verdicts.LagStatusOK, verdicts.LagStatusWarn, verdicts.LagStatusStall, verdicts.LagStatusStop, verdicts.LagStatusRewind}
	rng := uint64(7)
	next := func(n uint64) uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return (rng >> 33) % n }
	for range 200 {
		var parts []PartitionLagStatus
		for i := range int(next(30)) {
			parts = append(parts, PartitionLagStatus{Partition: int32(i), Status: statuses[next(5)], Lag: int64(next(4))})
		}
		sorted := slices.Clone(parts)
		slices.SortStableFunc(sorted, func(a, b PartitionLagStatus) int {
			if s := cmp.Compare(severity(b.Status), severity(a.Status)); s != 0 {
				return s
			}
			return cmp.Compare(b.Lag, a.Lag)
		})
		for _, n := range []int{-1, 0, 1, 3, len(parts), len(parts) + 5} {
			var worst []PartitionLagStatus
			for _, p := range parts {
				worst = insertWorst(worst, p, n)
			}
			want := sorted[:max(0, min(n, len(sorted)))]
			if len(want) == 0 {
				assert.Empty(t, worst)
				continue
			}
			assert.Equal(t, want, worst, "n=%d of %d", n, len(parts))
		}
	}
}

// A summary lists no partitions, even asked for them: an empty list would
// read as a group with none.
func TestLagStatusSummaryListsNoPartitions(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 1)
	st, err := cl.LagStatus(context.Background(), nil, LagStatusOptions{Summary: true, Partitions: true})
	require.NoError(t, err)
	require.Len(t, st, 1)
	assert.Nil(t, st[0].Partitions)
	assert.Nil(t, st[0].Worst)
	require.NotNil(t, st[0].WorstTopic)
	assert.Equal(t, "t", *st[0].WorstTopic)
	assert.Equal(t, int64(12), st[0].TotalLag)
}
