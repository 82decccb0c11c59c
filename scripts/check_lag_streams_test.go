package scripts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// check-lag judges a Kafka Streams application's group (KIP-1071) as a
// consumer group: by name, and among every group without names, with its
// figures in the metrics file. kfake has no streams groups:
// kafkatest.FakeStreams answers for orders-enricher, a running
// application whose one subtopology reads the demo's orders topic.
func TestCheckLagCoversStreamsGroups(t *testing.T) {
	e := newEnv(t)
	offs := kadm.Offsets{}
	for p := range int32(6) {
		offs.AddOffset("orders", p, 0, -1)
	}
	resp, err := e.adm.CommitOffsets(e.ctx(), "orders-enricher", offs)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	g := kafkatest.RecordedStreamsGroup(t, "stable", "orders-enricher")
	g.Topology.Subtopologies = g.Topology.Subtopologies[:1]
	g.Topology.Subtopologies[0].SourceTopics = []string{"orders"}
	g.Topology.Subtopologies[0].RepartitionSinkTopics = nil
	g.Members[0].Assignment.ActiveTasks = []kmsg.TaskIDs{{SubtopologyID: "0", Partitions: []int32{0, 1, 2, 3, 4, 5}}}
	g.Members[0].TargetAssignment = g.Members[0].Assignment
	kafkatest.NewFakeStreams(t, e.c.Fake(), nil, g)

	r := e.ok(false, "check-lag.lua", "--max", "100")
	require.Len(t, r.rows, 3, r.json)
	assert.Equal(t, "orders-enricher", r.rows[1]["group"])
	assert.Equal(t, "Stable", r.rows[1]["state"])
	assert.Equal(t, 300.0, r.rows[1]["total_lag"], "every orders record is unread")
	assert.Equal(t, []string{"orders-enricher: lags 300 records (max 100)"}, r.checks)
	assert.Equal(t, 300.0, r.metrics["kafka_consumergroup_lag{group=orders-enricher,topic=orders}"])
	assert.Equal(t, 0.0, r.metrics["kafka_consumergroup_lag_ok{group=orders-enricher}"])

	r = e.ok(false, "check-lag.lua", "orders-enricher", "--max", "1000")
	require.Len(t, r.rows, 1)
	assert.Equal(t, true, r.rows[0]["ok"])
	assert.Empty(t, r.checks)
}
