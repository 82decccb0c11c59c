package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// countKey counts the requests of one API key the cluster receives.
func countKey(c *kfake.Cluster, key kmsg.Key) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
		n.Add(1)
		c.KeepControl()
		return nil, nil, false
	})
	return &n
}

// seedLag makes topic t with 4 partitions holding 3 records each, and
// groups committed on every partition at offset i (group i).
func seedLag(t *testing.T, c *kfake.Cluster, adm *kadm.Client, groups int) {
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 4, 1, nil, "t")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	for p := range int32(4) {
		for range 3 {
			require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: p, Value: []byte("x")}).FirstErr())
		}
	}
	for g := range groups {
		os := kadm.Offsets{}
		for p := range int32(4) {
			os.Add(kadm.Offset{Topic: "t", Partition: p, At: int64(g), LeaderEpoch: -1})
		}
		_, err := adm.CommitOffsets(ctx, fmt.Sprintf("g%d", g), os)
		require.NoError(t, err)
	}
}

func TestLagListsGroupsOnce(t *testing.T) {
	cl, c, adm := newTestClient(t)
	seedLag(t, c, adm, 3)
	lists := countKey(c, kmsg.ListGroups)
	metas, offsets := countKey(c, kmsg.Metadata), countKey(c, kmsg.ListOffsets)
	lags, err := cl.Lag(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, int32(3), lists.Load(), "one ListGroups per broker: the describe reuses the listing")
	assert.LessOrEqual(t, offsets.Load(), int32(6), "per leader, one ListOffsets for the starts and one for the ends")
	t.Logf("Metadata requests: %d (the client's first ones included)", metas.Load())
	require.Len(t, lags, 3)
	for g, gl := range lags {
		assert.Equal(t, fmt.Sprintf("g%d", g), gl.Group)
		assert.Nil(t, gl.Err)
		assert.Equal(t, int64(4*(3-g)), gl.TotalLag)
		require.Len(t, gl.Partitions, 4)
		for p, pl := range gl.Partitions {
			assert.Equal(t, PartitionLag{Topic: "t", Partition: int32(p), Committed: int64(g), EndOffset: 3, Lag: int64(3 - g)}, pl)
		}
	}
}

// A cluster whose ApiVersions has no ConsumerGroupDescribe or
// ShareGroupDescribe has classic groups only: once that is known, a
// describe does not list groups to learn their types.
func TestDescribeGroupsSkipsListingOnClassicOnlyCluster(t *testing.T) {
	for _, tc := range []struct {
		name      string
		versions  *kversion.Versions
		secondRun int32
	}{
		{"Kafka 3.7 (no KIP-848 describe)", kversion.V3_7_0(), 0},
		{"Kafka 4.0", kversion.V4_0_0(), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, c, adm := newTestClient(t, kfake.MaxVersions(tc.versions))
			seedLag(t, c, adm, 2)
			ctx := context.Background()
			ds, err := cl.DescribeGroups(ctx, []string{"g1", "g0", "missing"})
			require.NoError(t, err)
			require.Len(t, ds, 3)
			assert.Equal(t, "Empty", ds[0].State)
			assert.Nil(t, ds[0].Err)
			require.NotNil(t, ds[2].Err)
			assert.Equal(t, "GROUP_ID_NOT_FOUND", ds[2].Err.Code)

			lists := countKey(c, kmsg.ListGroups)
			lags, err := cl.Lag(ctx, []string{"g1"})
			require.NoError(t, err)
			require.Len(t, lags, 1)
			assert.Equal(t, int64(8), lags[0].TotalLag)
			assert.Equal(t, tc.secondRun, lists.Load())
		})
	}
}

// groupLag's rows: every partition assigned, committed or of a consumed
// topic, in topic then partition order, including numbers past the dense
// range and topics that are gone.
func TestGroupLagRows(t *testing.T) {
	d := GroupDescription{Group: "g", Members: []GroupMember{{MemberID: "m1", ClientID: "c1",
		Assignment: []TopicPartition{{Topic: "a", Partition: 1}}}}}
	commits := kadm.OffsetResponses{}
	for _, o := range []kadm.OffsetResponse{
		{Offset: kadm.Offset{Topic: "a", Partition: 2, At: 5}},
		{Offset: kadm.Offset{Topic: "a", Partition: 0, At: 1}},
		{Offset: kadm.Offset{Topic: "a", Partition: denseLimit + 7, At: 1}},
		{Offset: kadm.Offset{Topic: "gone", Partition: 3, At: 1}},
	} {
		commits.Add(o)
	}
	end := kadm.ListedOffsets{
		"a":    {0: {Topic: "a", Partition: 0, Offset: 4}, 1: {Topic: "a", Partition: 1, Offset: 6}, 2: {Topic: "a", Partition: 2, Offset: 9}},
		"gone": {-1: {Topic: "gone", Partition: -1, Err: kerr.UnknownTopicOrPartition}},
	}
	start := kadm.ListedOffsets{"a": {1: {Topic: "a", Partition: 1, Offset: 2}}}
	rows := groupLag(d, commits, start, end)
	var got []string
	for _, r := range rows {
		s := fmt.Sprintf("%s[%d] c=%d e=%d lag=%d %s", r.Topic, r.Partition, r.Committed, r.EndOffset, r.Lag, r.MemberID)
		if r.Err != nil {
			s += " " + r.Err.Code
		}
		got = append(got, s)
	}
	assert.Equal(t, []string{
		"a[0] c=1 e=4 lag=3 ",
		"a[1] c=-1 e=6 lag=4 m1", // no commit: counted from the start offset
		"a[2] c=5 e=9 lag=4 ",
		fmt.Sprintf("a[%d] c=1 e=-1 lag=-1  LEADER_NOT_AVAILABLE", denseLimit+7),
		"gone[3] c=1 e=-1 lag=-1  UNKNOWN_TOPIC_OR_PARTITION",
	}, got)
}
