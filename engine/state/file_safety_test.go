package state

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
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
			s, err := OpenFile(path, Options{})
			require.NoError(t, err)
			defer s.Close()
			err = s.record("cluster-a", "profile:a", 1_000, []Group[row]{{Name: "g", Parts: []row{lagRow("t", 0, 1, 2)}}}, nil)
			var e *vocab.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, vocab.CodeStateFile, e.Code)
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

			s, err := OpenFile(link, Options{})
			require.NoError(t, err)
			recordOne(t, s, 100_000, "g", lagRow("t", 1, 1, 2))
			require.NoError(t, s.Save())
			s.Close()

			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&os.ModeSymlink, "still a link")
			again, err := OpenFile(target, Options{})
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
	s, err := OpenFile(path, Options{})
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
	require.NoError(t, f.Truncate(DefaultMaxFile+1)) // sparse: no disk used
	require.NoError(t, f.Close())
	var warned []string
	s, err := OpenFile(path, Options{Warn: func(m string) { warned = append(warned, m) }})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	recordOne(t, s, 1_000, "g", lagRow("t", 0, 1, 2))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "not read")
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], "larger than the 512 MiB kadmin-lua reads")
	assert.Contains(t, warned[0], "set aside as "+path+".corrupt-")
	require.NoError(t, s.Save())
	s.Close()
	again, err := OpenFile(path, Options{})
	require.NoError(t, err)
	defer again.Close()
	assert.Equal(t, 1, again.Partitions())
}

// A store that would write a file over the bound drops the groups sampled
// longest ago and says so: the next run can read what this one wrote.
func TestStateFileWritesWithinTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	var warned []string
	s, err := OpenFile(path, Options{MaxFileBytes: 4096, Warn: func(m string) { warned = append(warned, m) }})
	require.NoError(t, err)
	for g := range 40 {
		parts := make([]row, 20)
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
	again, err := OpenFile(path, Options{MaxFileBytes: 4096})
	require.NoError(t, err)
	defer again.Close()
	assert.NotNil(t, again.Window("cluster-a", "group-39", "topic", 0), "the newest groups are kept")
	assert.Nil(t, again.Window("cluster-a", "group-0", "topic", 0))
}
