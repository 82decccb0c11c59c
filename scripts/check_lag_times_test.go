package scripts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/testbomb"
)

// A group whose first unread record has no timestamp (-1) read as 56
// years behind: check-lag --max-seconds paged. It is now unknown, counted
// in odd_timestamps and said in a WARN line; a record an hour ahead is
// unknown too, not "0 seconds behind".
func TestCheckLagOddTimestamps(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 2, 1, nil, "stamps")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	_, err = testbomb.Produce(e.ctx(), kc, "stamps", 0, 1, -1)
	require.NoError(t, err)
	require.NoError(t, kc.ProduceSync(e.ctx(), &kgo.Record{Topic: "stamps", Partition: 1, Value: []byte("x"), Timestamp: time.Now().Add(time.Hour)}).FirstErr())
	_, err = e.adm.CommitOffsets(e.ctx(), "odd", kadm.Offsets{"stamps": {
		0: {Topic: "stamps", Partition: 0, At: 0, LeaderEpoch: -1},
		1: {Topic: "stamps", Partition: 1, At: 0, LeaderEpoch: -1}}})
	require.NoError(t, err)

	r := e.ok(false, "check-lag.lua", "odd", "--max-seconds", "60")
	assert.Empty(t, r.checks, "no false page")
	require.Len(t, r.rows, 1)
	assert.Equal(t, 2.0, r.rows[0]["odd_timestamps"])
	assert.Nil(t, r.rows[0]["max_lag_seconds"], "unknown, not 0 and not 56 years")
	assert.Contains(t, r.stderr, `odd: lag in time unknown on 2 partitions: the first unread record's timestamp is negative or in the future (lag("odd", {time = true}) says which); --max-seconds judges the others`)
	assert.NotContains(t, r.metrics, "kafka_consumergroup_max_lag_seconds{group=odd}")
}
