package luaapi

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// replicaBytes is what each broker's log dir holds: broker -> topic ->
// partition -> size.
type replicaBytes map[int32]map[string]map[int32]int64

// fakeLogDirs makes each kfake broker answer DescribeLogDirs with its own
// replicas (kfake itself reports every partition on every broker), from
// one dir "/data/<broker>"; a broker in failing answers with
// KAFKA_STORAGE_ERROR.
func fakeLogDirs(e *env, sizes replicaBytes, failing ...int32) {
	var mu sync.Mutex
	e.cluster.ControlKey(int16(kmsg.DescribeLogDirs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		node := e.cluster.CurrentNode()
		req := r.(*kmsg.DescribeLogDirsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeLogDirsResponse)
		d := kmsg.NewDescribeLogDirsResponseDir()
		d.Dir = "/data/" + itoa(node)
		d.TotalBytes, d.UsableBytes = 1<<30, 1<<29
		for _, f := range failing {
			if f == node {
				d.ErrorCode = kerr.KafkaStorageError.Code
			}
		}
		want := map[string]map[int32]bool{}
		for _, t := range req.Topics {
			want[t.Topic] = map[int32]bool{}
			for _, p := range t.Partitions {
				want[t.Topic][p] = true
			}
		}
		for topic, ps := range sizes[node] {
			if req.Topics != nil && want[topic] == nil {
				continue
			}
			rt := kmsg.NewDescribeLogDirsResponseDirTopic()
			rt.Topic = topic
			for p, size := range ps {
				if req.Topics != nil && !want[topic][p] {
					continue
				}
				rp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
				rp.Partition, rp.Size = p, size
				rt.Partitions = append(rt.Partitions, rp)
			}
			d.Topics = append(d.Topics, rt)
		}
		resp.Dirs = append(resp.Dirs, d)
		return resp, nil, true
	})
}

// sizesCluster: topic t, p0 on brokers 0 (leader) and 1, p1 on 1 (leader)
// and 2; topic u, p0 on 2 alone. Followers hold a little less than their
// leaders, as followers do.
func sizesCluster(t *testing.T, failing ...int32) *env {
	e := newEnv(t)
	// kfake's replicas are the leader and the brokers after it.
	_, err := e.adm.CreateTopic(e.ctx(), 2, 2, nil, "t")
	require.NoError(t, err)
	_, err = e.adm.CreateTopic(e.ctx(), 1, 1, nil, "u")
	require.NoError(t, err)
	require.NoError(t, e.cluster.MoveTopicPartition("t", 0, 0))
	require.NoError(t, e.cluster.MoveTopicPartition("t", 1, 1))
	require.NoError(t, e.cluster.MoveTopicPartition("u", 0, 2))
	fakeLogDirs(e, replicaBytes{
		0: {"t": {0: 1000}},
		1: {"t": {0: 900, 1: 2000}},
		2: {"t": {1: 1500}, "u": {0: 7}},
	}, failing...)
	return e
}

// TestTopicAndBrokerSizes: sums per topic, partition, broker and dir, with
// leaders and replicas counted, from what each broker reports.
func TestTopicAndBrokerSizes(t *testing.T) {
	e := sizesCluster(t)
	assert.JSONEq(t, `[
		{"topic":"t","partitions":2,"replicas":4,"leaders":2,"bytes":5400,"leader_bytes":3000,"largest_replica_bytes":2000},
		{"topic":"u","partitions":1,"replicas":1,"leaders":1,"bytes":7,"leader_bytes":7,"largest_replica_bytes":7}]`,
		e.json(`return topic_sizes()`))
	assert.JSONEq(t, `[
		{"topic":"t","partition":0,"leader":0,"partitions":1,"replicas":2,"leaders":1,"bytes":1900,"leader_bytes":1000,"largest_replica_bytes":1000},
		{"topic":"t","partition":1,"leader":1,"partitions":1,"replicas":2,"leaders":1,"bytes":3500,"leader_bytes":2000,"largest_replica_bytes":2000}]`,
		e.json(`return topic_sizes("t", {per = "partition"})`))
	brokers := `[
		{"broker":0,"rack":"krack","dirs":1,"replicas":1,"leaders":1,"bytes":1000,"leader_bytes":1000,"total_bytes":1073741824,"usable_bytes":536870912},
		{"broker":1,"rack":"krack","dirs":1,"replicas":2,"leaders":1,"bytes":2900,"leader_bytes":2000,"total_bytes":1073741824,"usable_bytes":536870912},
		{"broker":2,"rack":"krack","dirs":1,"replicas":1,"leaders":0,"bytes":1500,"leader_bytes":0,"total_bytes":1073741824,"usable_bytes":536870912}]`
	assert.JSONEq(t, brokers, e.json(`return broker_sizes("t")`))
	dirs := e.json(`return broker_sizes(nil, {per = "dir"})`)
	assert.Contains(t, dirs, `{"broker":2,"bytes":1507,"dir":"/data/2","dirs":1,"leader_bytes":7,"leaders":1,"rack":"krack","replicas":2,`)
	// The sums agree with describe_log_dirs added up by hand.
	e.run(`local n = 0
		for _, d in ipairs(describe_log_dirs()) do for _, p in ipairs(d.partitions) do n = n + p.size end end
		local m = 0
		for _, b in ipairs(broker_sizes()) do m = m + b.bytes end
		assert(n == m and n == 5407, n .. " " .. m)`)
	re := e.runErr(`topic_sizes("t", {per = "replica"})`)
	assert.Contains(t, re.Message, `topic_sizes: options: per: must be "topic" or "partition", got "replica"`)
	re = e.runErr(`broker_sizes(3)`)
	assert.Contains(t, re.Message, "broker_sizes: topics")
}

// TestSkewPerBrokerAndRack: partitions, leaders and bytes per broker, and
// the max/mean spread; a broker holding nothing is a row.
func TestSkewPerBrokerAndRack(t *testing.T) {
	e := sizesCluster(t)
	assert.JSONEq(t, `{
		"brokers":[{"broker":0,"rack":"krack","partitions":1,"leaders":1,"bytes":1000},
		           {"broker":1,"rack":"krack","partitions":2,"leaders":1,"bytes":2900},
		           {"broker":2,"rack":"krack","partitions":1,"leaders":0,"bytes":1500}],
		"racks":[{"rack":"krack","brokers":3,"partitions":4,"leaders":2,"bytes":5400}],
		"spread":{"partitions_pct":150,"leaders_pct":150,"bytes_pct":161.1},
		"rack_spread":{"partitions_pct":100,"leaders_pct":100,"bytes_pct":100}}`, e.json(`return skew("t")`))
	// Topic u alone: one broker holds it all, two hold nothing.
	assert.Contains(t, e.json(`return skew("u").spread`), `"partitions_pct":300`)
}

// TestSizesWithABrokerThatCannotBeRead: topic_sizes refuses to give short
// sums; broker_sizes marks the broker (and raises unless partial); skew
// leaves it out of the bytes spread.
func TestSizesWithABrokerThatCannotBeRead(t *testing.T) {
	e := sizesCluster(t, 2)
	re := e.runErr(`topic_sizes()`)
	assert.Equal(t, "KAFKA_STORAGE_ERROR", re.Code)
	assert.Contains(t, re.Message, "broker 2 /data/2")
	assert.Contains(t, re.Message, "topic_sizes would be incomplete")
	re = e.runErr(`broker_sizes()`)
	assert.Equal(t, "KAFKA_STORAGE_ERROR", re.Code)
	e.run(`local rows = broker_sizes(nil, {partial = true})
		assert(rows[3].broker == 2 and rows[3].bytes == -1 and rows[3].error.code == "KAFKA_STORAGE_ERROR")
		assert(rows[3].replicas == 2 and rows[3].leaders == 1, tostring(rows[3].replicas))
		assert(rows[1].bytes == 1000 and rows[1].error == nil)
		local s = skew()
		assert(s.brokers[3].bytes == -1 and s.brokers[3].error.code == "KAFKA_STORAGE_ERROR")
		assert(s.spread.bytes_pct == 148.7, tostring(s.spread.bytes_pct)) -- 2900 over the mean of 1000 and 2900`)
}
