package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// stateWorld is a cluster with a topic of 100 records and a group that
// committed 40 of them once and never again.
func stateWorld(t *testing.T) (*cluster, string) {
	t.Helper()
	c := newCluster(t)
	adm := c.admin(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	_, err := adm.CreateTopic(ctx(t), 1, 3, nil, "orders")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	rs := make([]*kgo.Record, 100)
	for i := range rs {
		rs[i] = &kgo.Record{Topic: "orders", Value: []byte("v")}
	}
	require.NoError(t, kc.ProduceSync(ctx(t), rs...).FirstErr())
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 40, LeaderEpoch: -1})
	_, err = adm.CommitOffsets(ctx(t), "orders-app", os)
	require.NoError(t, err)
	return c, filepath.Join(t.TempDir(), "lag.state")
}

func lagStatusRun(t *testing.T, cli *cli, c *cluster, statePath string, extra ...string) map[string]any {
	t.Helper()
	args := append([]string{"-b", c.addrs, "--state", statePath, "-o", "json"}, extra...)
	require.Equal(t, ExitOK, cli.run(append(args, "-e", `lag_status("orders-app")`)...), cli.stderr.String())
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(cli.stdout.String()), &rows), cli.stdout.String())
	require.Len(t, rows, 1)
	return rows[0]
}

// Samples are kept between runs in --state FILE: the first run has one and
// no verdict to give; the second, a second later, sees the group has not
// committed for longer than its window spans: STOP, and check-lag fails.
func TestStateFileJudgesAcrossRuns(t *testing.T) {
	c, statePath := stateWorld(t)
	cli := newCLI(t)
	first := lagStatusRun(t, cli, c, statePath)
	assert.Equal(t, "OK", first["status"])
	assert.Equal(t, 1.0, first["samples"])
	fi, err := os.Stat(statePath)
	require.NoError(t, err, "the run wrote the state file")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	time.Sleep(1100 * time.Millisecond) // past min-distance
	second := lagStatusRun(t, cli, c, statePath)
	assert.Equal(t, "ERR", second["status"])
	assert.Equal(t, 2.0, second["samples"])
	assert.Contains(t, second["reason"], "orders[0] is STOP (stopped)")

	// check-lag judges whole windows: --state-window 2s is whole by now.
	time.Sleep(1100 * time.Millisecond)
	assert.Equal(t, ExitCheck, cli.run("-b", c.addrs, "--state", statePath, "--state-window", "2s", "run", "check-lag", "orders-app"), cli.stderr.String())
	assert.Contains(t, cli.stderr.String(), "orders-app: ERR: orders[0] is STOP (stopped)")

	// KADMIN_STATE names the file too.
	cli.env["KADMIN_STATE"] = statePath
	time.Sleep(1100 * time.Millisecond)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "-o", "json", "-e", `lag_status("orders-app")[1].samples`), cli.stderr.String())
	assert.Equal(t, "4\n", cli.stdout.String())
}

// Loop mode keeps the store in memory and writes it after each run.
func TestStateFileInLoopMode(t *testing.T) {
	c, statePath := stateWorld(t)
	cli := newCLI(t)
	script := writeFile(t, "status.lua", `local s = lag_status("orders-app")[1]; print(s.samples, s.status)`)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "--state", statePath, "run", "--every", "1100ms", "--max-runs", "3", script), cli.stderr.String())
	assert.Contains(t, cli.stdout.String(), "1\tOK\n2\tERR\n3\tERR\n")
	store, err := state.OpenFile(statePath, state.Options{})
	require.NoError(t, err)
	defer store.Close()
	assert.Equal(t, 1, store.Partitions())
}

// A second run waits for the first one's lock, then refuses; a corrupt
// file is set aside and the run goes on.
func TestStateFileLockedOrCorrupt(t *testing.T) {
	c, statePath := stateWorld(t)
	holder := holdStateFile(t, statePath)
	cli := newCLI(t)
	assert.Equal(t, ExitScript, cli.run("-b", c.addrs, "--state", statePath, "--state-wait", "200ms", "-e", `lag_status()`))
	assert.Contains(t, cli.stderr.String(), "STATE_LOCKED: the state file is in use by another run (process ")
	// A run that never records does not wait for the lock.
	cli = newCLI(t)
	begun := time.Now()
	assert.Equal(t, ExitOK, cli.run("-b", c.addrs, "--state", statePath, "-e", `return #list_topics()`), cli.stderr.String())
	assert.Less(t, time.Since(begun), state.DefaultLockWait)
	assert.NotContains(t, cli.stderr.String(), "STATE_LOCKED")
	holder.Close()

	require.NoError(t, os.WriteFile(statePath, []byte("not a state file"), 0o600))
	row := lagStatusRun(t, cli, c, statePath)
	assert.Equal(t, "OK", row["status"])
	assert.Contains(t, cli.stderr.String(), "WARN state: "+statePath+" cannot be read as a state file (not a kadmin-lua state file): set aside as "+statePath+".corrupt-")
	aside, _ := filepath.Glob(statePath + ".corrupt-*")
	assert.Len(t, aside, 1)
}

// A --state path that is not a regular file is refused at start and left
// as it is: never set aside as a corrupt file, never renamed over, no lock
// file beside it (--state /dev/null once moved the device away).
func TestStateFileMustBeARegularFile(t *testing.T) {
	c, _ := stateWorld(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "state")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(fifo, link))
	for path, kind := range map[string]string{fifo: "a named pipe (FIFO)", link: "a named pipe (FIFO)", dir: "a directory"} {
		cli := newCLI(t)
		assert.Equal(t, ExitUsage, cli.run("-b", c.addrs, "--state", path, "-e", `lag_status()`), path)
		assert.Contains(t, cli.stderr.String(), "--state: INVALID_ARGUMENT: "+path+" is "+kind+", not a regular file: kadmin-lua writes this file whole")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"link", "state"}, names, "nothing set aside, nothing written")
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeNamedPipe)
}

// undo needs no lag samples: with KADMIN_STATE naming a file another run
// holds (a loop), it neither waits for the lock nor fails on it.
func TestUndoIgnoresAStateFileInUse(t *testing.T) {
	cl, audit := undoWorld(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--audit-log", audit, "-e",
		`alter_configs{{topic = "orders", set = {["retention.ms"] = "2000"}}}`), c.stderr.String())
	statePath := filepath.Join(t.TempDir(), "loop.state")
	holder := holdStateFile(t, statePath)
	defer holder.Close()

	c = newCLI(t)
	c.env["KADMIN_STATE"] = statePath
	begun := time.Now()
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--yes", "undo", audit), c.stderr.String())
	assert.Less(t, time.Since(begun), state.DefaultLockWait, "undo did not wait for the state file's lock")
	assert.NotContains(t, c.stderr.String(), "STATE_LOCKED")
	assert.Equal(t, "1000", retention(t, cl.adm, "orders"), "the change was reverted")
}

// holdStateFile opens the store at path and takes its lock as a run's
// first change does (a loop holds it so between its runs).
func holdStateFile(t *testing.T, path string) *state.Store {
	t.Helper()
	s, err := state.OpenFile(path, state.Options{})
	require.NoError(t, err)
	require.NoError(t, s.Notices("holder").SaveNotice("k", alerts.Notice{Status: "firing"}))
	return s
}
