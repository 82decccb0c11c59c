package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
)

// stateTopicOn is a state kept in topic "kadmin-state" under key on c, as
// a run with cfg's settings keeps it, and the warnings it gave.
func stateTopicOn(t *testing.T, cfg Config, key string) (*StateTopic, *[]string) {
	t.Helper()
	return stateTopicNamed(t, cfg, "kadmin-state", key)
}

// stateRecords reads every committed record of the state topic: until a
// fetch finds nothing more (the end is a commit marker, not a record).
func stateRecords(t *testing.T, c *kfake.Cluster) []*kgo.Record {
	t.Helper()
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("kadmin-state"), kgo.FetchMaxWait(50*time.Millisecond),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	require.NoError(t, err)
	defer kc.Close()
	var out []*kgo.Record
	for range 20 {
		// PollFetches waits for records: a quiet moment is the end.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		n := len(out)
		kc.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, r) })
		cancel()
		if n > 0 && len(out) == n {
			break
		}
	}
	return out
}

// stateBytes is a state of n bytes that is not all one value.
func stateBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func TestStateTopicIsMadeCompactedAndKeepsAVersionWhole(t *testing.T) {
	cl, c, adm := newTestClient(t)
	st, warned := stateTopicOn(t, cl.Config(), "lag-job")
	data, err := st.Read(1 << 30)
	require.NoError(t, err)
	assert.Nil(t, data, "no topic yet: no state, and nothing made by a read")
	topics, err := adm.ListTopics(context.Background())
	require.NoError(t, err)
	assert.False(t, topics.Has("kadmin-state"))

	require.NoError(t, st.Take())
	cfgs, err := adm.DescribeTopicConfigs(context.Background(), "kadmin-state")
	require.NoError(t, err)
	got := map[string]string{}
	for _, cv := range cfgs[0].Configs {
		if cv.Value != nil {
			got[cv.Key] = *cv.Value
		}
	}
	for k, v := range StateTopicConfigs {
		assert.Equal(t, v, got[k], k)
	}

	// Three parts: two whole and one short.
	want := stateBytes(2*StatePartBytes + 100)
	require.NoError(t, st.Write(want))

	next, _ := stateTopicOn(t, cl.Config(), "lag-job")
	require.NoError(t, next.Take())
	data, err = next.Read(1 << 30)
	require.NoError(t, err)
	assert.Equal(t, want, data)

	// A smaller version deletes the parts it no longer has.
	small := stateBytes(10)
	require.NoError(t, next.Write(small))
	recs := stateRecords(t, c)
	id, err := cl.ClusterID(context.Background())
	require.NoError(t, err)
	head := StateHeadKey(id, "lag-job")
	tombstones := 0
	for _, r := range recs {
		assert.True(t, strings.HasPrefix(string(r.Key), head), "every record is the state's: %q", r.Key)
		if r.Value == nil {
			tombstones++
		}
	}
	assert.Equal(t, 2, tombstones, "parts 1 and 2 deleted")
	last, _ := stateTopicOn(t, cl.Config(), "lag-job")
	data, err = last.Read(1 << 30)
	require.NoError(t, err)
	assert.Equal(t, small, data)
	assert.Empty(t, *warned)
}

// TestStateTopicCreationIsAuditedItsWritesAreNot: making the topic changes
// the cluster (an intent line, undo deletes it); a state's versions are the
// tool's own bookkeeping, as the file's are.
func TestStateTopicCreationIsAuditedItsWritesAreNot(t *testing.T) {
	cl, _, _, path := auditedClient(t)
	st, _ := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, st.Take())
	require.NoError(t, st.Write([]byte("v1")))
	require.NoError(t, st.Write([]byte("v2")))
	assert.Equal(t, []string{"intent create_topics", "outcome create_topics"}, linesOf(t, path))
}

// TestStateTopicCompactionKeepsTheNewestVersion: compaction drops replaced
// versions, the deleted parts and their tombstones; the newest stays whole.
func TestStateTopicCompactionKeepsTheNewestVersion(t *testing.T) {
	cl, c, adm := newTestClient(t)
	st, _ := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, st.Take())
	for _, n := range []int{3*StatePartBytes - 5, 10, 2*StatePartBytes - 1} {
		require.NoError(t, st.Write(stateBytes(n)))
	}
	_, err := adm.AlterTopicConfigs(context.Background(), []kadm.AlterConfig{
		{Name: "min.compaction.lag.ms", Value: kmsgStr("0")}, {Name: "delete.retention.ms", Value: kmsgStr("0")}}, "kadmin-state")
	require.NoError(t, err)
	before := len(stateRecords(t, c))
	c.Compact()
	after := len(stateRecords(t, c))
	assert.Less(t, after, before, "compaction removed the replaced versions")
	next, warned := stateTopicOn(t, cl.Config(), "job")
	data, err := next.Read(1 << 30)
	require.NoError(t, err)
	assert.Equal(t, stateBytes(2*StatePartBytes-1), data)
	assert.Empty(t, *warned)
}

func kmsgStr(s string) *string { return &s }

func TestStateTopicNewerRunFencesTheOlder(t *testing.T) {
	cl, _, _ := newTestClient(t)
	older, _ := stateTopicOn(t, cl.Config(), "job")
	newer, _ := stateTopicOn(t, cl.Config(), "job")
	other, _ := stateTopicOn(t, cl.Config(), "another-job")
	require.NoError(t, older.Take())
	require.NoError(t, newer.Take())
	require.NoError(t, other.Take(), "another key is another writer")

	err := older.Write([]byte("older"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state kafka:kadmin-state/job: another run took the state since this run started")
	require.NoError(t, newer.Write([]byte("newer")))
	require.NoError(t, other.Write([]byte("other")))

	reader, _ := stateTopicOn(t, cl.Config(), "job")
	data, err := reader.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "newer", string(data), "exactly one writer's state")
	reader2, _ := stateTopicOn(t, cl.Config(), "another-job")
	data, err = reader2.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "other", string(data))
}

func TestStateTopicKilledWriteLeavesTheVersionBefore(t *testing.T) {
	cl, c, _ := newTestClient(t)
	st, _ := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, st.Take())
	require.NoError(t, st.Write([]byte("committed")))

	// A run killed mid-write: its transaction holds parts and no commit.
	killed, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID(st.TransactionalID()),
		kgo.DefaultProduceTopic("kadmin-state"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer killed.Close()
	require.NoError(t, killed.BeginTransaction())
	id, err := cl.ClusterID(context.Background())
	require.NoError(t, err)
	require.NoError(t, killed.ProduceSync(context.Background(), &kgo.Record{Key: []byte(StateHeadKey(id, "job")), Value: []byte("half")}).FirstErr())

	// The next run takes (aborting the killed write) and reads the version before.
	next, warned := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, next.Take())
	data, err := next.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "committed", string(data))
	assert.Empty(t, *warned)
}

func TestStateTopicSetsAsideWhatItCannotRead(t *testing.T) {
	cl, c, adm := newTestClient(t)
	id, err := cl.ClusterID(context.Background())
	require.NoError(t, err)
	head := StateHeadKey(id, "job")
	plain, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("kadmin-state"))
	require.NoError(t, err)
	defer plain.Close()
	produce := func(key string, value []byte) {
		require.NoError(t, plain.ProduceSync(context.Background(), &kgo.Record{Key: []byte(key), Value: value}).FirstErr())
	}
	read := func() ([]byte, []string, error) {
		st, warned := stateTopicOn(t, cl.Config(), "job")
		data, err := st.Read(1 << 30)
		return data, *warned, err
	}
	st, _ := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, st.Take())
	require.NoError(t, st.Write(stateBytes(StatePartBytes+1)))

	// Foreign records around it: another program's, another cluster's.
	produce("hello", []byte("world"))
	produce(StateHeadKey("other-cluster", "job"), []byte("{}"))
	data, warned, err := read()
	require.NoError(t, err)
	assert.Len(t, data, StatePartBytes+1)
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], "2 records in kadmin-state[0] are not this cluster's kadmin-lua state")

	// A head whose parts are not all there.
	produce(head, []byte(`{"format":1,"generation":"x","parts":3,"part_bytes":524288,"bytes":1048600,"crc32":1,"first_offset":0,"written_ms":0,"writer":"w"}`))
	_, _, err = read()
	require.ErrorIs(t, err, state.ErrUnreadable)
	assert.Contains(t, err.Error(), "part 0 of the 3 of the state at kadmin-state[0] offsets 0 to")
	assert.Contains(t, err.Error(), "compacted away or deleted")

	// A head that is not one.
	produce(head, []byte("garbage"))
	_, _, err = read()
	require.ErrorIs(t, err, state.ErrUnreadable)
	assert.Regexp(t, `the newest record of kadmin-lua-state/v1/.*/job at kadmin-state\[0\] offset \d+ is not a state head`, err.Error())

	// A good version, then its parts deleted (retention, delete_records).
	require.NoError(t, st.Write(stateBytes(100)))
	ends, err := adm.ListEndOffsets(context.Background(), "kadmin-state")
	require.NoError(t, err)
	end, _ := ends.Lookup("kadmin-state", 0)
	deleteTo := kadm.Offsets{}
	deleteTo.AddOffset("kadmin-state", 0, end.Offset-2, -1) // the head and its commit marker stay
	_, err = adm.DeleteRecords(context.Background(), deleteTo)
	require.NoError(t, err)
	_, _, err = read()
	require.ErrorIs(t, err, state.ErrUnreadable)
	assert.Contains(t, err.Error(), "are gone")

	// An operator's reset: a tombstone under the head's key.
	produce(head, nil)
	data, _, err = read()
	require.NoError(t, err)
	assert.Nil(t, data)

	// Over the bound: not read.
	require.NoError(t, st.Write(stateBytes(1000)))
	st2, _ := stateTopicOn(t, cl.Config(), "job")
	_, err = st2.Read(999)
	require.ErrorIs(t, err, state.ErrUnreadable)
	assert.Contains(t, err.Error(), "larger than the 999")
}

func TestStateTopicDryRunTakesAndWritesNothing(t *testing.T) {
	cl, _, adm := newTestClient(t)
	real, _ := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, real.Take())
	require.NoError(t, real.Write([]byte("v1")))

	cfg := cl.Config()
	cfg.DryRun = true
	dry, warned := stateTopicOn(t, cfg, "job")
	require.NoError(t, dry.Take())
	data, err := dry.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "v1", string(data), "a dry run reads the state")
	require.NoError(t, dry.Write([]byte("dry")))
	require.NoError(t, dry.Write([]byte("dry")))
	assert.Equal(t, []string{"dry-run: the state is read from kafka:kadmin-state/job, not written"}, *warned)

	require.NoError(t, real.Write([]byte("v2")), "the dry run fenced no one")
	data, err = dry.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "v2", string(data))

	// On a cluster with no state topic, a dry run makes none.
	cfg.DryRun = true
	dry2, err := NewStateTopic(cfg, "other-state", "job", nil)
	require.NoError(t, err)
	defer dry2.Close()
	require.NoError(t, dry2.Take())
	require.NoError(t, dry2.Write([]byte("x")))
	topics, err := adm.ListTopics(context.Background())
	require.NoError(t, err)
	assert.False(t, topics.Has("other-state"))
}

func TestStateTopicRefusedSaysWhatToGrant(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.EnableACLs(),
		kfake.Superuser("SCRAM-SHA-256", "admin", "admin-pass"), kfake.User("SCRAM-SHA-256", "eve", "eve-pass"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cfg := Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second,
		SASL: &login.SASLConfig{Mechanism: "SCRAM-SHA-256", Username: "eve", Password: Secret("eve-pass")}}
	st, _ := stateTopicOn(t, cfg, "job")
	err = st.Take()
	require.Error(t, err)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.True(t, IsDenied(e), "%v", err)
	assert.Contains(t, err.Error(), "state kafka:kadmin-state/job")
	assert.Contains(t, err.Error(), "DESCRIBE and WRITE on transactional id kadmin-lua-state/kadmin-state/job")
	assert.NotContains(t, err.Error(), "eve-pass")
	_, err = st.Read(1 << 20)
	require.Error(t, err, "a state that cannot be read is not an empty one")
	assert.True(t, errors.As(err, &e) && IsDenied(e), "%v", err)
}

func TestStateTopicWaitsForAnOpenTransactionThenSaysSo(t *testing.T) {
	cl, c, _ := newTestClient(t)
	st, _ := stateTopicOn(t, cl.Config(), "job")
	require.NoError(t, st.Take())
	require.NoError(t, st.Write([]byte("mine")))

	// Another job's write left open (killed) in the same partition, then
	// this job's newer version committed after it.
	stuck, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("someone-else"),
		kgo.DefaultProduceTopic("kadmin-state"))
	require.NoError(t, err)
	defer stuck.Close()
	require.NoError(t, stuck.BeginTransaction())
	require.NoError(t, stuck.ProduceSync(context.Background(), &kgo.Record{Key: []byte("x"), Value: []byte("y")}).FirstErr())
	require.NoError(t, st.Write([]byte("mine, newer")))

	reader, warned := stateTopicOn(t, cl.Config(), "job")
	reader.StableWait = 0
	data, err := reader.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data), "what is committed before the open transaction")
	require.NotEmpty(t, *warned)
	assert.Contains(t, (*warned)[0], "a transaction in kadmin-state[0] is open since offset")

	// Once it ends, the newer version.
	require.NoError(t, stuck.EndTransaction(context.Background(), kgo.TryAbort))
	data, err = reader.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "mine, newer", string(data))
}

// TestStateTopicKeepsAStoreAcrossPods: lag_status's samples, kept by one
// run and read by the next with nothing else in common (a CronJob's pods
// have no volume), judge as the same runs with a state file judge.
func TestStateTopicKeepsAStoreAcrossPods(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	dir := t.TempDir()
	// Three runs a minute apart; the group commits at the first only.
	type verdict struct {
		Status, Trend, WorstStatus, WorstRule string
		Samples                               int
		TotalLag, WindowMs                    int64
	}
	runs := func(topic string, open func() *state.Store) []verdict {
		kc := oneTopic(t, c, adm, topic)
		var out []verdict
		for i := range 3 {
			if i == 0 {
				commitAt(t, adm, "billing-"+topic, topic, map[int32]int64{0: 4})
			}
			produceN(t, kc, topic, 10)
			store := open()
			cfg := cl.Config()
			cfg.State = store
			pod, err := New(cfg)
			require.NoError(t, err)
			now := time.UnixMilli(1_700_000_000_000 + int64(i)*60_000)
			res, err := pod.LagStatus(ctx, []string{"billing-" + topic}, LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}})
			require.NoError(t, err)
			require.NoError(t, store.Save())
			store.Close()
			pod.Close()
			g := res[0]
			require.NotEmpty(t, g.Worst)
			assert.True(t, g.StateFile, "the samples are kept for the next run")
			out = append(out, verdict{g.Status, g.Trend, g.Worst[0].Status, g.Worst[0].Rule, g.Samples, g.TotalLag, g.WindowMs})
		}
		return out
	}
	var warned bytes.Buffer
	inTopic := runs("orders", func() *state.Store {
		st, err := NewStateTopic(cl.Config(), "kadmin-state", "lag", func(m string) { fmt.Fprintln(&warned, m) })
		require.NoError(t, err)
		return state.OpenRemote(st, state.Options{Window: time.Minute})
	})
	assert.Empty(t, warned.String())
	inFile := runs("payments", func() *state.Store {
		s, err := state.OpenFile(dir+"/state", state.Options{Window: time.Minute})
		require.NoError(t, err)
		return s
	})
	assert.Equal(t, 2, inTopic[1].Samples, "the first pod's sample is in the second's window")
	assert.Equal(t, "ERR", inTopic[2].Status, "a consumer that stopped, over three runs")
	assert.Equal(t, inFile, inTopic, "the same verdicts as with a state file")
}

// TestStateTopicLoopFencedTakesTheStateAgain: a loop keeps one store for
// its life; a run beside it that takes the state fences it, and the loop's
// next write fails (that run's samples are lost). Its run after that takes
// the state again, starts from the newest version (the other run's) and
// writes: it is not fenced for the rest of its life.
func TestStateTopicLoopFencedTakesTheStateAgain(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "orders")
	commitAt(t, adm, "billing", "orders", map[int32]int64{0: 4})
	open := func() (*state.Store, *Client) {
		st, err := NewStateTopic(cl.Config(), "kadmin-state", "lag", nil)
		require.NoError(t, err)
		store := state.OpenRemote(st, state.Options{Window: 10 * time.Minute})
		cfg := cl.Config()
		cfg.State = store
		pod, err := New(cfg)
		require.NoError(t, err)
		t.Cleanup(func() { store.Close(); pod.Close() })
		return store, pod
	}
	run := func(store *state.Store, pod *Client, minute int64) (int, error) {
		produceN(t, kc, "orders", 10)
		now := time.UnixMilli(1_700_000_000_000 + minute*60_000)
		res, err := pod.LagStatus(ctx, []string{"billing"}, LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return now }}})
		require.NoError(t, err)
		return res[0].Samples, store.Save()
	}
	loopStore, loop := open()
	_, err := run(loopStore, loop, 0)
	require.NoError(t, err)
	oneOff, pod := open()
	samples, err := run(oneOff, pod, 1)
	require.NoError(t, err)
	assert.Equal(t, 2, samples, "the one-off run starts from the loop's version")
	_, err = run(loopStore, loop, 2)
	require.Error(t, err, "fenced: the loop's write of this run is lost")
	assert.Contains(t, err.Error(), "another run took the state")

	samples, err = run(loopStore, loop, 3)
	require.NoError(t, err, "the loop's next run takes the state again")
	assert.Equal(t, 3, samples, "from the one-off run's version: minutes 0, 1 and 3")
	reader, rpod := open()
	samples, err = run(reader, rpod, 4)
	require.NoError(t, err)
	assert.Equal(t, 4, samples, "the loop's write after the fence is the one kept")
}
