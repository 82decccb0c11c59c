package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestStateTopicRefusesATopicOfOtherRecords: --state kafka:orders (a typo
// for kafka:orders-state) must not write the state's parts into a topic
// consumers read. A topic whose newest records are none of them kadmin-lua
// state is not a state topic: the run's first change is refused and
// nothing is written to it. A topic holding another cluster's state
// (mirrored) or nothing yet is one.
func TestStateTopicRefusesATopicOfOtherRecords(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "orders")
	produceN(t, kc, "orders", 5)

	st, _ := stateTopicNamed(t, cl.Config(), "orders", "job")
	err := st.Take()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state kafka:orders/job: topic orders holds records that are not kadmin-lua state")
	assert.Contains(t, err.Error(), "not a state topic")
	ends, err := adm.ListEndOffsets(ctx, "orders")
	require.NoError(t, err)
	end, _ := ends.Lookup("orders", 0)
	assert.Equal(t, int64(5), end.Offset, "nothing written to it")

	// A topic mirrored from another cluster's state topic is one.
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": kmsgStr("compact")}, "mirrored")
	require.NoError(t, err)
	require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "mirrored", Key: []byte(StateHeadKey("other-cluster", "job")), Value: []byte("{}")}).FirstErr())
	mirrored, warned := stateTopicNamed(t, cl.Config(), "mirrored", "job")
	require.NoError(t, mirrored.Take())
	require.NoError(t, mirrored.Write([]byte("state")))
	data, err := mirrored.Read(1 << 20)
	require.NoError(t, err)
	assert.Equal(t, "state", string(data))
	assert.Len(t, *warned, 1, "the other cluster's record is said")

	// So is an empty one made beforehand.
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": kmsgStr("compact")}, "made-before")
	require.NoError(t, err)
	empty, _ := stateTopicNamed(t, cl.Config(), "made-before", "job")
	require.NoError(t, empty.Take())
}

// stateTopicNamed is stateTopicOn in another topic.
func stateTopicNamed(t *testing.T, cfg Config, topic, key string) (*StateTopic, *[]string) {
	t.Helper()
	var warned []string
	st, err := NewStateTopic(cfg, topic, key, func(m string) { warned = append(warned, m) })
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st, &warned
}
