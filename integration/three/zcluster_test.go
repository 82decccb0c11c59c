package three

// The file name sorts last on purpose: TestUnregisterBroker stops and
// restarts a node, so it runs after the others.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// describe_quorum: the three combined nodes are the voters; one leads.
func TestDescribeQuorum(t *testing.T) {
	e := newEnv(t)
	var q struct {
		Leader        int32 `json:"leader"`
		Epoch         int32 `json:"epoch"`
		HighWatermark int64 `json:"high_watermark"`
		Voters        []struct {
			ID           int32  `json:"id"`
			DirectoryID  string `json:"directory_id"`
			LogEndOffset int64  `json:"log_end_offset"`
			Lag          int64  `json:"lag"`
		} `json:"voters"`
		Observers []struct {
			ID int32 `json:"id"`
		} `json:"observers"`
	}
	e.decode(`return describe_quorum()`, &q)
	t.Logf("quorum: %+v", q)
	require.Len(t, q.Voters, 3)
	var ids []int32
	for _, v := range q.Voters {
		ids = append(ids, v.ID)
		assert.GreaterOrEqual(t, v.Lag, int64(0))
		assert.Equal(t, max(q.HighWatermark-v.LogEndOffset, 0), v.Lag, "lag is high watermark - log end offset (the leader may be ahead of the high watermark)")
	}
	assert.Equal(t, []int32{1, 2, 3}, ids)
	assert.Contains(t, ids, q.Leader)
	assert.Positive(t, q.Epoch)
	assert.Positive(t, q.HighWatermark)

	// The same leader through a separate client.
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rp := kmsg.NewDescribeQuorumRequestTopicPartition()
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	cl, err := need(t).Client()
	require.NoError(t, err)
	defer cl.Close()
	resp, err := req.RequestWith(ctxFor(t, time.Minute), cl)
	require.NoError(t, err)
	p := resp.Topics[0].Partitions[0]
	// Leadership can change between the two requests only if a node failed.
	assert.Equal(t, p.LeaderID, q.Leader)

	for _, v := range q.Voters {
		assert.Equal(t, need(t).DirectoryID(v.ID), v.DirectoryID, "voter %d: the directory id it was formatted with", v.ID)
	}
}

// add_raft_voter / remove_raft_voter on the dynamic quorum (KIP-853): a
// voter removed goes on as an observer; added back (its directory id
// looked up among the observers) it votes again. Through the binary with
// an audit log, undo of a removal adds the voter back on the endpoints the
// intent line recorded.
func TestRaftVoterChanges(t *testing.T) {
	c := need(t)
	e := newEnv(t)
	type replica struct {
		ID          int32  `json:"id"`
		DirectoryID string `json:"directory_id"`
	}
	var q struct {
		Leader    int32     `json:"leader"`
		Voters    []replica `json:"voters"`
		Observers []replica `json:"observers"`
	}
	e.decode(`return describe_quorum()`, &q)
	require.Len(t, q.Voters, 3)
	victim := int32(1)
	for victim == q.Leader {
		victim++
	}
	dir := c.DirectoryID(victim)
	voters := func() (ids, observers []int32, s string) {
		e.decode(`return describe_quorum()`, &q)
		for _, v := range q.Voters {
			ids = append(ids, v.ID)
		}
		for _, o := range q.Observers {
			observers = append(observers, o.ID)
		}
		return ids, observers, fmt.Sprintf("%+v", q)
	}
	waitVoters := func(what string, want int, observer bool) {
		t.Helper()
		kafkatest.WaitFor(t, what, time.Minute, func() (bool, string) {
			ids, obs, s := voters()
			return len(ids) == want && slices.Contains(ids, victim) != observer && slices.Contains(obs, victim) == observer, s
		})
	}

	var removed struct {
		ID          int32  `json:"id"`
		DirectoryID string `json:"directory_id"`
	}
	e.decode(fmt.Sprintf(`return remove_raft_voter{id = %d, directory_id = %q}`, victim, dir), &removed)
	assert.Equal(t, victim, removed.ID)
	waitVoters(fmt.Sprintf("controller %d an observer", victim), 2, true)
	re := e.RunErr(fmt.Sprintf(`remove_raft_voter{id = %d, directory_id = %q}`, victim, dir))
	assert.Equal(t, "VOTER_NOT_FOUND", re.Code, re.Message)

	e.run(fmt.Sprintf(`add_raft_voter{id = %d, endpoints = {{listener = "CONTROLLER", host = "127.0.0.1", port = %d}}}`, victim, c.ControllerPort(victim)))
	waitVoters(fmt.Sprintf("controller %d a voter again", victim), 3, false)
	re = e.RunErr(fmt.Sprintf(`add_raft_voter{id = %d, directory_id = %q, endpoints = {{listener = "CONTROLLER", host = "127.0.0.1", port = %d}}}`,
		victim, dir, c.ControllerPort(victim)))
	assert.Equal(t, "DUPLICATE_VOTER", re.Code, re.Message)

	// The binary: audited, then undone.
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	res := runBinary(ctxFor(t, time.Minute), t, "--yes", "--audit-log", audit, "-e",
		fmt.Sprintf(`remove_raft_voter{id = %d, directory_id = %q}`, victim, dir))
	require.Equal(t, 0, res.Code, res.Stderr)
	waitVoters(fmt.Sprintf("controller %d an observer (binary)", victim), 2, true)
	res = runBinary(ctxFor(t, time.Minute), t, "undo", "--yes", audit)
	t.Logf("undo:\n%s%s", res.Stdout, res.Stderr)
	require.Equal(t, 0, res.Code, res.Stderr)
	waitVoters(fmt.Sprintf("controller %d a voter again (undo)", victim), 3, false)
}

// describe_log_dirs: a row per broker (one log dir each), with our replicas.
func TestDescribeLogDirs(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-logdirs"
	e.run(fmt.Sprintf(`create_topics{{name = %q, partitions = 2}}`, topic))
	waitISR(t, topic, time.Minute)
	produce(t, topic, 2, 10, 500)
	type dirRow struct {
		Broker      int32  `json:"broker"`
		Dir         string `json:"dir"`
		TotalBytes  int64  `json:"total_bytes"`
		UsableBytes int64  `json:"usable_bytes"`
		Partitions  []struct {
			Topic     string `json:"topic"`
			Partition int32  `json:"partition"`
			Size      int64  `json:"size"`
			IsFuture  bool   `json:"is_future"`
		} `json:"partitions"`
		Error any `json:"error"`
	}
	var rows []dirRow
	kafkatest.WaitFor(t, "replicas sized on every broker", time.Minute, func() (bool, string) {
		e.decode(fmt.Sprintf(`return describe_log_dirs{topics = %q}`, topic), &rows)
		ok := len(rows) == 3
		for _, r := range rows {
			ok = ok && len(r.Partitions) == 2
			for _, p := range r.Partitions {
				ok = ok && p.Size >= 10*500
			}
		}
		return ok, fmt.Sprintf("%+v", rows)
	})
	for i, r := range rows {
		assert.Equal(t, int32(i+1), r.Broker)
		assert.Contains(t, r.Dir, fmt.Sprintf("node%d", r.Broker))
		assert.Nil(t, r.Error)
		assert.Positive(t, r.TotalBytes)
		assert.Positive(t, r.UsableBytes)
	}
	// The whole broker, no filter: internal topics are there too.
	e.decode(`return describe_log_dirs{brokers = 2}`, &rows)
	require.Len(t, rows, 1)
	assert.GreaterOrEqual(t, len(rows[0].Partitions), 2)
	// A broker not in the cluster.
	e.decode(`return describe_log_dirs({brokers = 99}, {partial = true})`, &rows)
	t.Logf("broker 99: %+v", rows)
	require.Len(t, rows, 1)
	assert.NotNil(t, rows[0].Error)

	// alter_replica_log_dirs: each broker has a single log dir, so a real
	// move between dirs is impossible here; a dir the broker does not have
	// is refused by Kafka.
	dir := rows[0].Dir
	e.decode(`return describe_log_dirs{brokers = 1}`, &rows)
	dir = rows[0].Dir
	re := e.RunErr(fmt.Sprintf(`alter_replica_log_dirs{{topic = %q, partition = 0, broker = 1, dir = %q}}`, topic, dir+"-elsewhere"))
	t.Logf("move to a dir broker 1 lacks: %s: %s", re.Code, re.Message)
	assert.Equal(t, "LOG_DIR_NOT_FOUND", re.Code, re.Message)
	// Moving to the dir it is already in is accepted and changes nothing.
	var moved []struct {
		Error any `json:"error"`
	}
	e.decode(fmt.Sprintf(`return alter_replica_log_dirs{{topic = %q, partition = 0, broker = 1, dir = %q}}`, topic, dir), &moved)
	require.Len(t, moved, 1)
	assert.Nil(t, moved[0].Error)
}

// api_versions: a row per broker and API key, from each of the three.
func TestAPIVersions(t *testing.T) {
	e := newEnv(t)
	var rows []struct {
		Broker     int32  `json:"broker"`
		API        int16  `json:"api"`
		Name       string `json:"name"`
		MinVersion int16  `json:"min_version"`
		MaxVersion int16  `json:"max_version"`
	}
	e.decode(`return api_versions()`, &rows)
	per := map[int32]int{}
	quorum := map[int32]int16{}
	for _, r := range rows {
		per[r.Broker]++
		if r.Name == "DescribeQuorum" {
			quorum[r.Broker] = r.MaxVersion
		}
	}
	t.Logf("api rows per broker: %v", per)
	require.Len(t, per, 3)
	for b, n := range per {
		assert.Greater(t, n, 50, "broker %d", b)
		assert.Equal(t, per[1], n, "same build, same APIs")
	}
	assert.Len(t, quorum, 3, "every broker answers DescribeQuorum")
	// The same from a separate client.
	vs, err := admin(t).ApiVersions(ctxFor(t, time.Minute))
	require.NoError(t, err)
	require.Len(t, vs, 3)
	for id, v := range vs {
		require.NoError(t, v.Err)
		n := 0
		v.EachKeySorted(func(int16, int16, int16) { n++ })
		assert.Equal(t, per[id], n, "broker %d", id)
	}
}

// unregister_broker: unregistering a stopped broker removes it (even from
// the fenced list) until it starts again. Kafka does not refuse a running
// broker either (see below).
func TestUnregisterBroker(t *testing.T) {
	c := need(t)
	e := newEnv(t)
	re := e.RunErr(`unregister_broker(99)`)
	assert.Equal(t, "BROKER_ID_NOT_REGISTERED", re.Code, re.Message)

	// A topic whose ISR falls below min.insync.replicas when a broker
	// stops: the stopped replica becomes an eligible leader (ELR).
	const elrTopic = "it3-elr"
	e.run(fmt.Sprintf(`create_topics{{name = %q, partitions = 2, replication_factor = 3, configs = {["min.insync.replicas"] = 3}}}`, elrTopic))
	waitISR(t, elrTopic, time.Minute)
	elrLevel := e.run(`for _, f in ipairs(describe_features()) do if f.feature == "eligible.leader.replicas.version" then return f.finalized_level end end`)
	t.Logf("eligible.leader.replicas.version: %s", elrLevel)

	require.NoError(t, c.StopNode(ctxFor(t, time.Minute), 3))
	// Fenced brokers are listed by DescribeCluster v2 (Kafka 4.0 on); an
	// older cluster (3.9) shows only that broker 3 is no longer live.
	_, _, seesFenced := registeredBrokers(t)
	what := "broker 3 fenced but registered"
	if !seesFenced {
		what = "broker 3 no longer live (DescribeCluster before v2 lists no fenced brokers)"
	}
	kafkatest.WaitFor(t, what, time.Minute, func() (bool, string) {
		live, fenced := registered(t)
		return !slices.Contains(live, 3) && (slices.Contains(fenced, 3) || !seesFenced), fmt.Sprintf("live %v fenced %v", live, fenced)
	})
	if seesFenced {
		// Broker states, the active controller and ELR as 4.x shows
		// them; a 3.9 cluster can tell none of them (DescribeCluster v1,
		// ELR off).
		checkFencedView(t, e, elrTopic)
	}
	var res struct {
		Broker int32 `json:"broker"`
	}
	e.decode(`return unregister_broker(3)`, &res)
	assert.Equal(t, int32(3), res.Broker)
	kafkatest.WaitFor(t, "broker 3 no longer registered", time.Minute, func() (bool, string) {
		live, fenced := registered(t)
		return !slices.Contains(live, 3) && !slices.Contains(fenced, 3), fmt.Sprintf("live %v fenced %v", live, fenced)
	})
	re = e.RunErr(`unregister_broker(3)`)
	assert.Equal(t, "BROKER_ID_NOT_REGISTERED", re.Code, re.Message)
	// Not registered, but still in the replicas of every RF-3 topic.
	var cl clusterView
	e.decode(`return describe_cluster()`, &cl)
	gone := "3 unregistered"
	if !seesFenced {
		gone = "3 offline" // before 4.0 fenced and unregistered look alike
	}
	assert.Equal(t, []string{"1 live", "2 live", gone}, cl.states(), "%+v", cl)

	require.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), 3))
	kafkatest.WaitFor(t, "broker 3 registered again", time.Minute, func() (bool, string) {
		live, fenced := registered(t)
		return slices.Contains(live, 3), fmt.Sprintf("live %v fenced %v", live, fenced)
	})
	waitWhole(t)

	// A running broker: Kafka 4.x accepts the request and drops the
	// registration; the broker process keeps running but does not register
	// again by itself (checked for 10 s). A restart registers it. A Kafka
	// 3.9 broker was seen to register again by itself within those 10 s in
	// one run of two: there only the unregistering is checked.
	var res2 struct {
		Broker int32 `json:"broker"`
	}
	e.decode(`return unregister_broker(2)`, &res2)
	assert.Equal(t, int32(2), res2.Broker)
	kafkatest.WaitFor(t, "broker 2 unregistered while running", time.Minute, func() (bool, string) {
		live, fenced := registered(t)
		return !slices.Contains(live, 2) && !slices.Contains(fenced, 2), fmt.Sprintf("live %v fenced %v", live, fenced)
	})
	assert.NotZero(t, c.PID(2), "the broker process is still running")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !strings.HasPrefix(c.Version, "3.") {
		live, fenced := registered(t)
		require.False(t, slices.Contains(live, 2) || slices.Contains(fenced, 2), "broker 2 registered again by itself")
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("broker 2 log after unregistering it live:\n%s", c.LogTail(2, 8))
	// A controlled shutdown of an unregistered broker hangs (the
	// controller does not know it): kill it, then start it again.
	require.NoError(t, c.KillNode(2))
	require.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), 2))
	waitWhole(t)
	live, _ := registered(t)
	assert.Equal(t, []int32{1, 2, 3}, live)
}

// registered returns the live and the fenced broker ids, from
// DescribeCluster with IncludeFencedBrokers (v2, Kafka 4.0+; on older
// clusters fenced is always empty: see registeredBrokers).
func registered(t *testing.T) (live, fenced []int32) {
	t.Helper()
	live, fenced, _ = registeredBrokers(t)
	return live, fenced
}

// registeredBrokers is registered, and whether the cluster lists fenced
// brokers at all (it answered DescribeCluster v2 or later).
func registeredBrokers(t *testing.T) (live, fenced []int32, seesFenced bool) {
	t.Helper()
	cl, ctx, done := rawClient(t)
	defer done()
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeFencedBrokers = true
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	seesFenced = resp.GetVersion() >= 2
	for _, b := range resp.Brokers {
		if b.IsFenced {
			fenced = append(fenced, b.NodeID)
		} else {
			live = append(live, b.NodeID)
		}
	}
	slices.Sort(live)
	slices.Sort(fenced)
	return live, fenced, seesFenced
}

type clusterView struct {
	Controller       int32  `json:"controller"`
	ActiveController *int32 `json:"active_controller"`
	Brokers          []struct {
		ID    int32  `json:"id"`
		Host  string `json:"host"`
		State string `json:"state"`
	} `json:"brokers"`
}

func (v clusterView) states() []string {
	var out []string
	for _, b := range v.Brokers {
		out = append(out, fmt.Sprintf("%d %s", b.ID, b.State))
	}
	return out
}

// checkFencedView: with broker 3 stopped, describe_cluster says it is
// fenced and names the quorum's leader as the active controller (checked
// with a separate client), describe_topics gives the ELR kafka-topics
// prints, and the cluster-health runbook fails on the fenced broker.
func checkFencedView(t *testing.T, e *env, elrTopic string) {
	t.Helper()
	var cl clusterView
	e.decode(`return describe_cluster()`, &cl)
	t.Logf("describe_cluster with broker 3 stopped: %+v", cl)
	assert.Equal(t, []string{"1 live", "2 live", "3 fenced"}, cl.states())
	assert.NotEmpty(t, cl.Brokers[2].Host, "a fenced broker is registered: its address is known")
	require.NotNil(t, cl.ActiveController)
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	raw, ctx, done := rawClient(t)
	resp, err := req.RequestWith(ctx, raw)
	done()
	require.NoError(t, err)
	assert.Equal(t, resp.Topics[0].Partitions[0].LeaderID, *cl.ActiveController, "the quorum's leader")
	assert.NotEqual(t, int32(3), *cl.ActiveController, "a stopped node leads nothing")

	// ELR as kafka-topics 4.1 prints it (Elr: / LastKnownElr: columns).
	var topics []struct {
		Partitions []struct {
			Partition    int32   `json:"partition"`
			ISR          []int32 `json:"isr"`
			ELR          []int32 `json:"elr"`
			LastKnownELR []int32 `json:"last_known_elr"`
		} `json:"partitions"`
	}
	var java string
	kafkatest.WaitFor(t, "broker 3 out of the ISR of "+elrTopic, time.Minute, func() (bool, string) {
		e.decode(fmt.Sprintf(`return describe_topics(%q)`, elrTopic), &topics)
		ok := len(topics) == 1 && len(topics[0].Partitions) == 2
		for _, p := range topics[0].Partitions {
			ok = ok && !slices.Contains(p.ISR, 3)
		}
		return ok, fmt.Sprintf("%+v", topics)
	})
	ctx2 := ctxFor(t, time.Minute)
	out, err := need(t).RunJava(ctx2, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", need(t).Bootstrap(),
		"--describe", "--topic", elrTopic)
	require.NoError(t, err, out)
	java = out
	e.decode(fmt.Sprintf(`return describe_topics(%q)`, elrTopic), &topics)
	t.Logf("kafka-topics:\n%s\ndescribe_topics: %+v", java, topics)
	for _, p := range topics[0].Partitions {
		line := ""
		for _, l := range strings.Split(java, "\n") {
			if strings.Contains(l, fmt.Sprintf("Partition: %d\t", p.Partition)) {
				line = l
			}
		}
		require.NotEmpty(t, line, "kafka-topics prints partition %d", p.Partition)
		assert.Contains(t, line, "\tElr: "+joinIDs(p.ELR), "partition %d", p.Partition)
		assert.Contains(t, line, "\tLastKnownElr: "+joinIDs(p.LastKnownELR), "partition %d", p.Partition)
		assert.Equal(t, []int32{3}, p.ELR, "the stopped replica is eligible (ISR below min.insync.replicas)")
	}

	// The health view: exit 4, the fenced broker named.
	res := runBinary(ctxFor(t, time.Minute), t, "-o", "json", "run", "cluster-health", "--brokers", "3")
	t.Logf("cluster-health:\n%s", res.Stderr)
	assert.Equal(t, 4, res.Code, res.Stderr)
	assert.Contains(t, res.Stderr, "1 broker fenced: 3")
	assert.Contains(t, res.Stderr, "2 of 3 brokers are up")
	assert.Contains(t, res.Stderr, "partitions under-replicated")
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}
