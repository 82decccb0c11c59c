package luaapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// throttleState is what the cluster has set, read through an independent
// client: each broker's dynamic throttle rates and each topic's throttled
// replicas.
func throttleState(t *testing.T, e *env, topics ...string) (brokers map[int32]map[string]string, topicCfgs map[string]map[string]string) {
	t.Helper()
	brokers = map[int32]map[string]string{}
	for _, b := range []int32{0, 1, 2} {
		rc, err := e.adm.DescribeBrokerConfigs(e.ctx(), b)
		require.NoError(t, err)
		cfg, err := rc.On(fmt.Sprint(b), nil)
		require.NoError(t, err)
		for _, c := range cfg.Configs {
			if strings.Contains(c.Key, "throttled.rate") && c.Source == kmsg.ConfigSourceDynamicBrokerConfig {
				if brokers[b] == nil {
					brokers[b] = map[string]string{}
				}
				brokers[b][c.Key] = c.MaybeValue()
			}
		}
	}
	topicCfgs = map[string]map[string]string{}
	rcs, err := e.adm.DescribeTopicConfigs(e.ctx(), topics...)
	require.NoError(t, err)
	for _, rc := range rcs {
		require.NoError(t, rc.Err)
		for _, c := range rc.Configs {
			if strings.Contains(c.Key, "throttled.replicas") && c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				if topicCfgs[rc.Name] == nil {
					topicCfgs[rc.Name] = map[string]string{}
				}
				topicCfgs[rc.Name][c.Key] = c.MaybeValue()
			}
		}
	}
	return brokers, topicCfgs
}

// leaderOf is partition p's only replica (replication factor 1).
func leaderOf(t *testing.T, e *env, topic string, p int32) int32 {
	t.Helper()
	md, err := e.adm.Metadata(e.ctx(), topic)
	require.NoError(t, err)
	pd, ok := md.Topics[topic].Partitions[p]
	require.True(t, ok)
	require.Len(t, pd.Replicas, 1)
	return pd.Replicas[0]
}

// alter_partition_reassignments{..., throttle=} sets the throttles Kafka's
// tool sets; wait_reassignments removes them when the moves are done.
func TestReassignmentThrottleSetAndRemoved(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 2, 1, nil, "mv")
	require.NoError(t, err)
	_, err = e.adm.CreateTopic(e.ctx(), 1, 1, nil, "still")
	require.NoError(t, err)
	from0, from1 := leaderOf(t, e, "mv", 0), leaderOf(t, e, "mv", 1)
	to0, to1 := (from0+1)%3, (from1+2)%3

	sent, _ := sentReassignments(e)
	e.run(fmt.Sprintf(`alter_partition_reassignments({
		{topic = "mv", partition = 0, replicas = {%d}},
		{topic = "mv", partition = 1, replicas = {%d, %d}},
	}, {throttle = 10485760})`, to0, to1, from1))
	assert.Len(t, sent(), 2, "the reassignment was sent after the throttle")

	brokers, topics := throttleState(t, e, "mv", "still")
	rate := map[string]string{"leader.replication.throttled.rate": "10485760", "follower.replication.throttled.rate": "10485760"}
	for _, b := range []int32{from0, to0, from1, to1} {
		assert.Equal(t, rate, brokers[b], "broker %d moves a replica", b)
	}
	assert.Equal(t, map[string]map[string]string{"mv": {
		"leader.replication.throttled.replicas":   fmt.Sprintf("0:%d,1:%d", from0, from1),
		"follower.replication.throttled.replicas": fmt.Sprintf("0:%d,1:%d", to0, to1),
	}}, topics, "sources are led, new replicas follow; a topic not moving is untouched")
	assert.Contains(t, e.stderr.String(), "INFO alter_partition_reassignments: throttle replication to 10485760 B/s on brokers ")

	// keep_throttles (--preserve-throttles) leaves them.
	e.run(`wait_reassignments{topics = {"mv"}, timeout = "5s", keep_throttles = true}`)
	brokers2, topics2 := throttleState(t, e, "mv", "still")
	assert.Equal(t, brokers, brokers2)
	assert.Equal(t, topics, topics2)

	// Nothing moves on kfake: the wait ends at once and removes them all.
	e.stderr.Reset()
	e.run(`wait_reassignments{topics = {"mv"}, timeout = "5s"}`)
	brokers, topics = throttleState(t, e, "mv", "still")
	assert.Empty(t, brokers)
	assert.Empty(t, topics)
	assert.Contains(t, e.stderr.String(), "INFO wait_reassignments: remove the replication throttle from broker:")
	assert.Contains(t, e.stderr.String(), "remove the replication throttle from topic:mv: follower.replication.throttled.replicas, leader.replication.throttled.replicas")
	// One line per broker and topic, each a log line of its own.
	lines := strings.Split(strings.TrimSuffix(e.stderr.String(), "\n"), "\n")
	assert.GreaterOrEqual(t, len(lines), 2, e.stderr.String())
	for _, l := range lines {
		assert.Contains(t, l, "INFO wait_reassignments: remove the replication throttle from ")
		assert.Equal(t, 1, strings.Count(l, "remove the replication throttle"), l)
	}

	// A second wait finds nothing to remove and says nothing.
	e.stderr.Reset()
	e.run(`wait_reassignments{timeout = "5s"}`)
	assert.Empty(t, e.stderr.String())
}

// Reassignments already in progress keep their throttled replicas, as
// kafka-reassign-partitions computes them (sources: replicas not being
// added; followers: the replicas being added).
func TestReassignmentThrottleKeepsInProgressMoves(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "mv")
	require.NoError(t, err)
	_, err = e.adm.CreateTopic(e.ctx(), 4, 1, nil, "busy")
	require.NoError(t, err)
	from := leaderOf(t, e, "mv", 0)
	to := (from + 1) % 3
	craftListing(e, -1, moving("busy", 3, []int32{0, 1, 2}, []int32{2}, []int32{0}))

	e.run(fmt.Sprintf(`alter_partition_reassignments({{topic = "mv", partition = 0, replicas = {%d}}}, {throttle = 1000})`, to))
	brokers, topics := throttleState(t, e, "mv", "busy")
	assert.Equal(t, map[string]string{"leader.replication.throttled.replicas": "3:0,3:1", "follower.replication.throttled.replicas": "3:2"}, topics["busy"])
	assert.Equal(t, fmt.Sprintf("0:%d", from), topics["mv"]["leader.replication.throttled.replicas"])
	for _, b := range []int32{0, 1, 2} {
		assert.Equal(t, "1000", brokers[b]["leader.replication.throttled.rate"], "broker %d", b)
	}

	// Waiting for mv alone: its throttled replicas go; busy still moves, so
	// the brokers' rates stay, and a line says why.
	e.stderr.Reset()
	e.run(`wait_reassignments{topics = {"mv"}, timeout = "5s"}`)
	brokers, topics = throttleState(t, e, "mv", "busy")
	assert.NotContains(t, topics, "mv")
	assert.Contains(t, topics, "busy", "busy was not waited for")
	assert.Len(t, brokers, 3)
	assert.Contains(t, e.stderr.String(), "keep the replication throttle rates of brokers 0,1,2: reassignments still in progress (busy[3])")

	// A wait that times out removes nothing.
	assert.Equal(t, "TIMEOUT", e.runErr(`wait_reassignments{topics = {"busy"}, timeout = 50}`).Code)
	brokers, topics = throttleState(t, e, "mv", "busy")
	assert.Contains(t, topics, "busy")
	assert.Len(t, brokers, 3)
}

// Under --dry-run the throttle is only validated and planned.
func TestReassignmentThrottleDryRun(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "mv")
	require.NoError(t, err)
	from := leaderOf(t, e, "mv", 0)
	to := (from + 1) % 3
	sent, _ := sentReassignments(e)
	e.run(`kafka.dry_run(true)`)
	e.run(fmt.Sprintf(`local r = alter_partition_reassignments({{topic = "mv", partition = 0, replicas = {%d}}}, {throttle = 2048})
		assert(r[1].dry_run)`, to))
	assert.Empty(t, sent())
	brokers, topics := throttleState(t, e, "mv")
	assert.Empty(t, brokers)
	assert.Empty(t, topics)
	lo, hi := min(from, to), max(from, to)
	assert.Contains(t, e.stderr.String(), fmt.Sprintf("dry-run: alter_partition_reassignments: throttle replication to 2048 B/s on brokers %d,%d", lo, hi))
	assert.Contains(t, e.stderr.String(), fmt.Sprintf("dry-run: alter_partition_reassignments: topic mv: leader.replication.throttled.replicas=0:%d; follower.replication.throttled.replicas=0:%d", from, to))

	// A dry-run wait says what it would remove, and removes nothing.
	e.run(`kafka.dry_run(false)`)
	_, err = e.adm.AlterTopicConfigs(e.ctx(), []kadm.AlterConfig{{Name: "leader.replication.throttled.replicas", Value: kadm.StringPtr("0:1")}}, "mv")
	require.NoError(t, err)
	e.run(`kafka.dry_run(true)`)
	e.stderr.Reset()
	e.run(`wait_reassignments{timeout = "5s"}`)
	assert.Contains(t, e.stderr.String(), "dry-run: wait_reassignments: remove the replication throttle from topic:mv: leader.replication.throttled.replicas")
	_, topics = throttleState(t, e, "mv")
	assert.Contains(t, topics, "mv")

	re := e.runErr(`alter_partition_reassignments({{topic = "mv", partition = 0, replicas = {0}}}, {throttle = 0})`)
	assert.Contains(t, re.Message, "alter_partition_reassignments: options: throttle: must be")
}

// On the demo cluster a reassignment is accepted and moves nothing: the
// call says so.
func TestReassignmentOnDemoClusterSaysNothingMoves(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := newEnvOn(t, c, Options{Demo: true})
	_, err = e.adm.CreateTopic(e.ctx(), 1, 1, nil, "mv")
	require.NoError(t, err)
	to := (leaderOf(t, e, "mv", 0) + 1) % 3
	e.run(fmt.Sprintf(`alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {%d}}}`, to))
	assert.Contains(t, e.stderr.String(), "WARN alter_partition_reassignments: the demo cluster (--embedded) accepts reassignments but moves no replica")

	// Another cluster reached from the demo session is not the demo.
	e.stderr.Reset()
	e.run(fmt.Sprintf(`local other = kafka.connect{brokers = {%q}}
		other:alter_partition_reassignments{{topic = "mv", partition = 0, replicas = {%d}}}`, c.ListenAddrs()[0], to))
	assert.Empty(t, e.stderr.String())
}

// A user who may not read configs still gets the wait's result: a warning
// says the throttles could not be looked for.
func TestWaitReassignmentsWithoutConfigAccess(t *testing.T) {
	e := newEnv(t)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.DescribeConfigs}, Err: kerr.ClusterAuthorizationFailed, Count: -1})
	defer h.Remove()
	e.run(`local done = wait_reassignments{timeout = "5s"}; assert(#done == 0)`)
	assert.Contains(t, e.stderr.String(), "WARN wait_reassignments: cannot look for replication throttles to remove (CLUSTER_AUTHORIZATION_FAILED)")
	e.stderr.Reset()
	e.run(`wait_reassignments{timeout = "5s", keep_throttles = true}`)
	assert.Empty(t, e.stderr.String())
}
