package three

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// logDirsCommand runs Apache Kafka's kafka-log-dirs
// (org.apache.kafka.tools.LogDirsCommand) for topic and returns bytes per
// broker and per partition ("topic-0") summed over brokers.
func logDirsCommand(t *testing.T, topic string) (perBroker map[int32]int64, perPartition map[string]int64) {
	t.Helper()
	out, err := need(t).RunJava(ctxFor(t, 2*time.Minute), "org.apache.kafka.tools.LogDirsCommand",
		"--bootstrap-server", cluster.Bootstrap(), "--describe", "--topic-list", topic)
	require.NoError(t, err, out)
	var doc struct {
		Brokers []struct {
			Broker  int32 `json:"broker"`
			LogDirs []struct {
				Partitions []struct {
					Partition string `json:"partition"`
					Size      int64  `json:"size"`
				} `json:"partitions"`
			} `json:"logDirs"`
		} `json:"brokers"`
	}
	// The JSON is the line that starts with '{' (a banner comes first).
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "{") {
			require.NoError(t, json.Unmarshal([]byte(line), &doc), line)
		}
	}
	require.NotEmpty(t, doc.Brokers, out)
	perBroker, perPartition = map[int32]int64{}, map[string]int64{}
	for _, b := range doc.Brokers {
		perBroker[b.Broker] += 0
		for _, d := range b.LogDirs {
			for _, p := range d.Partitions {
				perBroker[b.Broker] += p.Size
				perPartition[p.Partition] += p.Size
			}
		}
	}
	return perBroker, perPartition
}

// TestSizesAndSkewMatchKafkaLogDirs: topic_sizes, broker_sizes and skew on
// a topic laid out unevenly on purpose agree with kafka-log-dirs, and the
// counts with the assignment.
func TestSizesAndSkewMatchKafkaLogDirs(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-sizes"
	// Broker 1 holds three replicas and leads all, 2 holds two, 3 one.
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {1, 2}, [1] = {1, 3}, [2] = {1, 2}}}}`, topic))
	waitISR(t, topic, time.Minute)
	produce(t, topic, 3, 20, 1000)
	produce(t, topic, 1, 30, 1000) // partition 0 is the largest

	type topicRow struct {
		Topic       string `json:"topic"`
		Partition   *int32 `json:"partition"`
		Partitions  int    `json:"partitions"`
		Replicas    int    `json:"replicas"`
		Leaders     int    `json:"leaders"`
		Bytes       int64  `json:"bytes"`
		LeaderBytes int64  `json:"leader_bytes"`
	}
	var perBroker map[int32]int64
	var perPartition map[string]int64
	var sizes []topicRow
	// Followers catch up a moment after the acks: compare once the sizes
	// agree with Kafka's own tool and are stable.
	kafkatest.WaitFor(t, "topic_sizes agrees with kafka-log-dirs", 2*time.Minute, func() (bool, string) {
		perBroker, perPartition = logDirsCommand(t, topic)
		e.decode(fmt.Sprintf(`return topic_sizes(%q, {per = "partition"})`, topic), &sizes)
		if len(sizes) != 3 {
			return false, fmt.Sprint(sizes)
		}
		for _, s := range sizes {
			if s.Bytes != perPartition[fmt.Sprintf("%s-%d", topic, *s.Partition)] {
				return false, fmt.Sprintf("ours %+v, kafka-log-dirs %v", sizes, perPartition)
			}
		}
		return true, ""
	})
	for _, s := range sizes {
		assert.Equal(t, 2, s.Replicas)
		assert.Equal(t, 1, s.Leaders)
		assert.Less(t, s.LeaderBytes, s.Bytes)
		assert.GreaterOrEqual(t, s.LeaderBytes, int64(20*1000))
	}
	var total []topicRow
	e.decode(fmt.Sprintf(`return topic_sizes(%q)`, topic), &total)
	require.Len(t, total, 1)
	var sum int64
	for _, v := range perPartition {
		sum += v
	}
	assert.Equal(t, topicRow{Topic: topic, Partitions: 3, Replicas: 6, Leaders: 3, Bytes: sum, LeaderBytes: total[0].LeaderBytes}, total[0])

	var brokers []struct {
		Broker   int32 `json:"broker"`
		Replicas int   `json:"replicas"`
		Leaders  int   `json:"leaders"`
		Bytes    int64 `json:"bytes"`
		Total    int64 `json:"total_bytes"`
		Usable   int64 `json:"usable_bytes"`
	}
	e.decode(fmt.Sprintf(`return broker_sizes(%q)`, topic), &brokers)
	require.Len(t, brokers, 3)
	for _, b := range brokers {
		assert.Equal(t, perBroker[b.Broker], b.Bytes, "broker %d", b.Broker)
		assert.Positive(t, b.Total)
		assert.Positive(t, b.Usable)
	}
	assert.Equal(t, []int{3, 2, 1}, []int{brokers[0].Replicas, brokers[1].Replicas, brokers[2].Replicas})
	assert.Equal(t, []int{3, 0, 0}, []int{brokers[0].Leaders, brokers[1].Leaders, brokers[2].Leaders})

	var sk struct {
		Brokers []struct {
			Broker     int32 `json:"broker"`
			Partitions int   `json:"partitions"`
			Leaders    int   `json:"leaders"`
			Bytes      int64 `json:"bytes"`
		} `json:"brokers"`
		Racks  []any `json:"racks"`
		Spread struct {
			Partitions float64 `json:"partitions_pct"`
			Leaders    float64 `json:"leaders_pct"`
			Bytes      float64 `json:"bytes_pct"`
		} `json:"spread"`
	}
	e.decode(fmt.Sprintf(`return skew(%q)`, topic), &sk)
	require.Len(t, sk.Brokers, 3)
	assert.Empty(t, sk.Racks, "no broker has a rack")
	assert.Equal(t, 150.0, sk.Spread.Partitions, "3 replicas over a mean of 2")
	assert.Equal(t, 300.0, sk.Spread.Leaders, "3 leaders over a mean of 1")
	var top, all int64
	for _, b := range sk.Brokers {
		assert.Equal(t, perBroker[b.Broker], b.Bytes)
		top, all = max(top, b.Bytes), all+b.Bytes
	}
	assert.InDelta(t, float64(top)/(float64(all)/3)*100, sk.Spread.Bytes, 0.1)
	// The whole cluster: every broker, internal topics included.
	e.run(`local s = skew(); assert(#s.brokers == 3); assert(s.spread.partitions_pct >= 100)`)
}
