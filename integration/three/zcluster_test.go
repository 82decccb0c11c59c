package three

// The file name sorts last on purpose: TestUnregisterBroker stops and
// restarts a node, so it runs after the others.

import (
	"fmt"
	"slices"
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
		assert.Equal(t, q.HighWatermark-v.LogEndOffset, v.Lag, "lag is high watermark - log end offset")
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

	require.NoError(t, c.StopNode(ctxFor(t, time.Minute), 3))
	kafkatest.WaitFor(t, "broker 3 fenced but registered", time.Minute, func() (bool, string) {
		live, fenced := registered(t)
		return !slices.Contains(live, 3) && slices.Contains(fenced, 3), fmt.Sprintf("live %v fenced %v", live, fenced)
	})
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

	require.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), 3))
	kafkatest.WaitFor(t, "broker 3 registered again", time.Minute, func() (bool, string) {
		live, fenced := registered(t)
		return slices.Contains(live, 3), fmt.Sprintf("live %v fenced %v", live, fenced)
	})
	waitWhole(t)

	// A running broker: Kafka 4.1.2 accepts the request and drops the
	// registration; the broker process keeps running but does not register
	// again by itself (checked for 10 s). A restart registers it.
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
	for time.Now().Before(deadline) {
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
// DescribeCluster with IncludeFencedBrokers (v2, Kafka 4.0+).
func registered(t *testing.T) (live, fenced []int32) {
	t.Helper()
	cl, ctx, done := rawClient(t)
	defer done()
	req := kmsg.NewPtrDescribeClusterRequest()
	req.Version = 2
	req.IncludeFencedBrokers = true
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	for _, b := range resp.Brokers {
		if b.IsFenced {
			fenced = append(fenced, b.NodeID)
		} else {
			live = append(live, b.NodeID)
		}
	}
	slices.Sort(live)
	slices.Sort(fenced)
	return live, fenced
}
