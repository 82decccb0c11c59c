package scripts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/testtiered"
)

// check-lag --fail-on-remote fails a group reading from remote storage
// (tiered storage): its first unread record is below the earliest local
// offset. Without the flag the group passes, and the count is a metric.
func TestCheckLagFailsAGroupReadingFromRemoteStorage(t *testing.T) {
	e := archiverBehindOnCold(t)
	testtiered.Model{Tiered: map[string]bool{"cold": true}, Cfg: map[string]string{"retention.ms": "-1"}, Local: map[int32]int64{0: 5}}.Install(e.c.Fake())

	r := e.run(false, "check-lag.lua", "archiver", "--fail-on-remote")
	require.Len(t, r.checks, 1, r.stderr)
	assert.Equal(t, "archiver: reads from remote storage on 1 partition: 3 unread records are no longer on the brokers' disks", r.checks[0])
	require.Len(t, r.rows, 1)
	assert.Equal(t, 1.0, r.rows[0]["reading_remote"])
	assert.Equal(t, 1.0, r.metrics["kafka_consumergroup_reading_remote_partitions{group=archiver}"])

	r = e.ok(false, "check-lag.lua", "archiver", "--max", "100")
	assert.Empty(t, r.checks, "without --fail-on-remote, reading from remote storage fails nothing")
	assert.Nil(t, r.rows[0]["reading_remote"], "not read without the lag in time")
}

// When the earliest local offset cannot be listed, reading from remote
// storage is unknown: --fail-on-remote fails the group saying so, and the
// metric is left out rather than written as 0.
func TestCheckLagFailsAGroupWhoseRemoteReadingIsUnknown(t *testing.T) {
	e := archiverBehindOnCold(t)
	testtiered.Model{Tiered: map[string]bool{"cold": true}, Cfg: map[string]string{"retention.ms": "-1"},
		ErrCode: kerr.UnknownServerError.Code}.Install(e.c.Fake())
	r := e.run(false, "check-lag.lua", "archiver", "--fail-on-remote")
	require.Len(t, r.checks, 1, r.stderr)
	assert.Equal(t, `archiver: whether it reads from remote storage is not known on 1 partition (lag("archiver", {time = true}) says why in remote_unknown)`, r.checks[0])
	_, written := r.metrics["kafka_consumergroup_reading_remote_partitions{group=archiver}"]
	assert.False(t, written, "not 0 when it is not known")
}

// archiverBehindOnCold is the demo cluster with topic cold (10 records in
// one partition) and group archiver committed at offset 2.
func archiverBehindOnCold(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "cold")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	for range 10 {
		require.NoError(t, kc.ProduceSync(e.ctx(), &kgo.Record{Topic: "cold", Value: []byte("x")}).FirstErr())
	}
	_, err = e.adm.CommitOffsets(e.ctx(), "archiver", kadm.Offsets{"cold": {0: {Topic: "cold", Partition: 0, At: 2, LeaderEpoch: -1}}})
	require.NoError(t, err)
	return e
}

// When a lagging topic's configs cannot be read (not authorized), whether
// its partitions are at risk is not known: the at-risk count is left out
// rather than written as 0, as the remote-reading one is.
func TestCheckLagWritesNoAtRiskCountWhenConfigsCannotBeRead(t *testing.T) {
	e := archiverBehindOnCold(t)
	r := e.ok(false, "check-lag.lua", "archiver", "--max-seconds", "100000")
	assert.Equal(t, 0.0, r.metrics["kafka_consumergroup_at_risk_partitions{group=archiver}"], "read: none at risk")

	fake := e.c.Fake()
	fake.ControlKey(int16(kmsg.DescribeConfigs), func(req kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		dc := req.(*kmsg.DescribeConfigsRequest)
		resp := dc.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, rr := range dc.Resources {
			if rr.ResourceType != kmsg.ConfigResourceTypeTopic {
				return nil, nil, false
			}
			res := kmsg.NewDescribeConfigsResponseResource()
			res.ResourceType, res.ResourceName, res.ErrorCode = rr.ResourceType, rr.ResourceName, kerr.TopicAuthorizationFailed.Code
			resp.Resources = append(resp.Resources, res)
		}
		return resp, nil, true
	})
	r = e.ok(false, "check-lag.lua", "archiver", "--max-seconds", "100000")
	_, written := r.metrics["kafka_consumergroup_at_risk_partitions{group=archiver}"]
	assert.False(t, written, "not 0 when it is not known")
	assert.Contains(t, r.metrics, "kafka_consumergroup_max_lag_seconds{group=archiver}", "the lag in time is still known")
}
