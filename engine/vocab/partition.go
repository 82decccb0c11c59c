package vocab

import "fmt"

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

func (tp TopicPartition) String() string { return PartitionKey(tp.Topic, tp.Partition) }

// PartitionKey names a partition in errors and plans: "orders[3]", or just
// the topic for a whole-topic result (partition -1).
func PartitionKey(topic string, p int32) string {
	if p < 0 {
		return topic
	}
	return fmt.Sprintf("%s[%d]", topic, p)
}
