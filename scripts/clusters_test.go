package scripts_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// The runbooks that look at whole clusters: cluster-health and diff-clusters.

func TestClusterHealth(t *testing.T) {
	e := newEnv(t)
	const s = "cluster-health.lua"

	r := e.ok(false, s)
	assert.Empty(t, r.checks)
	require.Len(t, r.rows, 1)
	assert.Equal(t, "kadmin-lua-demo", r.rows[0]["cluster_id"])
	assert.Equal(t, 3, num(r.rows[0]["brokers"]))
	assert.Equal(t, 10, num(r.rows[0]["partitions"]))
	assert.Equal(t, []any{}, r.rows[0]["problems"])
	assert.Contains(t, r.stderr, "kadmin-lua-demo: 3 brokers")
	assert.Equal(t, map[string]float64{"kafka_cluster_brokers{}": 3, "kafka_cluster_topics{}": 3, "kafka_cluster_partitions{}": 10,
		"kafka_cluster_fenced_brokers{}": 0, "kafka_cluster_unregistered_brokers{}": 0, "kafka_cluster_unknown_brokers{}": 0,
		"kafka_cluster_quorum_voters{}": 0, "kafka_cluster_quorum_voters_behind{}": 0,
		"kafka_cluster_offline_partitions{}": 0, "kafka_cluster_under_replicated_partitions{}": 0,
		"kafka_cluster_under_min_isr_partitions{}": 0, "kafka_cluster_unanswered_partitions{}": 0,
		"kafka_cluster_preferred_replica_imbalance{}": 0, "kafka_cluster_leaders_pct{}": 120,
		"kafka_cluster_active_controller{}": 1}, r.metrics)
	assert.Equal(t, "none", r.rows[0]["quorum"], "kfake has no metadata quorum to ask")
	states := r.rows[0]["broker_states"].([]any)
	require.Len(t, states, 3)
	assert.Equal(t, map[string]any{"broker": float64(0), "state": "live", "host": states[0].(map[string]any)["host"],
		"port": states[0].(map[string]any)["port"], "leaders": float64(4), "preferred": float64(4), "preferred_not_leading": float64(0)},
		states[0], "the demo's leaders are spread 4, 3, 3")

	r = e.ok(false, s, "--brokers", "5")
	assert.Equal(t, []string{"3 of 5 brokers are up"}, r.checks)

	// kfake always reports full ISRs and a leader: answer describes with a
	// cluster in trouble instead. orders[0] has no leader, orders[1] one
	// replica in sync (below min.insync.replicas=2), payments[2] one replica
	// offline.
	sick := e.sickTopics(func(t *kmsg.DescribeTopicPartitionsResponseTopic) {
		for i := range t.Partitions {
			p := &t.Partitions[i]
			switch {
			case *t.Topic == "orders" && p.Partition == 0:
				p.LeaderID, p.ISR = -1, nil
			case *t.Topic == "orders" && p.Partition == 1:
				p.ISR = p.Replicas[:1]
			case *t.Topic == "payments" && p.Partition == 2:
				p.ISR, p.OfflineReplicas = p.Replicas[:2], p.Replicas[2:]
			}
		}
	})
	r = e.ok(false, s)
	require.Positive(t, sick.Load(), "the script read the doctored metadata")
	assert.Equal(t, []string{
		"1 partition without a leader: orders[0]",
		"2 partitions under-replicated: orders[1], payments[2]",
		"1 partition below min.insync.replicas: orders[1]",
	}, r.checks)
	row := r.rows[0]
	assert.Equal(t, []int{1, 2, 1}, []int{num(row["offline"]), num(row["under_replicated"]), num(row["under_min_isr"])})
	assert.Equal(t, []float64{1, 2, 1}, []float64{r.metrics["kafka_cluster_offline_partitions{}"],
		r.metrics["kafka_cluster_under_replicated_partitions{}"], r.metrics["kafka_cluster_under_min_isr_partitions{}"]})
	problems := row["problems"].([]any)
	require.Len(t, problems, 4)
	assert.Equal(t, "offline: no leader", problems[0].(map[string]any)["problem"])
	assert.Equal(t, "under-replicated: 2 of 3 replicas in sync, 1 replica(s) offline", problems[3].(map[string]any)["problem"])

	// A fenced broker, and one the replicas name that is not registered
	// (kfake lists every broker: DescribeCluster answered without 1 and 2,
	// broker 1 as fenced).
	fake := e.c.Fake()
	real, err := e.adm.BrokerMetadata(e.ctx())
	require.NoError(t, err)
	fake.ControlKey(int16(kmsg.DescribeCluster), func(r kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		resp := r.ResponseKind().(*kmsg.DescribeClusterResponse)
		resp.SetVersion(r.GetVersion())
		resp.ClusterID, resp.ControllerID = real.Cluster, 0
		for _, b := range real.Brokers {
			if b.NodeID == 2 {
				continue
			}
			sb := kmsg.NewDescribeClusterResponseBroker()
			sb.NodeID, sb.Host, sb.Port, sb.IsFenced = b.NodeID, b.Host, b.Port, b.NodeID == 1
			resp.Brokers = append(resp.Brokers, sb)
		}
		return resp, nil, true
	})
	r = e.ok(false, s, "--brokers", "3")
	assert.Equal(t, []string{
		"1 broker fenced: 1",
		"1 broker in partition replicas but not registered: 2",
		"1 of 3 brokers are up",
		"1 partition without a leader: orders[0]",
		"2 partitions under-replicated: orders[1], payments[2]",
		"1 partition below min.insync.replicas: orders[1]",
	}, r.checks, "broker 0, the only live one, leads what it leads: leadership is judged among the live brokers")
	assert.Equal(t, []float64{1, 1, 1}, []float64{r.metrics["kafka_cluster_brokers{}"],
		r.metrics["kafka_cluster_fenced_brokers{}"], r.metrics["kafka_cluster_unregistered_brokers{}"]})

	// Before Kafka 4.0 (DescribeCluster v1): a broker the replicas name
	// that is not live may be fenced or unregistered: "not live".
	kafkatest.AdvertiseEdited(t, fake, func(resp *kmsg.ApiVersionsResponse) {
		for i := range resp.ApiKeys {
			if resp.ApiKeys[i].ApiKey == int16(kmsg.DescribeCluster) {
				resp.ApiKeys[i].MaxVersion = 1
			}
		}
	})
	r = e.ok(false, s, "--brokers", "3")
	assert.Equal(t, []string{
		"1 broker in partition replicas but not live: 2",
		"2 of 3 brokers are up",
		"1 partition without a leader: orders[0]",
		"2 partitions under-replicated: orders[1], payments[2]",
		"1 partition below min.insync.replicas: orders[1]",
	}, r.checks, "v1 has no fenced flag: broker 1 is listed, so live")
	assert.Equal(t, float64(1), r.metrics["kafka_cluster_unregistered_brokers{}"])

	e.usage(s, "takes no arguments, got 1 (x)", "x")
	e.usage(s, `--brokers must be a positive integer, got "0"`, "--brokers", "0")
}

// The metadata quorum: its leader is the active controller; a voter not
// caught up for longer than --quorum-lag-ms, or no leader, fails a check.
func TestClusterHealthQuorum(t *testing.T) {
	e := newEnv(t)
	fake := e.c.Fake()
	kafkatest.Advertise(t, fake, kmsg.DescribeQuorum)
	leader, stale := int32(1), false
	now := time.Now().UnixMilli()
	fake.ControlKey(int16(kmsg.DescribeQuorum), func(r kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		resp := r.ResponseKind().(*kmsg.DescribeQuorumResponse)
		rt := kmsg.NewDescribeQuorumResponseTopic()
		rt.Topic = "__cluster_metadata"
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.LeaderID, p.LeaderEpoch, p.HighWatermark = leader, 3, 500
		voter := func(id int32, leo, caught int64) kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
			v := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
			v.ReplicaID, v.LogEndOffset, v.LastFetchTimestamp, v.LastCaughtUpTimestamp = id, leo, now, caught
			if stale && id != leader {
				v.LastFetchTimestamp = now - 4000
			}
			return v
		}
		// Voter 2 fetches but is 40 records and a minute behind; voter 0
		// lags 5 records but caught up a moment ago.
		p.CurrentVoters = append(p.CurrentVoters, voter(0, 495, now-100), voter(1, 500, now), voter(2, 460, now-60000))
		rt.Partitions = append(rt.Partitions, p)
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	const s = "cluster-health.lua"
	r := e.ok(false, s)
	require.Len(t, r.checks, 1, "%v", r.checks)
	assert.Regexp(t, `^1 of 3 quorum voters not caught up for over 30000 ms: 2 \(40 records behind, caught up 6\ds ago\)$`, r.checks[0])
	assert.Equal(t, 1, num(r.rows[0]["active_controller"]), "the quorum's leader")
	assert.Equal(t, 3, num(r.rows[0]["quorum_voters"]))
	assert.Equal(t, []float64{3, 1, 1}, []float64{r.metrics["kafka_cluster_quorum_voters{}"],
		r.metrics["kafka_cluster_quorum_voters_behind{}"], r.metrics["kafka_cluster_active_controller{}"]})
	assert.Contains(t, r.stderr, "active controller 1")

	r = e.ok(false, s, "--quorum-lag-ms", "120000")
	assert.Empty(t, r.checks)

	// Voters 0 and 2 stopped fetching 4 s ago by the leader's clock: the
	// leader is alone, and the quorum lost.
	stale = true
	r = e.ok(false, s, "--quorum-lag-ms", "120000")
	assert.Equal(t, []string{"metadata quorum lost: leader 1 answered, but 2 of its 3 voters have not fetched from it for over 2s: " +
		"0 (last fetched 4s before), 2 (last fetched 4s before): without a majority it can commit nothing (fence a broker, " +
		"elect a partition leader), and it resigns",
		"3 broker states unknown without an active controller: 0, 1, 2 answer"}, r.checks)
	assert.Equal(t, "no_majority", r.rows[0]["quorum"])
	assert.Equal(t, float64(0), r.metrics["kafka_cluster_active_controller{}"], "a leader without a majority cannot act")
	stale = false

	leader = -1 // an election in progress
	r = e.ok(false, s, "--quorum-lag-ms", "120000")
	assert.Equal(t, []string{"no active controller: the metadata quorum has no leader (an election, or a majority of its voters down)",
		"3 broker states unknown without an active controller: 0, 1, 2 answer"}, r.checks)
	assert.Equal(t, float64(0), r.metrics["kafka_cluster_active_controller{}"])
	assert.Nil(t, r.rows[0]["active_controller"])
	assert.Equal(t, "no_leader", r.rows[0]["quorum"])
	e.usage(s, `--quorum-lag-ms must be a non-negative integer, got "x"`, "--quorum-lag-ms", "x")
}

// A cluster that lost its metadata quorum (kafkatest.LoseQuorum: broker 2
// killed, the others frozen, answering from the metadata they had): a
// failed check that names the lost quorum (exit 4, not a script error),
// within the call's timeout (no answer after half of its 1 s); the
// brokers' states unknown, not live, with which ones answer; the
// partitions still seen, those led by the broker that does not answer
// named; and no figure that cannot be known (live brokers,
// under-replication) given as a number.
func TestClusterHealthLostQuorum(t *testing.T) {
	e := newEnv(t)
	e.timeout = time.Second
	kafkatest.LoseQuorum(t, e.c.Fake(), 2)
	const s = "cluster-health.lua"
	r := e.ok(false, s, "--brokers", "3")
	assert.Equal(t, []string{
		"metadata quorum lost: no active controller: no controller answered within 500ms: brokers forward DescribeQuorum to the active controller, " +
			"and there is none: the metadata quorum has no leader (a majority of its voters down?), or the brokers cannot reach it",
		"3 broker states unknown without an active controller: 0, 1 answer; 2 does not answer",
		"3 partitions led by a broker that does not answer: orders[1], orders[4], payments[1]",
	}, r.checks, "the demo spreads leaders over brokers 0, 1, 2 in turn")
	row := r.rows[0]
	assert.Equal(t, "no_answer", row["quorum"])
	assert.Equal(t, []any{nil, nil, nil, nil, 3.0, 3.0, 10.0, 0.0, 3.0}, []any{row["brokers"], row["under_replicated"],
		row["under_min_isr"], row["preferred_replica_imbalance"], row["unknown"], row["topics"], row["partitions"], row["offline"],
		row["unanswered"]})
	problems := row["problems"].([]any)
	require.Len(t, problems, 3)
	assert.Equal(t, "leader 2 does not answer", problems[0].(map[string]any)["problem"])
	states := row["broker_states"].([]any)
	require.Len(t, states, 3)
	assert.Equal(t, []any{"unknown", true, "unknown", true, "unknown", false}, []any{
		states[0].(map[string]any)["state"], states[0].(map[string]any)["reachable"], states[1].(map[string]any)["state"],
		states[1].(map[string]any)["reachable"], states[2].(map[string]any)["state"], states[2].(map[string]any)["reachable"]})
	assert.Equal(t, map[string]float64{"kafka_cluster_unknown_brokers{}": 3, "kafka_cluster_topics{}": 3, "kafka_cluster_partitions{}": 10,
		"kafka_cluster_offline_partitions{}": 0, "kafka_cluster_unanswered_partitions{}": 3, "kafka_cluster_active_controller{}": 0},
		r.metrics, "what cannot be known is left out")
	assert.Contains(t, r.stderr, "quorum no_answer, no active controller, broker states unknown (2 answer), 3 topics, 10 partitions seen: 3 problems")
}

// Leadership: every partition led by broker 0 while the preferred
// replicas (first in the replicas) are spread fails both checks, and each
// names the preferred election that evens it out; with the preferred
// replicas on broker 0 too, no election can, and the check says to move
// replicas instead. The thresholds are flags.
func TestClusterHealthLeaderBalance(t *testing.T) {
	const s = "cluster-health.lua"
	// led (and with preferredOnZero, preferred) by broker 0: the demo's
	// partitions have 3 replicas, one on each broker.
	onZero := func(preferredOnZero bool) func(t *kmsg.DescribeTopicPartitionsResponseTopic) {
		return func(t *kmsg.DescribeTopicPartitionsResponseTopic) {
			for i := range t.Partitions {
				p := &t.Partitions[i]
				p.LeaderID = 0
				if preferredOnZero {
					p.Replicas = append([]int32{0}, slices.DeleteFunc(slices.Clone(p.Replicas), func(r int32) bool { return r == 0 })...)
				}
			}
		}
	}
	e := newEnv(t)
	e.sickTopics(onZero(false))
	r := e.ok(false, s)
	election := `a preferred leader election moves 6 partitions back: kadmin-lua -e 'elect_leaders{topics = {"orders", "payments"}}' ` +
		`(kafka-leader-election --election-type PREFERRED --all-topic-partitions)`
	assert.Equal(t, []string{
		"preferred leaders not leading: broker 1 leads 0 of the 3 it is the preferred leader of; broker 2 leads 0 of the 3 it is the preferred leader of " +
			"(over 10%, --preferred-imbalance-pct, Kafka's leader.imbalance.per.broker.percentage); " + election,
		"leaders uneven: broker 0 leads 10, broker 1 leads 0, broker 2 leads 0 (of 10 partitions on 3 live brokers: mean 3.3, " +
			"2 to 5 allowed by --leader-skew-pct 150); " + election,
	}, r.checks)
	assert.Equal(t, []float64{6, 300}, []float64{r.metrics["kafka_cluster_preferred_replica_imbalance{}"], r.metrics["kafka_cluster_leaders_pct{}"]})
	assert.Equal(t, []any{6.0, 300.0}, []any{r.rows[0]["preferred_replica_imbalance"], r.rows[0]["leaders_pct"]})
	b1 := r.rows[0]["broker_states"].([]any)[1].(map[string]any)
	assert.Equal(t, []any{0.0, 3.0, 3.0}, []any{b1["leaders"], b1["preferred"], b1["preferred_not_leading"]})

	r = e.ok(false, s, "--preferred-imbalance-pct", "100", "--leader-skew-pct", "400")
	assert.Empty(t, r.checks, "0 to 14 leaders allowed")

	e = newEnv(t)
	e.sickTopics(onZero(true))
	r = e.ok(false, s)
	assert.Equal(t, []string{
		"leaders uneven: broker 0 leads 10, broker 1 leads 0, broker 2 leads 0 (of 10 partitions on 3 live brokers: mean 3.3, " +
			"2 to 5 allowed by --leader-skew-pct 150); a preferred leader election would not even them (the preferred replicas, first in each " +
			`partition's replicas, are uneven): move replicas with plan_reassignment{topics = {"audit-log", "orders", "payments"}} and alter_partition_reassignments`,
	}, r.checks)

	e.usage(s, `--leader-skew-pct must be an integer >= 100, got "50"`, "--leader-skew-pct", "50")
	e.usage(s, `--preferred-imbalance-pct must be a non-negative integer, got "x"`, "--preferred-imbalance-pct", "x")
}

// sickTopics makes every DescribeTopicPartitions request from now on
// answered with the cluster's real topics passed through doctor, and
// counts the answers.
func (e *env) sickTopics(doctor func(*kmsg.DescribeTopicPartitionsResponseTopic)) *atomic.Int64 {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...))
	require.NoError(e.t, err)
	defer cl.Close()
	full, err := kmsg.NewPtrDescribeTopicPartitionsRequest().RequestWith(e.ctx(), cl)
	require.NoError(e.t, err)
	require.Nil(e.t, full.NextCursor, "the demo cluster fits one page")
	byName := map[string]kmsg.DescribeTopicPartitionsResponseTopic{}
	for _, t := range full.Topics {
		t.Partitions = append([]kmsg.DescribeTopicPartitionsResponseTopicPartition(nil), t.Partitions...)
		doctor(&t)
		byName[*t.Topic] = t
	}
	var hits atomic.Int64
	fake := e.c.Fake()
	fake.ControlKey(int16(kmsg.DescribeTopicPartitions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		dreq := req.(*kmsg.DescribeTopicPartitionsRequest)
		resp := *full
		resp.Topics = nil
		for _, t := range full.Topics {
			if len(dreq.Topics) == 0 || slices.ContainsFunc(dreq.Topics, func(rt kmsg.DescribeTopicPartitionsRequestTopic) bool { return rt.Topic == *t.Topic }) {
				resp.Topics = append(resp.Topics, byName[*t.Topic])
			}
		}
		resp.SetVersion(req.GetVersion())
		hits.Add(1)
		return &resp, nil, true
	})
	return &hits
}

// diffWorld is two kfake clusters that differ in known ways: topics on one
// side only, a partition count, a replication factor, topic configs and ACLs.
func diffWorld(t *testing.T) (a, b string) {
	t.Helper()
	ctx := context.Background()
	mk := func(brokers int, setup func(adm *kadm.Client)) string {
		c, err := kfake.NewCluster(kfake.NumBrokers(brokers))
		require.NoError(t, err)
		t.Cleanup(c.Close)
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
		require.NoError(t, err)
		defer cl.Close()
		setup(kadm.NewClient(cl))
		return strings.Join(c.ListenAddrs(), ",")
	}
	retention := func(ms string) map[string]*string { return map[string]*string{"retention.ms": &ms} }
	compact := "compact"
	acl := func(adm *kadm.Client, principal string, op kadm.ACLOperation, topic string) {
		res, err := adm.CreateACLs(ctx, kadm.NewACLs().Allow(principal).AllowHosts("*").Topics(topic).
			ResourcePatternType(kadm.ACLPatternLiteral).Operations(op))
		require.NoError(t, err)
		for _, r := range res {
			require.NoError(t, r.Err)
		}
	}
	a = mk(3, func(adm *kadm.Client) {
		_, err := adm.CreateTopic(ctx, 3, 3, map[string]*string{"cleanup.policy": &compact}, "orders")
		require.NoError(t, err)
		_, err = adm.CreateTopic(ctx, 2, 1, retention("1000"), "payments")
		require.NoError(t, err)
		_, err = adm.CreateTopic(ctx, 1, 1, nil, "only-a")
		require.NoError(t, err)
		acl(adm, "User:alice", kadm.OpRead, "orders")
		acl(adm, "User:both", kadm.OpDescribe, "orders")
	})
	b = mk(1, func(adm *kadm.Client) {
		_, err := adm.CreateTopic(ctx, 6, 1, nil, "orders")
		require.NoError(t, err)
		_, err = adm.CreateTopic(ctx, 2, 1, retention("2000"), "payments")
		require.NoError(t, err)
		_, err = adm.CreateTopic(ctx, 1, 1, nil, "only-b")
		require.NoError(t, err)
		acl(adm, "User:bob", kadm.OpWrite, "payments")
		acl(adm, "User:both", kadm.OpDescribe, "orders")
	})
	return a, b
}

func TestDiffClusters(t *testing.T) {
	a, b := diffWorld(t)
	e := &env{t: t, c: &demo.Cluster{Addrs: []string{"127.0.0.1:1"}}} // the default cluster is not used
	const s = "diff-clusters.lua"

	r := e.ok(false, s, a, b)
	type diff struct{ kind, resource, key, a, b string }
	var got []diff
	for _, row := range r.rows {
		str := func(k string) string {
			if v, ok := row[k]; ok {
				return fmt.Sprint(v)
			}
			return ""
		}
		got = append(got, diff{str("kind"), str("resource"), str("key"), str("a"), str("b")})
	}
	assert.Equal(t, []diff{
		{"topic", "only-a", "", "present", "missing"},
		{"topic", "only-b", "", "missing", "present"},
		{"partitions", "orders", "", "3", "6"},
		{"replication_factor", "orders", "", "3", "1"},
		{"config", "orders", "cleanup.policy", "compact", "delete"},
		{"config", "payments", "retention.ms", "1000", "2000"},
		{"acl", "topic:orders (literal)", "User:alice allow read from *", "present", "missing"},
		{"acl", "topic:payments (literal)", "User:bob allow write from *", "missing", "present"},
	}, sortDiffs(got))
	assert.Equal(t, []string{
		fmt.Sprintf("%s and %s differ: 2 topics present on one side only", a, b),
		fmt.Sprintf("%s and %s differ: 1 partition counts", a, b),
		fmt.Sprintf("%s and %s differ: 1 replication factors", a, b),
		fmt.Sprintf("%s and %s differ: 2 topic configs", a, b),
		fmt.Sprintf("%s and %s differ: 2 ACLs", a, b),
	}, r.checks)
	assert.Equal(t, 2.0, r.metrics[fmt.Sprintf("kafka_clusters_differences{a=%s,b=%s,kind=config}", a, b)])
	assert.Contains(t, r.stderr, "2 topics in both; 2 topics present on one side only, 1 partition counts")

	// Only the topics that match; ACLs are still compared.
	r = e.ok(false, s, a, b, "--match", "^payments$")
	assert.Len(t, r.rows, 3, "payments' retention and the two ACLs: %s", r.json)
	assert.Equal(t, "config", r.rows[0]["kind"])

	e.usage(s, "A and B are the same cluster", a, a)
	e.usage(s, "expected 2 arguments, got 1", a)
	r = e.run(false, s, "no-such-profile", b)
	require.NotNil(t, r.err)
	assert.Contains(t, r.err.Message, "profiles are not configured", "a name without ':' is a profile")
}

func sortDiffs[T any](rows []T) []T {
	// The script returns topics (by name), then configs, then ACLs; order
	// the test's view by kind as the table in docs/runbooks.md does.
	rank := map[string]int{"topic": 0, "partitions": 1, "replication_factor": 2, "config": 3, "acl": 4}
	out := append([]T{}, rows...)
	slices.SortStableFunc(out, func(x, y T) int {
		kx := reflect.ValueOf(x).Field(0).String()
		ky := reflect.ValueOf(y).Field(0).String()
		return rank[kx] - rank[ky]
	})
	return out
}
