package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lock file is kadmin-lua's own: a symbolic link or a hard link put
// there is refused, and what it points to is left as it was. (Opening it
// followed the link and truncated the target: as root, any file.)
func TestStateFileLockNeverFollowsALink(t *testing.T) {
	for _, kind := range []string{"symbolic", "hard"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "precious")
			require.NoError(t, os.WriteFile(victim, []byte("keep me\n"), 0o600))
			path := filepath.Join(dir, "state")
			if kind == "symbolic" {
				require.NoError(t, os.Symlink(victim, path+".lock"))
			} else {
				require.NoError(t, os.Link(victim, path+".lock"))
			}
			s, err := OpenStateFile(path, StateOptions{})
			require.NoError(t, err)
			defer s.Close()
			err = s.record("cluster-a", "profile:a", 1_000, []groupSample{{group: "g", parts: []PartitionLag{lagRow("t", 0, 1, 2)}}}, nil)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeStateFile, e.Code)
			assert.Contains(t, e.Message, path+".lock is a ")
			assert.Contains(t, e.Message, "kadmin-lua makes its own lock file")
			kept, err := os.ReadFile(victim)
			require.NoError(t, err)
			assert.Equal(t, "keep me\n", string(kept))
		})
	}
}

// A --state path that is a symbolic link stays one: the store is written
// to the file it points to (made if need be), renamed over that file, and
// the lock file is made beside it. (The rename went over the link and
// replaced it with a regular file.)
func TestStateFileKeepsASymlinkedPathALink(t *testing.T) {
	for _, exists := range []bool{true, false} {
		t.Run("target exists "+strconv.FormatBool(exists), func(t *testing.T) {
			links, data := t.TempDir(), t.TempDir()
			target := filepath.Join(data, "lag.state")
			if exists {
				savedOneSample(t, target).Close()
			}
			link := filepath.Join(links, "state")
			require.NoError(t, os.Symlink(target, link))

			s, err := OpenStateFile(link, StateOptions{})
			require.NoError(t, err)
			recordOne(t, s, 100_000, "g", lagRow("t", 1, 1, 2))
			require.NoError(t, s.Save())
			s.Close()

			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&os.ModeSymlink, "still a link")
			again, err := OpenStateFile(target, StateOptions{})
			require.NoError(t, err)
			defer again.Close()
			assert.Len(t, again.Window("cluster-a", "g", "t", 1), 1, "written to the link's target")
			assert.FileExists(t, target+".lock")
			assert.NoFileExists(t, link+".lock")
		})
	}
}

// A run that never uses the store does not read its file: an 8 MiB file
// costs nothing (it was read, and decoded, at open).
func TestStateFileUnusedCostsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.WriteFile(path, make([]byte, 8<<20), 0o600))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := OpenStateFile(path, StateOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Save())
	s.Close()
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
}

// A state file larger than the bound is not read: a warning says so, the
// run records, and the file is set aside under the lock (it was read whole,
// twice its size, and a gigabyte could fail a run under --max-memory).
func TestStateFileLargerThanTheBoundIsSetAsideUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(DefaultStateMaxFile+1)) // sparse: no disk used
	require.NoError(t, f.Close())
	var warned []string
	s, err := OpenStateFile(path, StateOptions{Warn: func(m string) { warned = append(warned, m) }})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	recordOne(t, s, 1_000, "g", lagRow("t", 0, 1, 2))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "not read")
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], "larger than the 128 MiB kadmin-lua reads")
	assert.Contains(t, warned[0], "set aside as "+path+".corrupt-")
	require.NoError(t, s.Save())
	s.Close()
	again, err := OpenStateFile(path, StateOptions{})
	require.NoError(t, err)
	defer again.Close()
	assert.Equal(t, 1, again.Partitions())
}

// A store that would write a file over the bound drops the groups sampled
// longest ago and says so: the next run can read what this one wrote.
func TestStateFileWritesWithinTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	var warned []string
	s, err := OpenStateFile(path, StateOptions{MaxFileBytes: 4096, Warn: func(m string) { warned = append(warned, m) }})
	require.NoError(t, err)
	for g := range 40 {
		parts := make([]PartitionLag, 20)
		for p := range parts {
			parts[p] = lagRow("topic", int32(p), 1000, 2000)
		}
		recordOne(t, s, int64(1_000*(g+1)), "group-"+strconv.Itoa(g), parts...)
	}
	require.NoError(t, s.Save())
	s.Close()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(4096))
	require.NotEmpty(t, warned)
	assert.Contains(t, warned[len(warned)-1], "the state file would be larger than 4 KiB: dropped the ")
	again, err := OpenStateFile(path, StateOptions{MaxFileBytes: 4096})
	require.NoError(t, err)
	defer again.Close()
	assert.NotNil(t, again.Window("cluster-a", "group-39", "topic", 0), "the newest groups are kept")
	assert.Nil(t, again.Window("cluster-a", "group-0", "topic", 0))
}

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

	loop, err := OpenStateFile(path, StateOptions{})
	require.NoError(t, err)
	cl.cfg.State = loop
	_, err = cl.LagStatus(ctx, []string{"g"}, opts) // a loop's first run: it holds the lock from now on
	require.NoError(t, err)

	other, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer other.Close()
	cron, err := OpenStateFile(path, StateOptions{LockWait: 30 * time.Second})
	require.NoError(t, err)
	defer cron.Close()
	other.cfg.State = cron

	contended := make(chan struct{})
	lockContended = func() { close(contended) }
	defer func() { lockContended = nil }()
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
