package three

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// topicDesc is describe_topics' row.
type topicDesc struct {
	Name       string `json:"name"`
	ID         string `json:"id"`
	Partitions []struct {
		Partition int32   `json:"partition"`
		Leader    int32   `json:"leader"`
		Replicas  []int32 `json:"replicas"`
		ISR       []int32 `json:"isr"`
	} `json:"partitions"`
}

// A replicated topic created from Lua: 3 replicas, all in sync, and
// min.insync.replicas=2 as a topic config, seen by a separate client.
func TestReplicatedTopic(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-replicated"
	var created []struct {
		Name              string `json:"name"`
		ID                string `json:"id"`
		Partitions        int    `json:"partitions"`
		ReplicationFactor int    `json:"replication_factor"`
	}
	e.decode(fmt.Sprintf(`return create_topics{{name = %q, partitions = 3, replication_factor = 3,
		configs = {["min.insync.replicas"] = 2}}}`, topic), &created)
	require.Len(t, created, 1)
	assert.Equal(t, 3, created[0].Partitions)
	assert.Equal(t, 3, created[0].ReplicationFactor)
	assert.NotEmpty(t, created[0].ID)

	// describe_topics right after the create: a broker that has not yet
	// applied the new topic answers UNKNOWN_TOPIC_OR_PARTITION, which the
	// tool must ride out. A fresh topic's ISR is its replica set.
	var desc []topicDesc
	e.decode(fmt.Sprintf(`return describe_topics(%q)`, topic), &desc)
	require.Len(t, desc, 1)
	assert.Equal(t, created[0].ID, desc[0].ID)
	require.Len(t, desc[0].Partitions, 3)
	leaders := map[int32]bool{}
	for _, p := range desc[0].Partitions {
		assert.ElementsMatch(t, []int32{1, 2, 3}, p.Replicas, "partition %d", p.Partition)
		assert.ElementsMatch(t, []int32{1, 2, 3}, p.ISR, "partition %d", p.Partition)
		assert.Contains(t, []int32{1, 2, 3}, p.Leader)
		assert.Equal(t, p.Replicas[0], p.Leader, "a new partition is led by its preferred replica")
		leaders[p.Leader] = true
	}
	assert.Len(t, leaders, 3, "Kafka spreads the 3 leaders over the 3 brokers")

	// A separate client sees the same, once the broker it asks has applied
	// the topic from the metadata log (each broker does so on its own
	// time): poll.
	adm := admin(t)
	kafkatest.WaitFor(t, topic+" listed with 3 partitions of 3 replicas", time.Minute, func() (bool, string) {
		td, err := adm.ListTopics(ctxFor(t, time.Minute), topic)
		if err != nil {
			return false, err.Error()
		}
		if err := td[topic].Err; err != nil {
			return false, err.Error()
		}
		ok := len(td[topic].Partitions) == 3
		for _, p := range td[topic].Partitions {
			ok = ok && len(p.Replicas) == 3
		}
		return ok, fmt.Sprint(td[topic].Partitions)
	})
	m := waitISR(t, topic, time.Minute)
	for p, st := range m {
		assert.Equal(t, []int32{1, 2, 3}, st.ISR, "partition %d", p)
	}
	kafkatest.WaitFor(t, topic+" min.insync.replicas=2 seen", time.Minute, func() (bool, string) {
		rc, err := adm.DescribeTopicConfigs(ctxFor(t, time.Minute), topic)
		if err != nil {
			return false, err.Error()
		}
		cfg, err := rc.On(topic, nil)
		if err != nil {
			return false, err.Error()
		}
		if cfg.Err != nil {
			return false, cfg.Err.Error()
		}
		minISR := "absent"
		for _, c := range cfg.Configs {
			if c.Key == "min.insync.replicas" {
				minISR = c.MaybeValue() + " " + c.Source.String()
			}
		}
		return minISR == "2 DYNAMIC_TOPIC_CONFIG", minISR
	})

	// Real Kafka (unlike kfake) checks replication factors against live
	// brokers and topic config names against the ones it knows.
	re := e.RunErr(`return create_topics{{name = "it3-rf4", replication_factor = 4}}`)
	assert.Equal(t, "INVALID_REPLICATION_FACTOR", re.Code, re.Message)
	re = e.RunErr(`return create_topics{{name = "it3-badcfg", configs = {["no.such.config"] = 1}}}`)
	assert.Equal(t, "INVALID_CONFIG", re.Code, re.Message)
	names := topicNames(t)
	assert.NotContains(t, names, "it3-rf4")
	assert.NotContains(t, names, "it3-badcfg")
}
