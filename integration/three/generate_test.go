package three

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 30's done-when for the planner: on the same layout,
// plan_reassignment moves fewer replicas than Kafka's own
// `kafka-reassign-partitions --generate` (which ignores the current
// layout) and balances replicas and leaders at least as evenly. Plans
// only: nothing is moved.
func TestPlanMovesFewerThanKafkaGenerate(t *testing.T) {
	e := newEnv(t)
	const topic = "it3-generate"
	// 12 partitions, RF 2: brokers 1, 2, 3 hold 8, 10 and 6 replicas.
	current := map[int32][]int32{}
	var assign []string
	for p := int32(0); p < 12; p++ {
		switch {
		case p < 6:
			current[p] = []int32{1, 2}
		case p < 10:
			current[p] = []int32{2, 3}
		default:
			current[p] = []int32{3, 1}
		}
		assign = append(assign, fmt.Sprintf("[%d] = {%d, %d}", p, current[p][0], current[p][1]))
	}
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {%s}}}`, topic, strings.Join(assign, ", ")))
	waitISR(t, topic, time.Minute)

	var ours struct {
		Moves      int `json:"moves"`
		Partitions []struct {
			Partition int32   `json:"partition"`
			Target    []int32 `json:"target"`
		} `json:"partitions"`
	}
	e.decode(fmt.Sprintf(`return plan_reassignment{topics = {%q}}`, topic), &ours)
	planned := clonePlan(current)
	for _, p := range ours.Partitions {
		planned[p.Partition] = p.Target
	}

	kafka := kafkaGenerate(t, topic, "1,2,3")
	kafkaMoves := 0
	for p, r := range kafka {
		kafkaMoves += added(current[p], r)
	}
	t.Logf("plan_reassignment: %d moves %v; kafka-reassign-partitions --generate: %d moves %v", ours.Moves, planned, kafkaMoves, kafka)
	assert.Equal(t, ours.Moves, movesBetween(current, planned))
	assert.Less(t, ours.Moves, kafkaMoves)
	oursReplicas, oursLeaders := loads(planned)
	kafkaReplicas, kafkaLeaders := loads(kafka)
	assert.LessOrEqual(t, spreadOf(oursReplicas), spreadOf(kafkaReplicas), "replicas %v against %v", oursReplicas, kafkaReplicas)
	assert.LessOrEqual(t, spreadOf(oursLeaders), spreadOf(kafkaLeaders), "leaders %v against %v", oursLeaders, kafkaLeaders)
}

// kafkaGenerate runs ReassignPartitionsCommand --generate for topic over
// brokers and returns its proposed replicas per partition.
func kafkaGenerate(t *testing.T, topic, brokers string) map[int32][]int32 {
	t.Helper()
	file := filepath.Join(t.TempDir(), "topics.json")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`{"version": 1, "topics": [{"topic": %q}]}`, topic)), 0o600))
	out, err := need(t).RunJava(ctxFor(t, 2*time.Minute), "org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
		"--bootstrap-server", strings.Join(need(t).Brokers(), ","), "--topics-to-move-json-file", file,
		"--broker-list", brokers, "--generate")
	require.NoError(t, err, out)
	_, proposed, ok := strings.Cut(out, "Proposed partition reassignment configuration")
	require.True(t, ok, out)
	var doc struct {
		Partitions []struct {
			Partition int32   `json:"partition"`
			Replicas  []int32 `json:"replicas"`
		} `json:"partitions"`
	}
	// The JSON is the first line after the heading; the tool logs around it.
	line := ""
	for _, l := range strings.Split(proposed, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "{") {
			line = l
			break
		}
	}
	require.NoError(t, json.Unmarshal([]byte(line), &doc), out)
	got := map[int32][]int32{}
	for _, p := range doc.Partitions {
		got[p.Partition] = p.Replicas
	}
	return got
}

func clonePlan(a map[int32][]int32) map[int32][]int32 {
	out := map[int32][]int32{}
	for p, r := range a {
		out[p] = r
	}
	return out
}

// added counts the replicas of after that before did not have.
func added(before, after []int32) int {
	n := 0
	for _, b := range after {
		if !slices.Contains(before, b) {
			n++
		}
	}
	return n
}

func movesBetween(before, after map[int32][]int32) int {
	n := 0
	for p, r := range after {
		n += added(before[p], r)
	}
	return n
}

// loads are replicas and preferred leaders per broker.
func loads(a map[int32][]int32) (replicas, leaders map[int32]int) {
	replicas, leaders = map[int32]int{1: 0, 2: 0, 3: 0}, map[int32]int{1: 0, 2: 0, 3: 0}
	for _, r := range a {
		leaders[r[0]]++
		for _, b := range r {
			replicas[b]++
		}
	}
	return replicas, leaders
}

func spreadOf(m map[int32]int) int {
	lo, hi := 1<<30, -1
	for _, n := range m {
		lo, hi = min(lo, n), max(hi, n)
	}
	return hi - lo
}
