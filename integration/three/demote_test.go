package three

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// A demote (plan_reassignment{drain=..., leaders_only=true}) carried out by
// reassign reorders the replicas so that broker 2 comes last, and Kafka
// does not move a leader for a new order by itself: reassign elects the
// preferred leaders, so broker 2 leads nothing when it returns, its
// replicas kept.
func TestDemoteMovesLeadershipOffABroker(t *testing.T) {
	need(t)
	e := newEnv(t)
	const topic = "it3-demote"
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {2, 1, 3}, [1] = {2, 3, 1}, [2] = {1, 2, 3}}}}`, topic))
	waitISR(t, topic, time.Minute)

	var rows []struct {
		Partition int32   `json:"partition"`
		State     string  `json:"state"`
		Target    []int32 `json:"target"`
	}
	e.decode(fmt.Sprintf(`return reassign(plan_reassignment{topics = {%q}, drain = {2}, leaders_only = true}, {interval_ms = 200})`, topic), &rows)
	require.Len(t, rows, 2, "the partitions broker 2 leads")
	for _, r := range rows {
		assert.Equal(t, "done", r.State)
		assert.Equal(t, int32(2), r.Target[2], "broker 2 last")
	}
	kafkatest.WaitFor(t, "broker 2 leads nothing", 10*time.Second, func() (bool, string) {
		m, err := metadata(t, topic)
		if err != nil {
			return false, err.Error()
		}
		for _, p := range m {
			if p.Leader == 2 || p.Leader < 0 {
				return false, fmt.Sprint(m)
			}
		}
		return true, ""
	})
	m, err := metadata(t, topic)
	require.NoError(t, err)
	for p, s := range m {
		assert.Len(t, s.Replicas, 3, "partition %d keeps its replicas", p)
	}
	for _, r := range rows {
		assert.Equal(t, r.Target[0], m[r.Partition].Leader, "partition %d: led by its new preferred leader", r.Partition)
	}
}
