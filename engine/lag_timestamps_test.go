package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/testbomb"
)

// A record without a timestamp (-1, which Kafka allows) read as 56 years
// behind, and one stamped ten minutes ahead as 0 behind (a stuck consumer
// looked caught up): both are unknown now, with why, and left out of
// max_lag_ms; a record less than FutureTimestampSkew ahead is now (0).
func TestLagInTimeOddTimestampsAreUnknown(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 3, 1, nil, "odd")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	now := int64(1_780_000_000_000)
	_, err = testbomb.Produce(ctx, kc, "odd", 0, 1, -1)
	require.NoError(t, err)
	produceAt(t, kc, "odd", 1, now+10*time.Minute.Milliseconds())
	produceAt(t, kc, "odd", 2, now+30_000)
	commitAt(t, adm, "g", "odd", map[int32]int64{0: 0, 1: 0, 2: 0})
	commitAt(t, adm, "only-odd", "odd", map[int32]int64{0: 0, 1: 1, 2: 1})
	clock := func() time.Time { return time.UnixMilli(now) }

	res, err := cl.LagWith(ctx, []string{"g", "only-odd"}, LagOptions{Time: true, Now: clock})
	require.NoError(t, err)
	g := res[0]
	none := partitionOf(t, g, 0)
	assert.Nil(t, none.LagMs, "not 56 years")
	assert.Nil(t, none.OldestUnconsumed)
	assert.Nil(t, none.BehindHeadMs)
	assert.Equal(t, "the first unread record (offset 0) has timestamp -1: no time (Kafka allows records without one), so its age is unknown", none.TimeUnknown)
	ahead := partitionOf(t, g, 1)
	assert.Nil(t, ahead.LagMs, "not 0: the consumer may be stuck on it")
	assert.Equal(t, "the first unread record (offset 0) has timestamp 2026-05-28T20:36:40Z, 10m0s ahead of this clock (more than the 1m0s allowed for clock skew), so its age is unknown", ahead.TimeUnknown)
	skewed := partitionOf(t, g, 2)
	require.NotNil(t, skewed.LagMs, "%+v", skewed)
	assert.Zero(t, *skewed.LagMs, "30 s ahead is clock skew: now")
	assert.Equal(t, 2, g.OddTimestamps)
	require.NotNil(t, g.MaxLagMs)
	assert.Zero(t, *g.MaxLagMs, "the known partition's; the odd ones are counted apart")

	only := res[1]
	assert.Equal(t, 1, only.OddTimestamps)
	assert.Nil(t, only.MaxLagMs, "unknown, not 0")

	st, err := cl.LagStatus(ctx, []string{"only-odd"}, LagStatusOptions{Lag: LagOptions{Time: true, Now: clock}, MaxLagMs: 1000})
	require.NoError(t, err)
	assert.Equal(t, 1, st[0].OddTimestamps)
	assert.Nil(t, st[0].MaxLagMs)
}
