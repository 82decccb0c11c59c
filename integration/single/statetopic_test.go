package single

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/internal/clientconfig"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestStateTopicOverlappingRunsOnARealBroker: state kept in a topic of a
// real Kafka (--state kafka:TOPIC/KEY), as CronJob pods with no volume keep
// it. Run A takes the state and is held; run B starts while A is still
// going, takes the state (fencing A) and writes; A then ends and its write
// is refused. The topic holds exactly B's state (B's group, not A's). A
// third run then judges the same as a run with a state file holding the
// same version.
func TestStateTopicOverlappingRunsOnARealBroker(t *testing.T) {
	need(t)
	topic, stateTopic := unique("statetopic"), unique("kadmin-state")
	groupA, groupB := unique("state-a"), unique("state-b")
	taken, goOn := unique("signal-taken"), unique("signal-go")
	loc := "kafka:" + stateTopic + "/lag"
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}}`, topic))
	produce(t, topic, 1, 50)
	adm := admin(t)
	for _, g := range []string{groupA, groupB} {
		offs := kadm.Offsets{}
		offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 10, LeaderEpoch: -1})
		_, err := adm.CommitOffsets(ctxT(t, 20*time.Second), g, offs)
		require.NoError(t, err)
	}
	flags := func(extra ...string) []string {
		return append([]string{"-b", cluster.Bootstrap(), "--sasl-mechanism", kafkatest.MechScram512, "--sasl-username", kafkatest.AdminUser,
			"--timeout", "20s", "--state-window", "1s"}, extra...)
	}

	// Run A: samples its group (taking the state), says so by making a
	// topic, and waits for the test's go-ahead before it ends and saves.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := exec.CommandContext(ctx, bin, flags("--state", loc, "-e", fmt.Sprintf(`
		lag_status(%q)
		create_topics{{name = %q, partitions = 1}}
		while #list_topics{match = "^%s$"} == 0 do kafka.sleep(100) end`, groupA, taken, goOn))...)
	a.Env = append(os.Environ(), clientconfig.PasswordEnv+"="+kafkatest.AdminPassword, "HOME="+t.TempDir())
	var aOut, aErr bytes.Buffer
	a.Stdout, a.Stderr = &aOut, &aErr
	require.NoError(t, a.Start())
	aDone := make(chan error, 1)
	go func() { aDone <- a.Wait() }()
	waitTopic(t, taken, 1)

	// Run B overlaps A: it takes the state from A and writes it.
	b := runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword,
		"--state", loc, "--state-window", "1s", "-o", "json", "-e", fmt.Sprintf("lag_status(%q)", groupB))
	require.Equal(t, 0, b.Code, b.Stderr)
	assert.NotContains(t, b.Stderr, "WARN")

	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}}`, goOn))
	select {
	case err := <-aDone:
		require.NoError(t, err, "run A exits 0: its result stands\nstderr: %s", aErr.String())
	case <-ctx.Done():
		t.Fatalf("run A did not end; stderr: %s", aErr.String())
	}
	assert.Contains(t, aErr.String(), "kadmin-lua: WARN state: writing the state to "+loc+": ", aErr.String())
	assert.Contains(t, aErr.String(), "another run took the state since this run started", aErr.String())

	// Exactly one writer's state: B's group, not A's.
	cfg := engine.Config{Brokers: cluster.Brokers(), Timeout: 20 * time.Second,
		SASL: &login.SASLConfig{Mechanism: kafkatest.MechScram512, Username: kafkatest.AdminUser, Password: engine.Secret(kafkatest.AdminPassword)}}
	id := clusterID(t)
	version := readStateTopic(t, cfg, stateTopic, "lag")
	kept := stateOf(t, version)
	assert.NotNil(t, kept.Window(id, groupB, topic, 0), "B's sample")
	assert.Nil(t, kept.Window(id, groupA, topic, 0), "not A's")

	// A third run, with the state in the topic and with a file holding the
	// same version: the same verdicts.
	file := filepath.Join(t.TempDir(), "lag.state")
	require.NoError(t, os.WriteFile(file, version, 0o600))
	time.Sleep(1200 * time.Millisecond) // past the samples' min-distance, and the 1 s window: B's group stopped
	type verdict struct {
		Status  string `json:"status"`
		Reason  string `json:"reason"`
		Samples int    `json:"samples"`
		Trend   string `json:"trend"`
		Worst   []struct {
			Status string `json:"status"`
			Rule   string `json:"rule"`
			Lag    int64  `json:"lag"`
		} `json:"worst"`
	}
	third := func(where string) verdict {
		res := runBin(t, kafkatest.MechScram512, kafkatest.AdminUser, kafkatest.AdminPassword,
			"--state", where, "--state-window", "1s", "-o", "json", "-e", fmt.Sprintf("lag_status(%q)", groupB))
		require.Equal(t, 0, res.Code, res.Stderr)
		var got []verdict
		require.NoError(t, json.Unmarshal([]byte(res.Stdout), &got), res.Stdout)
		require.Len(t, got, 1)
		return got[0]
	}
	withFile := third(file)
	inTopic := third(loc)
	assert.Equal(t, 2, inTopic.Samples, "the sample B kept, and its own")
	assert.Equal(t, "ERR", inTopic.Status, inTopic.Reason)
	assert.Equal(t, withFile, inTopic)
}

// readStateTopic is the newest version of a state kept in a topic.
func readStateTopic(t *testing.T, cfg engine.Config, topic, key string) []byte {
	t.Helper()
	st, err := engine.NewStateTopic(cfg, topic, key, func(m string) { t.Log(m) })
	require.NoError(t, err)
	defer st.Close()
	data, err := st.Read(state.DefaultMaxFile)
	require.NoError(t, err)
	require.NotNil(t, data)
	return data
}

// stateOf is a store holding version (a store in memory, read from it).
func stateOf(t *testing.T, version []byte) *state.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "copy.state")
	require.NoError(t, os.WriteFile(path, version, 0o600))
	s, err := state.OpenFile(path, state.Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func clusterID(t *testing.T) string {
	t.Helper()
	m, err := admin(t).Metadata(ctxT(t, 20*time.Second))
	require.NoError(t, err)
	return m.Cluster
}

// TestStateTopicFencedLoopAndForeignTopicsOnARealBroker: on a real Kafka, a
// loop's store fenced by a one-off run loses that write only and writes at
// its next run (its fenced producer let go, a new one taken); and a topic
// that is not a state topic is refused before anything is written to it:
// Kafka's own __consumer_offsets, and a topic of other records.
func TestStateTopicFencedLoopAndForeignTopicsOnARealBroker(t *testing.T) {
	need(t)
	topic, stateTopic, group := unique("statefence"), unique("kadmin-state"), unique("state-fence")
	r := adminRT(t, kafkatest.MechScram512)
	r.Run(fmt.Sprintf(`create_topics{{name = %q, partitions = 1}}`, topic))
	produce(t, topic, 1, 20)
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 5, LeaderEpoch: -1})
	_, err := admin(t).CommitOffsets(ctxT(t, 20*time.Second), group, offs)
	require.NoError(t, err)
	cfg := engine.Config{Brokers: cluster.Brokers(), Timeout: 20 * time.Second,
		SASL: &login.SASLConfig{Mechanism: kafkatest.MechScram512, Username: kafkatest.AdminUser, Password: engine.Secret(kafkatest.AdminPassword)}}
	open := func(topic string) (*state.Store, *engine.Client) {
		st, err := engine.NewStateTopic(cfg, topic, "lag", func(m string) { t.Log(m) })
		require.NoError(t, err)
		store := state.OpenRemote(st, state.Options{Window: 10 * time.Minute})
		c := cfg
		c.State = store
		cl, err := engine.New(c)
		require.NoError(t, err)
		t.Cleanup(func() { store.Close(); cl.Close() })
		return store, cl
	}
	run := func(store *state.Store, cl *engine.Client, minute int64) (int, error) {
		now := time.UnixMilli(1_700_000_000_000 + minute*60_000)
		res, err := cl.LagStatus(ctxT(t, 30*time.Second), []string{group}, engine.LagStatusOptions{Lag: engine.LagOptions{Now: func() time.Time { return now }}})
		if err != nil {
			return 0, err
		}
		return res[0].Samples, store.Save()
	}
	loopStore, loop := open(stateTopic)
	_, err = run(loopStore, loop, 0)
	require.NoError(t, err)
	oneOff, pod := open(stateTopic)
	_, err = run(oneOff, pod, 1)
	require.NoError(t, err)
	_, err = run(loopStore, loop, 2)
	require.ErrorContains(t, err, "another run took the state")
	samples, err := run(loopStore, loop, 3)
	require.NoError(t, err, "the loop's next run takes the state again")
	assert.Equal(t, 3, samples, "from the one-off run's version: minutes 0, 1 and 3")

	for _, other := range []string{"__consumer_offsets", topic} {
		store, cl := open(other)
		_, err := run(store, cl, 4)
		require.ErrorContains(t, err, "not a state topic", other)
	}
	end, err := admin(t).ListEndOffsets(ctxT(t, 20*time.Second), topic)
	require.NoError(t, err)
	o, _ := end.Lookup(topic, 0)
	assert.Equal(t, int64(20), o.Offset, "nothing written to the topic of other records")
}
