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
		"kafka_cluster_fenced_brokers{}": 0, "kafka_cluster_unregistered_brokers{}": 0,
		"kafka_cluster_quorum_voters{}": 0, "kafka_cluster_quorum_voters_behind{}": 0,
		"kafka_cluster_offline_partitions{}": 0, "kafka_cluster_under_replicated_partitions{}": 0,
		"kafka_cluster_under_min_isr_partitions{}": 0, "kafka_cluster_active_controller{}": 1}, r.metrics)
	states := r.rows[0]["broker_states"].([]any)
	require.Len(t, states, 3)
	assert.Equal(t, "live", states[0].(map[string]any)["state"])

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
		"1 partition without a leader: orders[0]",
		"2 partitions under-replicated: orders[1], payments[2]",
		"1 partition below min.insync.replicas: orders[1]",
		"1 broker fenced: 1",
		"1 broker in partition replicas but not registered: 2",
		"1 of 3 brokers are up",
	}, r.checks)
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
		"1 partition without a leader: orders[0]",
		"2 partitions under-replicated: orders[1], payments[2]",
		"1 partition below min.insync.replicas: orders[1]",
		"1 broker in partition replicas but not live: 2",
		"2 of 3 brokers are up",
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
	leader := int32(1)
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

	leader = -1 // an election in progress
	r = e.ok(false, s, "--quorum-lag-ms", "120000")
	assert.Equal(t, []string{"no active controller: the metadata quorum has no leader"}, r.checks)
	assert.Equal(t, float64(0), r.metrics["kafka_cluster_active_controller{}"])
	assert.Nil(t, r.rows[0]["active_controller"])
	e.usage(s, `--quorum-lag-ms must be a non-negative integer, got "x"`, "--quorum-lag-ms", "x")
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
