package demo

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func start(t *testing.T) (*Cluster, *kadm.Client, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	began := time.Now()
	c, err := Start(ctx)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	t.Logf("demo cluster started and seeded in %v", time.Since(began))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return c, kadm.NewClient(cl), ctx
}

func TestStartSeedsTopics(t *testing.T) {
	c, adm, ctx := start(t)
	require.Len(t, c.Addrs, 3)

	md, err := adm.BrokerMetadata(ctx)
	require.NoError(t, err)
	assert.Equal(t, ClusterID, md.Cluster)
	assert.Len(t, md.Brokers, 3)

	td, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	require.NoError(t, td.Error())
	assert.ElementsMatch(t, []string{TopicAudit, TopicOrders, TopicPayments}, td.Names())
	want := map[string]int{TopicOrders: 6, TopicPayments: 3, TopicAudit: 1}
	for name, n := range want {
		require.Len(t, td[name].Partitions, n, name)
		for _, p := range td[name].Partitions {
			assert.Len(t, p.Replicas, 3, "%s[%d] replicas", name, p.Partition)
		}
	}

	rc, err := adm.DescribeTopicConfigs(ctx, TopicOrders, TopicPayments, TopicAudit)
	require.NoError(t, err)
	for _, topic := range Topics {
		r, err := rc.On(topic.Name, nil)
		require.NoError(t, err)
		got := map[string]string{}
		for _, cfg := range r.Configs {
			got[cfg.Key] = cfg.MaybeValue()
		}
		for k, v := range topic.Configs {
			assert.Equal(t, v, got[k], "%s %s", topic.Name, k)
		}
	}
	assert.Equal(t, "compact", Topics[2].Configs["cleanup.policy"]) // the table's order is relied on by docs

	// Every record is there, spread over every orders/payments partition.
	ends, err := adm.ListEndOffsets(ctx, TopicOrders, TopicPayments, TopicAudit)
	require.NoError(t, err)
	require.NoError(t, ends.Error())
	for _, topic := range Topics {
		var total int64
		for p := range topic.Partitions {
			o, ok := ends.Lookup(topic.Name, p)
			require.True(t, ok)
			assert.Positive(t, o.Offset, "%s[%d] holds records", topic.Name, p)
			total += o.Offset
		}
		assert.Equal(t, int64(topic.Records), total, topic.Name)
	}
	// Records go to partitions by key hash: the same counts every run
	// (docs/demo.md quotes them).
	wantEnds := map[string][]int64{TopicOrders: {40, 58, 35, 66, 54, 47}, TopicPayments: {32, 36, 52}, TopicAudit: {60}}
	for topic, want := range wantEnds {
		for p, end := range want {
			o, _ := ends.Lookup(topic, int32(p))
			assert.Equal(t, end, o.Offset, "%s[%d] end offset", topic, p)
		}
	}
}

func TestStartRecordsHaveKeysAndTimestamps(t *testing.T) {
	c, _, ctx := start(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs...), kgo.ConsumeTopics(TopicOrders),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	var got []*kgo.Record
	for len(got) < 300 {
		fs := cl.PollFetches(ctx)
		require.NoError(t, fs.Err0())
		got = append(got, fs.Records()...)
	}
	require.Len(t, got, 300)
	partitions := map[int32]bool{}
	for _, r := range got {
		assert.NotEmpty(t, r.Key)
		assert.Contains(t, string(r.Value), `"order_id"`)
		assert.WithinDuration(t, time.Now(), r.Timestamp, 2*time.Hour)
		partitions[r.Partition] = true
	}
	assert.Len(t, partitions, 6)
}

func TestStartSeedsGroups(t *testing.T) {
	_, adm, ctx := start(t)

	groups, err := adm.DescribeGroups(ctx, GroupOrders, GroupBilling)
	require.NoError(t, err)
	require.NoError(t, groups.Error())

	op := groups[GroupOrders]
	assert.Equal(t, "Stable", op.State)
	assert.Equal(t, "consumer", op.ProtocolType)
	assert.Equal(t, "cooperative-sticky", op.Protocol)
	require.Len(t, op.Members, 1)
	assert.Equal(t, MemberClientID, op.Members[0].ClientID)
	ca, ok := op.Members[0].Assigned.AsConsumer()
	require.True(t, ok)
	require.Len(t, ca.Topics, 1)
	assert.Equal(t, TopicOrders, ca.Topics[0].Topic)
	assert.ElementsMatch(t, []int32{0, 1, 2, 3, 4, 5}, ca.Topics[0].Partitions)

	b := groups[GroupBilling]
	assert.Equal(t, "Empty", b.State)
	assert.Equal(t, "consumer", b.ProtocolType)
	assert.Empty(t, b.Members)

	lags, err := adm.Lag(ctx, GroupOrders, GroupBilling)
	require.NoError(t, err)
	for group, byTopic := range Lag {
		l := lags[group]
		require.NoError(t, l.Error(), group)
		var total int64
		for topic, want := range byTopic {
			for p, lag := range want {
				ml, ok := l.Lag.Lookup(topic, int32(p))
				require.True(t, ok, "%s %s[%d]", group, topic, p)
				assert.Equal(t, lag, ml.Lag, "%s %s[%d]", group, topic, p)
				assert.Equal(t, ml.End.Offset-lag, ml.Commit.At, "%s %s[%d]", group, topic, p)
				total += ml.Lag
			}
		}
		assert.Positive(t, total, group)
	}
	assert.Equal(t, int64(56), lags[GroupOrders].Lag.Total())
	assert.Equal(t, int64(15), lags[GroupBilling].Lag.Total())
	// Only the seeded partitions have committed offsets.

	// The live member makes orders-processor refuse admin commits: examples
	// that commit use billing (docs/demo.md says so).
	o := kadm.Offsets{}
	o.AddOffset(TopicOrders, 0, 1, -1)
	committed, err := adm.CommitOffsets(ctx, GroupOrders, o)
	require.NoError(t, err)
	assert.ErrorIs(t, committed.Error(), kerr.UnknownMemberID)
	deleted, err := adm.DeleteGroups(ctx, GroupOrders)
	require.NoError(t, err)
	assert.ErrorIs(t, deleted.Error(), kerr.NonEmptyGroup)

	fetched, err := adm.FetchOffsets(ctx, GroupBilling)
	require.NoError(t, err)
	assert.Equal(t, []string{TopicPayments}, fetched.Offsets().TopicsSet().Sorted().Topics())
	assert.Len(t, fetched.Offsets()[TopicPayments], 3)
}

func TestCloseLeavesNothingRunning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx)
	require.NoError(t, err)
	addrs := c.Addrs
	c.Close()

	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.RetryTimeout(200*time.Millisecond),
		kgo.RequestRetries(0))
	require.NoError(t, err)
	defer cl.Close()
	sctx, scancel := context.WithTimeout(ctx, 2*time.Second)
	defer scancel()
	_, err = kadm.NewClient(cl).BrokerMetadata(sctx)
	assert.Error(t, err, "the brokers stop listening on Close")
}

func TestSeedRejectsASeededCluster(t *testing.T) {
	c, _, ctx := start(t)
	err := Seed(ctx, c.Addrs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TOPIC_ALREADY_EXISTS")
}
