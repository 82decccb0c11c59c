package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// A consumer that commits as it reads, caught up, and dies: the run after
// it stopped still sees it caught up a run ago (Burrow's "recently caught
// up": OK), the second run says STOP, whether the runs are a second or a
// minute apart (the clock is the test's). Before, the exemption looked at
// the whole window's end offsets, and a window of ten runs kept the last
// caught-up sample for ten runs: from */5 cron, about 50 minutes of OK.
func TestLagStatusStopsTheSecondRunAfterAConsumerDiesCaughtUp(t *testing.T) {
	for _, every := range []time.Duration{time.Second, time.Minute} {
		t.Run(every.String(), func(t *testing.T) {
			cl, c, adm := newTestClient(t)
			ctx := context.Background()
			kc := oneTopic(t, c, adm, "t")
			now := time.UnixMilli(1_700_000_000_000)
			opts := LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}}
			run := func() PartitionLagStatus {
				t.Helper()
				sts, err := cl.LagStatus(ctx, []string{"g"}, opts)
				require.NoError(t, err)
				require.Len(t, sts[0].Worst, 1)
				return sts[0].Worst[0]
			}
			end := int64(0)
			for range 6 { // reading and committing as fast as records come
				produceN(t, kc, "t", 10)
				end += 10
				commitAt(t, adm, "g", "t", map[int32]int64{0: end})
				p := run()
				require.Equal(t, verdicts.LagStatusOK, p.Status)
				require.Zero(t, p.Lag)
				now = now.Add(every)
			}
			// It dies; records keep coming.
			produceN(t, kc, "t", 10)
			first := run()
			assert.Equal(t, verdicts.LagStatusOK, first.Status, "caught up a run ago: %s", first.Rule)
			assert.EqualValues(t, 10, first.Lag)
			now = now.Add(every)
			produceN(t, kc, "t", 10)
			second := run()
			assert.Equal(t, verdicts.LagStatusStop, second.Status, second.Rule)
			assert.Equal(t, verdicts.LagRuleStopped, second.Rule)
		})
	}
}

// memberCommits commits offset for a live group member (a commit the
// admin client makes is no member's).
func memberCommits(t *testing.T, member *kgo.Client, topic string, offset int64) {
	t.Helper()
	var cerr error
	member.CommitOffsetsSync(context.Background(), map[string]map[int32]kgo.EpochOffset{topic: {0: {Epoch: -1, Offset: offset}}},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			cerr = err
			if err == nil {
				cerr = kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
			}
		})
	require.NoError(t, cerr)
}

// A live consumer that stalls: STALL the run its member has committed the
// same offset twice, from cron (runs a minute apart: the window is the
// run before and this one). Before, a window of ten runs held the moves
// before the stall, and STALL needed ten runs of it.
func TestLagStatusStallsWhenLiveMembersCommitTheSameOffsetTwice(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 100)
	member, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"), kgo.DisableAutoCommit())
	require.NoError(t, err)
	defer member.Close()
	pollCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	member.PollRecords(pollCtx, 1)
	cancel()

	now := time.UnixMilli(1_700_000_000_000)
	opts := LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}}
	var got []string
	for _, offset := range []int64{10, 20, 30, 40, 40, 40} {
		memberCommits(t, member, "t", offset)
		sts, err := cl.LagStatus(ctx, []string{"g"}, opts)
		require.NoError(t, err)
		require.NotEmpty(t, sts[0].Worst)
		got = append(got, sts[0].Worst[0].Status)
		produceN(t, kc, "t", 20)
		now = now.Add(time.Minute)
	}
	// It reads 10 records a minute of the 20 written: WARN while it
	// moves, STALL from the second commit of 40.
	assert.Equal(t, []string{verdicts.LagStatusOK, verdicts.LagStatusWarn, verdicts.LagStatusWarn, verdicts.LagStatusWarn, verdicts.LagStatusStall, verdicts.LagStatusStall}, got)
}

// lag_status rows say the window's span and how complete it is; with
// min_complete a lagging partition on a part of a window is not judged
// (Burrow's minimum-complete): its rule says so and its group counts it,
// and the group's status does not speak for it.
func TestLagStatusWindowCompleteness(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 100)
	commitAt(t, adm, "g", "t", map[int32]int64{0: 50})
	now := time.UnixMilli(1_700_000_000_000)
	opts := LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}, MinComplete: 1}
	for i, want := range []struct {
		windowMs int64
		complete float64
		rule     string
	}{
		{0, 0, verdicts.LagRuleWindowIncomplete},
		{30_000, 30.0 / 45, verdicts.LagRuleWindowIncomplete},
		{60_000, 1, verdicts.LagRuleStopped}, // the opening sample: the window spans all of its 45 s
	} {
		sts, err := cl.LagStatus(ctx, []string{"g"}, opts)
		require.NoError(t, err)
		g := sts[0]
		assert.Equal(t, want.windowMs, g.WindowMs, "run %d", i)
		assert.InDelta(t, want.complete, g.Complete, 1e-9, "run %d", i)
		assert.Equal(t, want.windowMs, g.Worst[0].WindowMs)
		assert.Equal(t, want.rule, g.Worst[0].Rule, "run %d", i)
		assert.False(t, g.StateFile, "a store in memory")
		if want.rule == verdicts.LagRuleWindowIncomplete {
			assert.Equal(t, verdicts.GroupStatusOK, g.Status)
			assert.Equal(t, 1, g.Incomplete)
			assert.Contains(t, g.Reason, fmt.Sprintf("1 lagging partitions not judged: their window covers %.0f%% of its span", 100*want.complete))
		} else {
			assert.Zero(t, g.Incomplete)
			assert.Equal(t, verdicts.GroupStatusErr, g.Status)
		}
		now = now.Add(30 * time.Second)
	}
	// A partition with no lag is OK whatever its window: nothing to judge.
	commitAt(t, adm, "caught-up", "t", map[int32]int64{0: 100})
	sts, err := cl.LagStatus(ctx, []string{"caught-up"}, opts)
	require.NoError(t, err)
	assert.Equal(t, verdicts.LagRuleWithinAllowed, sts[0].Worst[0].Rule)
	assert.Zero(t, sts[0].Incomplete)
}
