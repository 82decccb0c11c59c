package engine

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// Two runs that overlap on one state file keep every sample: the second
// waits for the first's lock before it samples, so its sample is the
// newer. (It sampled first and waited to record: the first run's newer
// sample then read as a clock gone backwards, and the windows restarted.)
func TestStateFileOverlappingRunsKeepEverySample(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 100)
	commitAt(t, adm, "g", "t", map[int32]int64{0: 50})
	path := filepath.Join(t.TempDir(), "state")

	var mu sync.Mutex
	clock := time.UnixMilli(1_700_000_000_000)
	setClock := func(d time.Duration) { mu.Lock(); clock = time.UnixMilli(1_700_000_000_000).Add(d); mu.Unlock() }
	opts := LagStatusOptions{Lag: LagOptions{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }}}

	loop, err := state.OpenFile(path, state.Options{})
	require.NoError(t, err)
	cl.cfg.State = loop
	_, err = cl.LagStatus(ctx, []string{"g"}, opts) // a loop's first run: it holds the lock from now on
	require.NoError(t, err)

	other, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer other.Close()
	cron, err := state.OpenFile(path, state.Options{LockWait: 30 * time.Second})
	require.NoError(t, err)
	defer cron.Close()
	other.cfg.State = cron

	contended := make(chan struct{})
	state.OnLockContended = func() { close(contended) }
	defer func() { state.OnLockContended = nil }()
	setClock(3 * time.Second)
	var cronRes []GroupLagStatus
	var cronErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		cronRes, cronErr = other.LagStatus(ctx, []string{"g"}, opts)
	}()
	<-contended // the cron run waits for the loop's lock
	setClock(5 * time.Second)
	_, err = cl.LagStatus(ctx, []string{"g"}, opts) // the loop's next run
	require.NoError(t, err)
	require.NoError(t, loop.Save())
	setClock(6 * time.Second)
	loop.Close()
	<-done
	require.NoError(t, cronErr)
	p := cronRes[0].Worst[0]
	assert.Empty(t, p.Reset, "no window started afresh")
	assert.Equal(t, 3, p.Samples, "the loop's two samples and the cron run's")
	id, err := other.ClusterID(ctx)
	require.NoError(t, err)
	assert.Equal(t, []int64{1_700_000_000_000, 1_700_000_005_000, 1_700_000_006_000}, sampleTimes(cron.Window(id, "g", "t", 0)))
}

func sampleTimes(w []state.Sample) []int64 {
	out := make([]int64, len(w))
	for i, s := range w {
		out[i] = s.TimeMs
	}
	return out
}
