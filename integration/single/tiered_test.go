package single

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// TestTieredStorageOnARealBroker (issue 33's done-when): a node with remote
// log storage (Kafka's LocalTieredStorage) and a topic whose local segments
// go within a second (local.retention.ms) once copied. A group at offset
// 0 reads from remote storage, the records below the earliest local offset
// only there; a group past it does not. The counts are checked against
// the earliest_local offset Kafka lists, and the lag in time is read from
// the record the broker fetches from remote storage.
func TestTieredStorageOnARealBroker(t *testing.T) {
	need(t)
	t.Parallel() // its own node, mostly waiting for segments to be copied
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := kafkatest.StartSingleWith(ctx, kafkatest.Extra{TieredStorage: true})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	t.Logf("node with tiered storage started in %s", time.Since(start).Round(100*time.Millisecond))
	adm := c.AdminT(t, kgo.RetryTimeout(20*time.Second))

	const topic = "cold"
	configs := map[string]*string{"remote.storage.enable": kadm.StringPtr("true"), "local.retention.ms": kadm.StringPtr("1000"),
		"segment.ms": kadm.StringPtr("300"), "retention.ms": kadm.StringPtr("-1")}
	kafkatest.WaitFor(t, "a tiered topic created", time.Minute, func() (bool, string) {
		r, err := adm.CreateTopic(ctx, 1, 1, configs, topic)
		if err == nil && (r.Err == nil || r.Err.Error() == "TOPIC_ALREADY_EXISTS") {
			return true, "created"
		}
		return false, fmt.Sprint(err, r.Err) // the remote log metadata topic is made first
	})

	// Segments roll by time (segment.ms) when a record comes after it: a
	// few rounds of records make closed segments to copy.
	kc, err := c.Client(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	require.NoError(t, err)
	defer kc.Close()
	base := time.Now().Add(-time.Hour).UnixMilli()
	n := 0
	local := func() int64 {
		req := kmsg.NewPtrListOffsetsRequest()
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Timestamp = -4
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, kc)
		if err != nil || len(resp.Topics) == 0 || len(resp.Topics[0].Partitions) == 0 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
			return -1
		}
		return resp.Topics[0].Partitions[0].Offset
	}
	kafkatest.WaitFor(t, "local segments deleted after their copy to remote storage", 90*time.Second, func() (bool, string) {
		for range 5 {
			require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("r"), Timestamp: time.UnixMilli(base + int64(n)*1000)}).FirstErr())
			n++
		}
		time.Sleep(400 * time.Millisecond) // past segment.ms: the next record rolls a segment
		l := local()
		return l > 0, fmt.Sprintf("earliest local offset %d of %d records", l, n)
	})
	produced := int64(n)

	_, err = adm.CommitOffsets(ctx, "reads-remote", kadm.Offsets{topic: {0: {Topic: topic, Partition: 0, At: 0, LeaderEpoch: -1}}})
	require.NoError(t, err)
	_, err = adm.CommitOffsets(ctx, "reads-local", kadm.Offsets{topic: {0: {Topic: topic, Partition: 0, At: produced - 1, LeaderEpoch: -1}}})
	require.NoError(t, err)

	r := kafkatest.RunBinary(ctx, t, bin, nil, "", "--brokers", c.Bootstrap(), "--timeout", "30s", "-o", "json", "-e", fmt.Sprintf(`
		local offs = list_offsets(%[1]q, "earliest_local")
		return {lag = lag({"reads-local", "reads-remote"}, {time = true}), earliest_local = offs[1].offset,
			view = describe_tiered_storage(), sizes = topic_sizes(%[1]q)}`, topic))
	require.Zero(t, r.Code, r.Stderr)
	var got struct {
		EarliestLocal int64 `json:"earliest_local"`
		View          []struct {
			Topic         string `json:"topic"`
			RemoteStorage bool   `json:"remote_storage"`
			RemoteOnly    int64  `json:"remote_only"`
			LocalBytes    int64  `json:"local_bytes"`
			TotalBytes    *int64 `json:"total_bytes"`
			Partitions    []struct {
				EarliestLocal int64 `json:"earliest_local"`
				LatestTiered  int64 `json:"latest_tiered"`
				LocalRecords  int64 `json:"local_records"`
			} `json:"partitions"`
		} `json:"view"`
		Sizes []struct {
			LeaderBytes int64 `json:"leader_bytes"`
		} `json:"sizes"`
		Lag []struct {
			Group         string `json:"group"`
			ReadingRemote int    `json:"reading_remote"`
			RemoteOnly    int64  `json:"remote_only"`
			Partitions    []struct {
				Lag           int64  `json:"lag"`
				LagMs         *int64 `json:"lag_ms"`
				ReadingRemote *bool  `json:"reading_remote"`
				RemoteOnly    *int64 `json:"remote_only"`
				EarliestLocal *int64 `json:"earliest_local"`
				RemoteUnknown string `json:"remote_unknown"`
			} `json:"partitions"`
		} `json:"lag"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &got), r.Stdout)
	require.Len(t, got.Lag, 2)
	el := got.EarliestLocal
	require.Greater(t, el, int64(0), "the oldest segments are only in remote storage")
	localGroup, remoteGroup := got.Lag[0], got.Lag[1]
	require.Len(t, remoteGroup.Partitions, 1)
	p := remoteGroup.Partitions[0]
	require.NotNil(t, p.ReadingRemote, "%+v", p)
	assert.True(t, *p.ReadingRemote)
	require.NotNil(t, p.EarliestLocal)
	assert.LessOrEqual(t, el, *p.EarliestLocal, "list_offsets earliest_local, read first (local segments only go)")
	assert.Equal(t, *p.EarliestLocal, *p.RemoteOnly, "offsets 0 up to the earliest local one are unread and only in remote storage")
	assert.Equal(t, 1, remoteGroup.ReadingRemote)
	assert.Equal(t, produced, p.Lag)
	require.NotNil(t, p.LagMs, "the first unread record is fetched from remote storage: %+v", p)
	assert.GreaterOrEqual(t, *p.LagMs, time.Now().UnixMilli()-base-5*60_000, "its timestamp is the first record's")

	q := localGroup.Partitions[0]
	require.NotNil(t, q.ReadingRemote, "%+v", q)
	assert.False(t, *q.ReadingRemote)
	assert.Zero(t, *q.RemoteOnly)
	assert.Zero(t, localGroup.ReadingRemote)

	// The topic's view: the records only in remote storage are those below
	// the earliest local offset; latest_tiered is at or past it (a copied
	// segment is deleted locally only after its copy); the local bytes are
	// topic_sizes', and the whole log is estimated larger.
	require.Len(t, got.View, 1, "without names: the tiered topics only (not __remote_log_metadata)")
	v := got.View[0]
	assert.Equal(t, topic, v.Topic)
	assert.True(t, v.RemoteStorage)
	require.Len(t, v.Partitions, 1)
	assert.Equal(t, v.Partitions[0].EarliestLocal, v.RemoteOnly)
	assert.GreaterOrEqual(t, v.Partitions[0].EarliestLocal, el)
	assert.GreaterOrEqual(t, v.Partitions[0].LatestTiered+1, v.Partitions[0].EarliestLocal)
	require.Len(t, got.Sizes, 1)
	assert.Equal(t, got.Sizes[0].LeaderBytes, v.LocalBytes)
	require.NotNil(t, v.TotalBytes)
	assert.Greater(t, *v.TotalBytes, v.LocalBytes)
}
