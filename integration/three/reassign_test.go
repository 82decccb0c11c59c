package three

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// produce writes n records of size bytes to every partition of topic
// (acks=all) and waits until they are acknowledged.
func produce(t *testing.T, topic string, partitions int32, n, size int) {
	t.Helper()
	cl, err := need(t).Client(kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.ProducerBatchMaxBytes(1_000_000))
	require.NoError(t, err)
	defer cl.Close()
	ctx := ctxFor(t, 2*time.Minute)
	var rs []*kgo.Record
	for p := int32(0); p < partitions; p++ {
		for i := 0; i < n; i++ {
			value := make([]byte, size)
			_, _ = rand.Read(value) // incompressible, so sizes on disk are real
			rs = append(rs, &kgo.Record{Topic: topic, Partition: p, Value: value})
		}
	}
	require.NoError(t, cl.ProduceSync(ctx, rs...).FirstErr())
}

type reassignRow struct {
	Topic            string  `json:"topic"`
	Partition        int32   `json:"partition"`
	Replicas         []int32 `json:"replicas"`
	AddingReplicas   []int32 `json:"adding_replicas"`
	RemovingReplicas []int32 `json:"removing_replicas"`
}

// A planned reassignment really moves replicas onto the broker that had
// none, with their data, and is seen finished.
func TestReassignmentMovesReplicas(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-move"
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {1, 2}, [1] = {2, 1}, [2] = {1, 2}}}}`, topic))
	waitISR(t, topic, time.Minute)
	produce(t, topic, 3, 50, 1000)

	var plan struct {
		Moves      int `json:"moves"`
		Partitions []struct {
			Topic     string  `json:"topic"`
			Partition int32   `json:"partition"`
			Current   []int32 `json:"current"`
			Target    []int32 `json:"target"`
		} `json:"partitions"`
	}
	e.decode(fmt.Sprintf(`return plan_reassignment{topics = {%q}}`, topic), &plan)
	t.Logf("plan: %+v", plan)
	assert.Equal(t, 2, plan.Moves, "6 replicas over 3 brokers: broker 3 gets 2, copied from 1 and 2")
	target := map[int32][]int32{0: {1, 2}, 1: {2, 1}, 2: {1, 2}}
	onThree := 0
	for _, p := range plan.Partitions {
		target[p.Partition] = p.Target
	}
	for _, r := range target {
		if slices.Contains(r, 3) {
			onThree++
		}
	}
	require.Equal(t, 2, onThree, "target %v", target)

	var altered []struct {
		Partition int32   `json:"partition"`
		Replicas  []int32 `json:"replicas"`
		Error     any     `json:"error"`
	}
	e.decode(`local plan = plan_reassignment{topics = {"`+topic+`"}}
		local res = alter_partition_reassignments(plan)
		return res`, &altered)
	require.Len(t, altered, len(plan.Partitions))
	for _, a := range altered {
		assert.Nil(t, a.Error)
		assert.Equal(t, target[a.Partition], a.Replicas)
	}

	var finished []struct {
		Topic     string  `json:"topic"`
		Partition int32   `json:"partition"`
		Replicas  []int32 `json:"replicas"`
	}
	e.decode(fmt.Sprintf(`return wait_reassignments{topics = {%q}, timeout = "2m", interval_ms = 100}`, topic), &finished)
	t.Logf("finished while waiting: %+v", finished)
	for _, f := range finished {
		assert.Equal(t, sorted(target[f.Partition]), sorted(f.Replicas), "partition %d", f.Partition)
	}
	var moving []reassignRow
	e.decode(fmt.Sprintf(`return list_partition_reassignments(%q)`, topic), &moving)
	assert.Empty(t, moving)

	// The new replica set, from Lua, from a separate client, and on disk.
	var desc []topicDesc
	e.decode(fmt.Sprintf(`return describe_topics(%q)`, topic), &desc)
	require.Len(t, desc, 1)
	for _, p := range desc[0].Partitions {
		assert.Equal(t, target[p.Partition], p.Replicas, "partition %d (order = preference)", p.Partition)
	}
	m := waitISR(t, topic, time.Minute)
	for p, st := range m {
		assert.Equal(t, sorted(target[p]), st.Replicas, "partition %d", p)
	}
	// Each broker applies the finished move from the metadata log on its
	// own time; the one a separate client asks may be behind: poll.
	adm := admin(t)
	kafkatest.WaitFor(t, "a separate client sees the new replicas", time.Minute, func() (bool, string) {
		td, err := adm.ListTopics(ctxFor(t, time.Minute), topic)
		if err != nil {
			return false, err.Error()
		}
		got := map[int32][]int32{}
		for p, d := range td[topic].Partitions {
			got[p] = d.Replicas
		}
		ok := len(got) == len(target)
		for p, r := range target {
			ok = ok && slices.Equal(r, got[p])
		}
		return ok, fmt.Sprint(got)
	})
	var dirs []struct {
		Broker     int32 `json:"broker"`
		Partitions []struct {
			Topic     string `json:"topic"`
			Partition int32  `json:"partition"`
			Size      int64  `json:"size"`
		} `json:"partitions"`
	}
	// Every replica, the two copied to broker 3 included, holds the data.
	kafkatest.WaitFor(t, "the data on every replica", time.Minute, func() (bool, string) {
		e.decode(fmt.Sprintf(`return describe_log_dirs{topics = %q}`, topic), &dirs)
		got := map[int32][]int32{}
		sizes := map[int32]map[int64]bool{}
		for _, d := range dirs {
			for _, p := range d.Partitions {
				got[p.Partition] = append(got[p.Partition], d.Broker)
				if sizes[p.Partition] == nil {
					sizes[p.Partition] = map[int64]bool{}
				}
				sizes[p.Partition][p.Size] = true
			}
		}
		ok := len(got) == 3
		for p, brokers := range got {
			ok = ok && slices.Equal(brokers, sorted(target[p])) && len(sizes[p]) == 1
			for size := range sizes[p] {
				ok = ok && size >= 50*1000
			}
		}
		return ok, fmt.Sprintf("replicas %v sizes %v", got, sizes)
	})
}

// A move slowed by replication throttles shows up in
// list_partition_reassignments, makes wait_reassignments time out, and is
// cancelled back to the original replicas.
func TestReassignmentThrottledCancel(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-slow"
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {1, 2}}}}`, topic))
	waitISR(t, topic, time.Minute)
	// Each follower fetch may take replica.fetch.max.bytes (1 MiB) before
	// the quota bites; at 1 KB/s the next one waits for the quota window
	// (~11 s): 6 MiB keep the move going for about a minute.
	produce(t, topic, 1, 60, 100_000)

	t.Cleanup(func() {
		e.run(`alter_configs{{broker = 1, delete = {"leader.replication.throttled.rate", "follower.replication.throttled.rate"}},
			{broker = 2, delete = {"leader.replication.throttled.rate", "follower.replication.throttled.rate"}},
			{broker = 3, delete = {"leader.replication.throttled.rate", "follower.replication.throttled.rate"}}}`)
	})
	e.run(fmt.Sprintf(`
		local rates = {["leader.replication.throttled.rate"] = 1000, ["follower.replication.throttled.rate"] = 1000}
		alter_configs{{broker = 1, set = rates}, {broker = 2, set = rates}, {broker = 3, set = rates},
			{topic = %q, set = {["leader.replication.throttled.replicas"] = "*", ["follower.replication.throttled.replicas"] = "*"}}}`, topic))
	// Brokers apply dynamic configs from the metadata log: wait until all
	// three report the throttle before starting the move.
	kafkatest.WaitFor(t, "throttles applied", time.Minute, func() (bool, string) {
		var res []configResource
		e.decode(`return describe_configs({{broker = 1}, {broker = 2}, {broker = 3}}, {keys = {"leader.replication.throttled.rate"}})`, &res)
		var got []string
		for _, r := range res {
			got = append(got, val(r.Configs["leader.replication.throttled.rate"]))
		}
		return slices.Equal(got, []string{"1000", "1000", "1000"}), strings.Join(got, ",")
	})

	e.run(fmt.Sprintf(`alter_partition_reassignments{{topic = %q, partition = 0, replicas = {3, 2}}}`, topic))
	var moving []reassignRow
	e.decode(fmt.Sprintf(`return list_partition_reassignments{%q}`, topic), &moving)
	require.Len(t, moving, 1, "the throttled move is still in progress")
	assert.Equal(t, []int32{3}, moving[0].AddingReplicas)
	assert.Equal(t, []int32{1}, moving[0].RemovingReplicas)
	assert.ElementsMatch(t, []int32{1, 2, 3}, moving[0].Replicas, "replicas is the union while data moves")
	// A separate client sees the same reassignment.
	lr, err := admin(t).ListPartitionReassignments(ctxFor(t, time.Minute), kadm.TopicsSet{topic: {0: {}}})
	require.NoError(t, err)
	require.Contains(t, lr, topic)
	assert.Equal(t, []int32{3}, lr[topic][0].AddingReplicas)

	re := e.RunErr(fmt.Sprintf(`wait_reassignments{topics = %q, timeout = 1500, interval_ms = 200}`, topic))
	assert.Equal(t, "TIMEOUT", re.Code, re.Message)
	assert.Contains(t, re.Message, topic)
	// The progress counts bytes: broker 3's copy against the source's
	// size, which a separate client reads from the log dirs.
	cl, err := engine.New(engine.Config{Brokers: cluster.Brokers(), Timeout: 20 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	var copied *engine.ReassignBytes
	_, err = cl.WaitReassignments(ctxFor(t, time.Minute), engine.WaitOptions{Topics: []string{topic}, Timeout: 1500 * time.Millisecond,
		Interval: 200 * time.Millisecond, Progress: func(_ []engine.Reassignment, _ int, _ time.Duration, b *engine.ReassignBytes) {
			if b != nil {
				copied = b
			}
		}})
	require.Error(t, err)
	require.NotNil(t, copied, "the log dirs show the adding replica")
	dirs, err := admin(t).DescribeAllLogDirs(ctxFor(t, time.Minute), nil)
	require.NoError(t, err)
	var source int64
	dirs.Each(func(d kadm.DescribedLogDir) {
		if p, ok := d.Topics[topic][0]; ok && d.Broker != 3 {
			source = max(source, p.Size)
		}
	})
	t.Logf("copied while throttled: %+v of a %d-byte source", *copied, source)
	assert.Equal(t, source, copied.Total)
	assert.Less(t, copied.Copied, copied.Total)
	assert.Less(t, copied.Percent, 100.0)

	var cancelled []struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Error     any    `json:"error"`
	}
	e.decode(fmt.Sprintf(`return cancel_partition_reassignments{{topic = %q, partition = 0}}`, topic), &cancelled)
	require.Len(t, cancelled, 1)
	assert.Nil(t, cancelled[0].Error)
	kafkatest.WaitFor(t, "back to the original replicas", time.Minute, func() (bool, string) {
		m, err := metadata(t, topic)
		if err != nil {
			return false, err.Error()
		}
		return slices.Equal(m[0].Replicas, []int32{1, 2}) && slices.Equal(m[0].ISR, []int32{1, 2}), fmt.Sprint(m[0])
	})
	e.decode(fmt.Sprintf(`return list_partition_reassignments(%q)`, topic), &moving)
	assert.Empty(t, moving)
	re = e.RunErr(fmt.Sprintf(`cancel_partition_reassignments{{topic = %q, partition = 0}}`, topic))
	assert.Equal(t, "NO_REASSIGNMENT_IN_PROGRESS", re.Code, re.Message)
}
