package three

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

type electRow struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Leader    int32  `json:"leader"`
	NotNeeded bool   `json:"not_needed"`
	Error     *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// A partition led by a non-preferred replica (its preferred leader was
// stopped and came back) gets its preferred leader back from elect_leaders;
// asking again is ELECTION_NOT_NEEDED, reported as not_needed=true.
func TestPreferredLeaderElection(t *testing.T) {
	c := need(t)
	e := newEnv(t)
	const topic = "it3-elect"
	e.run(fmt.Sprintf(`create_topics{{name = %q, assignment = {[0] = {2, 1, 3}}}}`, topic))
	waitISR(t, topic, time.Minute)

	// Kafka's own auto leader rebalance (every 300 s) could move the
	// leader back between the restart and our election; then do it again.
	for attempt := 1; ; attempt++ {
		require.NoError(t, c.StopNode(ctxFor(t, time.Minute), 2))
		kafkatest.WaitFor(t, "leadership moves off broker 2", time.Minute, func() (bool, string) {
			m, err := metadata(t, topic)
			if err != nil {
				return false, err.Error()
			}
			return m[0].Leader != 2 && m[0].Leader >= 0, fmt.Sprint(m[0])
		})
		require.NoError(t, c.StartNode(ctxFor(t, 2*time.Minute), 2))
		m := waitISR(t, topic, time.Minute)
		if m[0].Leader != 2 {
			break
		}
		require.Less(t, attempt, 3, "the leader keeps going back to broker 2 by itself")
		t.Logf("Kafka moved the leader back to broker 2 by itself; again")
	}

	// Preferred election on an unknown topic: a row with partition -1.
	re := e.RunErr(`elect_leaders{topics = "it3-no-such-topic"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code, re.Message)

	var rows []electRow
	e.decode(fmt.Sprintf(`return elect_leaders{partitions = {{topic = %q, partition = 0}}, type = "preferred"}`, topic), &rows)
	require.Len(t, rows, 1)
	assert.Nil(t, rows[0].Error)
	assert.False(t, rows[0].NotNeeded)
	assert.Equal(t, int32(2), rows[0].Leader)
	kafkatest.WaitFor(t, "broker 2 leads again", time.Minute, func() (bool, string) {
		m, err := metadata(t, topic)
		if err != nil {
			return false, err.Error()
		}
		return m[0].Leader == 2, fmt.Sprint(m[0])
	})

	e.decode(fmt.Sprintf(`return elect_leaders{topics = {%q}}`, topic), &rows)
	require.Len(t, rows, 1)
	assert.Nil(t, rows[0].Error)
	assert.True(t, rows[0].NotNeeded, "ELECTION_NOT_NEEDED is not a failure")
	assert.Equal(t, int32(2), rows[0].Leader)
}
