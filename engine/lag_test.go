package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
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
	lags, err := cl.Lag(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, int32(3), lists.Load(), "one ListGroups per broker: the describe reuses the listing")
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
