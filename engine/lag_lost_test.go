package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// Records deleted before a group read them are lag, not its absence: the
// partition's lag in time is at least the age of the oldest record left
// (time_unknown says it is a floor), it and its group sort first under
// lag_ms, and lag_status's max_lag_ms fails it. Before, its lag_ms was
// nil and its group's max_lag_ms 0: it sorted last and passed any limit.
func TestLostRecordsAreLagInTime(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "t")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	produceAt(t, kc, "t", 0, base, base+1_000, base+2_000, base+60_000, base+61_000)
	commitAt(t, adm, "lost", "t", map[int32]int64{0: 1})
	commitAt(t, adm, "slow", "t", map[int32]int64{0: 3}) // behind by its record at base+60 s
	_, err = adm.DeleteRecords(ctx, kadm.Offsets{"t": {0: {Topic: "t", Partition: 0, At: 3}}})
	require.NoError(t, err)
	now := time.UnixMilli(base + 100_000)

	res, err := cl.LagWith(ctx, nil, LagOptions{Time: true, Now: func() time.Time { return now }, Sort: LagSortLagMs})
	require.NoError(t, err)
	require.Len(t, res, 2)
	assert.Equal(t, "lost", res[0].Group, "lost records sort first")
	p := res[0].Partitions[0]
	assert.EqualValues(t, 2, p.RecordsLost)
	require.NotNil(t, p.LagMs)
	assert.EqualValues(t, 40_000, *p.LagMs, "at least the age of the oldest record left (offset 3, base+60 s)")
	assert.Equal(t, TimeUnknownLost, p.TimeUnknown)
	require.NotNil(t, res[0].MaxLagMs)
	assert.EqualValues(t, 40_000, *res[0].MaxLagMs, "not 0")
	assert.Equal(t, "slow", res[1].Group)
	assert.EqualValues(t, 40_000, *res[1].MaxLagMs, "as far behind by the records left, but nothing lost")

	sts, err := cl.LagStatus(ctx, []string{"lost", "slow"}, LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}, MaxLagMs: 3_600_000})
	require.NoError(t, err)
	lost, slow := statusOf(t, sts, "lost"), statusOf(t, sts, "slow")
	assert.Equal(t, verdicts.GroupStatusErr, lost.Status)
	assert.Contains(t, lost.Reason, "2 records were deleted before it read them: its lag in time is unknown (at least 40000 ms), so max_lag_ms 3600000 cannot be held")
	assert.Equal(t, verdicts.GroupStatusOK, slow.Status, slow.Reason)
}
