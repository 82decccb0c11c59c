package engine

import (
	"fmt"
	"strings"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

func (tp TopicPartition) String() string { return partitionKey(tp.Topic, tp.Partition) }

// partitionKey names a partition in errors and plans: "orders[3]", or just
// the topic for a whole-topic result (partition -1).
func partitionKey(topic string, p int32) string {
	if p < 0 {
		return topic
	}
	return fmt.Sprintf("%s[%d]", topic, p)
}

// compareTP orders by topic, then partition: the order of every result.
func compareTP(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}
