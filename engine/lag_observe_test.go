package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lag{observe}: within one call, a lagging partition whose committed
// offset does not move while watched is stuck for at least the watch; one
// that a consumer commits on meanwhile is not, even when the state store
// said it was; a group that does not lag is not read again.
func TestLagObserveFlagsWhatDoesNotMoveWithinOneCall(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopic(ctx, 2, 3, nil, "obs")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	for p := range int32(2) {
		for range 10 {
			require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "obs", Partition: p, Value: []byte("v")}).FirstErr())
		}
	}
	commitAt(t, adm, "g", "obs", map[int32]int64{0: 3, 1: 3})
	commitAt(t, adm, "idle", "obs", map[int32]int64{0: 10, 1: 10})

	// The store says partition 1 has been still for a minute.
	then := time.Now().Add(-time.Minute)
	_, err = cl.LagStatus(ctx, []string{"g"}, LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return then }}})
	require.NoError(t, err)

	// A consumer commits partition 1 while the call watches.
	committed := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		os := kadm.Offsets{}
		os.Add(kadm.Offset{Topic: "obs", Partition: 1, At: 5, LeaderEpoch: -1})
		_, err := adm.CommitOffsets(context.Background(), "g", os)
		committed <- err
	}()
	observe := 600 * time.Millisecond
	began := time.Now()
	lags, err := cl.LagWith(ctx, []string{"g", "idle"}, LagOptions{Observe: observe})
	require.NoError(t, err)
	require.NoError(t, <-committed)
	assert.GreaterOrEqual(t, time.Since(began), observe, "the call watched for as long as asked")

	still := partitionOf(t, lags[0], 0)
	require.NotNil(t, still.StuckMs, "%+v", still)
	assert.GreaterOrEqual(t, *still.StuckMs, observe.Milliseconds())
	moved := partitionOf(t, lags[0], 1)
	assert.Nil(t, moved.StuckMs, "it moved while watched, whatever the store said: %+v", moved)
	assert.Equal(t, int64(3), moved.Committed, "the rows are the first reading's")
	for _, p := range lags[1].Partitions {
		assert.Nil(t, p.StuckMs, "a caught-up group is not stuck")
	}
}

// Ctrl-C (the context) ends the watch at once, as an error.
func TestLagObserveStopsWhenCanceled(t *testing.T) {
	cl, c, adm := newTestClient(t)
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 5)
	commitAt(t, adm, "g", "t", map[int32]int64{0: 1})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	began := time.Now()
	_, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Observe: time.Minute})
	require.Error(t, err)
	assert.Less(t, time.Since(began), 30*time.Second)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeCanceled, e.Code, "%v", err)
}
