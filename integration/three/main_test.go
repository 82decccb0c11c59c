// Package three runs kadmin-lua against one real Apache Kafka 3-node KRaft
// cluster (internal/kafkatest.StartThreeWith, PLAINTEXT, a dynamic quorum): replication,
// reassignment that really moves replicas, leader elections, broker configs
// with their sources, broker loss while a script runs, and the cluster
// functions kfake cannot answer (quorum, log dirs, unregister).
//
// One cluster serves the whole package; it is started in TestMain, which
// prints its banner ("Apache Kafka 4.1.2 3-node PLAINTEXT at ...") to
// stdout. The tests are skipped only with -short or KADMIN_SKIP_KAFKA=1;
// otherwise a missing java, mvn or jar fails the run.
package three

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/integration/internal/itlua"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

var (
	cluster *kafkatest.Cluster
	binary  string // the kadmin-lua binary, built once
)

func TestMain(m *testing.M) {
	os.Exit(kafkatest.RunSuite(m, "integration/three", startThree,
		func(c *kafkatest.Cluster, bin string) { cluster, binary = c, bin }))
}

// startThree gives the three JVMs 4 minutes, more than
// kafkatest.DefaultStartTimeout. The quorum is dynamic (KIP-853), so
// add_raft_voter and remove_raft_voter can change it.
func startThree(ctx context.Context) (*kafkatest.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	return kafkatest.StartThreeWith(ctx, kafkatest.Extra{DynamicQuorum: true})
}

// need skips t when the suite is skipped; otherwise the cluster is there
// (TestMain failed the run if it could not start).
func need(t *testing.T) *kafkatest.Cluster {
	t.Helper()
	if cluster == nil {
		t.Skipf("real Kafka tests skipped (%s)", kafkatest.SkipReason())
	}
	return cluster
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// env is a Lua runtime bound to the cluster.
type env struct{ *itlua.Env }

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{itlua.New(t, engine.Config{Brokers: need(t).Brokers(), Timeout: 30 * time.Second}, nil, 3*time.Minute)}
}

// run executes Lua and fails the test on error; it returns the first value
// the chunk returned as JSON.
func (e *env) run(src string) string {
	e.T.Helper()
	vals := e.Run(src)
	if len(vals) == 0 {
		return "null"
	}
	s, err := e.RT.Format(vals[:1], "json")
	require.NoError(e.T, err)
	return s
}

// decode runs Lua and decodes the first returned value into v.
func (e *env) decode(src string, v any) {
	e.T.Helper()
	s := e.run(src)
	require.NoError(e.T, json.Unmarshal([]byte(s), v), "json: %s", s)
}

// admin is a brand-new independent kadm client (no shared metadata cache).
func admin(t *testing.T) *kadm.Client {
	t.Helper()
	return need(t).AdminT(t, kgo.RetryTimeout(20*time.Second))
}

// rawClient is a brand-new client for one raw request, a context bounding
// it, and a func closing both.
func rawClient(t *testing.T) (*kgo.Client, context.Context, func()) {
	t.Helper()
	cl, err := need(t).Client(kgo.DialTimeout(2 * time.Second))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	return cl, ctx, func() { cancel(); cl.Close() }
}

// metadata asks the cluster afresh (kafkatest.Cluster.Partitions) for
// topic's partitions.
func metadata(t *testing.T, topic string) (map[int32]kafkatest.PartitionState, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return need(t).Partitions(ctx, topic)
}

func sorted(ids []int32) []int32 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}

// waitISR waits until every partition of topic has its full replica set in
// sync and a leader.
func waitISR(t *testing.T, topic string, timeout time.Duration) map[int32]kafkatest.PartitionState {
	t.Helper()
	var got map[int32]kafkatest.PartitionState
	kafkatest.WaitFor(t, topic+" fully in sync", timeout, func() (bool, string) {
		m, err := metadata(t, topic)
		if err != nil {
			return false, err.Error()
		}
		got = m
		ok := len(m) > 0
		for _, p := range m {
			if p.Leader < 0 || !slices.Equal(p.ISR, p.Replicas) {
				ok = false
			}
		}
		return ok, fmt.Sprint(m)
	})
	return got
}

// waitWhole waits until all three brokers are registered and topic (when
// not "") is fully in sync again: the state every test may assume.
func waitWhole(t *testing.T, topics ...string) {
	t.Helper()
	c := need(t)
	require.NoError(t, c.WaitBrokers(ctxFor(t, 2*time.Minute), c.NodeIDs()...))
	for _, tp := range topics {
		waitISR(t, tp, 2*time.Minute)
	}
}

// runBinary runs the kadmin-lua binary against the cluster with args
// (kafkatest.RunBinary); ctx bounds it.
func runBinary(ctx context.Context, t *testing.T, args ...string) kafkatest.BinResult {
	t.Helper()
	return kafkatest.RunBinary(ctx, t, binary, nil, "", append([]string{"-b", need(t).Bootstrap()}, args...)...)
}

// topicNames lists the cluster's topics through a brand-new client.
func topicNames(t *testing.T) []string {
	t.Helper()
	td, err := admin(t).ListTopics(ctxFor(t, time.Minute))
	require.NoError(t, err)
	return td.Names()
}
