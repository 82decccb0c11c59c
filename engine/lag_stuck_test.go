package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// A consumer that keeps up commits every few seconds, so between two
// commits its offset stands still while it lags a little: that is no
// news, and stuck_ms (on lag_status's rows and on lag's, from the store)
// is only where standing still is the verdict, STALL or STOP. It was set
// on every such healthy partition.
func TestStuckOnlyWhereTheVerdictSaysStuck(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	t0 := time.Now().Add(-time.Minute)
	at := func(s int) LagOptions {
		return LagOptions{Now: func() time.Time { return t0.Add(time.Duration(s) * time.Second) }}
	}
	sample := func(s int) PartitionLagStatus {
		t.Helper()
		st, err := cl.LagStatus(ctx, []string{"g"}, LagStatusOptions{Lag: at(s), Partitions: true})
		require.NoError(t, err)
		require.Len(t, st[0].Partitions, 1)
		return st[0].Partitions[0]
	}

	produceN(t, kc, "t", 30)
	commitAt(t, adm, "g", "t", map[int32]int64{0: 5})
	sample(0)
	produceN(t, kc, "t", 10)
	commitAt(t, adm, "g", "t", map[int32]int64{0: 29}) // it read on: lag 25 -> 11
	sample(20)
	produceN(t, kc, "t", 5) // between its commits: lag 16
	healthy := sample(22)
	assert.Equal(t, verdicts.LagStatusOK, healthy.Status, "%+v", healthy)
	assert.Nil(t, healthy.StuckMs, "healthy: not stuck, though it stood still 2 s")

	lags, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true, Now: at(23).Now})
	require.NoError(t, err)
	assert.Nil(t, partitionOf(t, lags[0], 0).StuckMs, "lag(): the store's window says healthy too")

	// It stops: the offset stands still past the window's span.
	sample(50)
	stopped := sample(90)
	assert.Equal(t, verdicts.LagStatusStop, stopped.Status, "%+v", stopped)
	require.NotNil(t, stopped.StuckMs)
	assert.EqualValues(t, 70_000, *stopped.StuckMs, "since it last moved, at 20 s")
	lags, err = cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true, Now: at(100).Now})
	require.NoError(t, err)
	stuck := partitionOf(t, lags[0], 0).StuckMs
	require.NotNil(t, stuck)
	assert.EqualValues(t, 80_000, *stuck)
}
