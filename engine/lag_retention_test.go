package engine

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// retentionTopic makes a one-partition topic with cfg and writes one
// 100-byte record per timestamp, each in its own batch; it returns the
// partition's size as DescribeLogDirs says.
func retentionTopic(t *testing.T, c *kfake.Cluster, adm *kadm.Client, topic string, cfg map[string]string, stamps ...int64) int64 {
	t.Helper()
	ctx := context.Background()
	configs := map[string]*string{}
	for k, v := range cfg {
		configs[k] = kadm.StringPtr(v)
	}
	_, err := adm.CreateTopic(ctx, 1, 1, configs, topic)
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	require.NoError(t, err)
	defer kc.Close()
	for _, ts := range stamps {
		require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: make([]byte, 100), Timestamp: time.UnixMilli(ts)}).FirstErr())
	}
	dirs, err := adm.DescribeAllLogDirs(ctx, kadm.TopicsSet{topic: {0: {}}})
	require.NoError(t, err)
	var size int64
	dirs.Each(func(d kadm.DescribedLogDir) {
		d.Topics.Each(func(p kadm.DescribedLogDirPartition) { size = max(size, p.Size) })
	})
	require.Positive(t, size)
	return size
}

func stampsFrom(base int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = base + int64(i)*1000
	}
	return out
}

// At risk by retention.ms: the oldest segment (segment.bytes over the
// mean record size: R records) goes when its newest record (offset R-1)
// is retention.ms old; it takes the unread records below R of a group
// inside it, and none of one past it.
func TestAtRiskSaysWhenAndHowManyByRetentionMs(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	base := int64(1_780_000_000_000)
	size := retentionTopic(t, c, adm, "ret", map[string]string{"retention.ms": "100000", "segment.bytes": "1024"}, stampsFrom(base, 20)...)
	perSegment := int64(1024 * 20 / size)
	require.Greater(t, perSegment, int64(2))
	require.Less(t, perSegment, int64(9))
	commitAt(t, adm, "early", "ret", map[int32]int64{0: 0})
	commitAt(t, adm, "later", "ret", map[int32]int64{0: perSegment + 1})
	now := base + 90_000
	res, err := cl.LagWith(context.Background(), []string{"early", "later"}, LagOptions{Time: true, Now: func() time.Time { return time.UnixMilli(now) }})
	require.NoError(t, err)

	early := partitionOf(t, res[0], 0)
	require.True(t, early.AtRisk)
	require.NotNil(t, early.NextDeletionMs, "%+v", early)
	assert.Equal(t, base+(perSegment-1)*1000+100_000-now, *early.NextDeletionMs, "the oldest segment's newest record, plus retention.ms")
	assert.Equal(t, "retention.ms", early.NextDeletionBy)
	require.NotNil(t, early.NextDeletionRecords)
	assert.Equal(t, perSegment, *early.NextDeletionRecords, "every record of the oldest segment is unread")
	assert.Empty(t, early.NextDeletionUnknown)

	later := partitionOf(t, res[1], 0)
	require.True(t, later.AtRisk, "%+v", later)
	require.NotNil(t, later.NextDeletionRecords)
	assert.Zero(t, *later.NextDeletionRecords, "the next deletion takes none of its unread records")
	assert.Equal(t, *early.NextDeletionMs, *later.NextDeletionMs)

	notAtRisk, err := cl.LagWith(context.Background(), []string{"early"}, LagOptions{Time: true, Now: func() time.Time { return time.UnixMilli(base + 20_000) }})
	require.NoError(t, err)
	assert.Nil(t, partitionOf(t, notAtRisk[0], 0).NextDeletionMs, "estimated for partitions at risk only")
}

// A due deletion (0) is what the broker does at its next retention check:
// here kfake's, whose batches are the segments (segment.bytes below one
// batch); the records it deleted are those predicted.
func TestAtRiskPredictsWhatRetentionDeletes(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	now := time.Now().UnixMilli()
	retentionTopic(t, c, adm, "due", map[string]string{"retention.ms": "100000", "segment.bytes": "100"}, now-200_000, now-60_000, now-10_000)
	commitAt(t, adm, "g", "due", map[int32]int64{0: 0})
	res, err := cl.LagWith(context.Background(), []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	p := partitionOf(t, res[0], 0)
	require.True(t, p.AtRisk)
	require.NotNil(t, p.NextDeletionMs, "%+v", p)
	assert.Zero(t, *p.NextDeletionMs, "due: the oldest record is past retention.ms")
	require.NotNil(t, p.NextDeletionRecords)
	assert.EqualValues(t, 1, *p.NextDeletionRecords)

	c.ApplyRetention()
	after, err := cl.Lag(context.Background(), []string{"g"})
	require.NoError(t, err)
	assert.Equal(t, *p.NextDeletionRecords, partitionOf(t, after[0], 0).RecordsLost, "what retention deleted unread")
}

// By retention.bytes: a partition past the limit loses, at the next
// check, every whole segment over it; one below it loses its oldest
// segment when it has grown by the rest, at the pace its timestamps show;
// with no span of time to measure a pace, the time is unknown, with why,
// and the records are still said.
func TestAtRiskSaysWhenAndHowManyByRetentionBytes(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	base := int64(1_780_000_000_000)
	ctx := context.Background()
	clock := func() time.Time { return time.UnixMilli(base + 50_000) }

	size := retentionTopic(t, c, adm, "over", map[string]string{"retention.bytes": "4000", "segment.bytes": "1024"}, stampsFrom(base, 50)...)
	perSegment := int64(1024 * 50 / size)
	segBytes := int64(float64(size) * float64(perSegment) / 50)
	segments := (size - 4000) / segBytes
	require.Positive(t, segments)
	commitAt(t, adm, "g-over", "over", map[int32]int64{0: 2})
	res, err := cl.LagWith(ctx, []string{"g-over"}, LagOptions{Time: true, Now: clock})
	require.NoError(t, err)
	p := partitionOf(t, res[0], 0)
	require.True(t, p.AtRisk, "%+v", p)
	require.NotNil(t, p.NextDeletionMs)
	assert.Zero(t, *p.NextDeletionMs)
	assert.Equal(t, "retention.bytes", p.NextDeletionBy)
	assert.Equal(t, segments*perSegment-2, *p.NextDeletionRecords, "every whole segment over the limit, less the two read")

	size = retentionTopic(t, c, adm, "growing", map[string]string{"retention.bytes": "10000", "segment.bytes": "1024"}, stampsFrom(base, 50)...)
	require.Greater(t, size, int64(8000), "at risk: past 80%% of retention.bytes")
	require.Less(t, size, int64(10000))
	segBytes = int64(float64(size) * float64(1024*50/size) / 50)
	commitAt(t, adm, "g-growing", "growing", map[int32]int64{0: 1})
	res, err = cl.LagWith(ctx, []string{"g-growing"}, LagOptions{Time: true, Now: clock})
	require.NoError(t, err)
	p = partitionOf(t, res[0], 0)
	require.True(t, p.AtRisk, "%+v", p)
	require.NotNil(t, p.NextDeletionMs, "%+v", p)
	perMs := float64(size) / 49_000 // its size over its records' span
	assert.Equal(t, int64(math.Ceil(float64(10000+segBytes-size)/perMs)), *p.NextDeletionMs)
	assert.Equal(t, "retention.bytes", p.NextDeletionBy)

	retentionTopic(t, c, adm, "still", map[string]string{"retention.bytes": "10000", "segment.bytes": "1024", "retention.ms": "-1"}, make([]int64, 50)...)
	commitAt(t, adm, "g-still", "still", map[int32]int64{0: 1})
	res, err = cl.LagWith(ctx, []string{"g-still"}, LagOptions{Time: true, Now: clock})
	require.NoError(t, err)
	p = partitionOf(t, res[0], 0)
	require.True(t, p.AtRisk, "%+v", p)
	assert.Nil(t, p.NextDeletionMs, "unknown, not 0")
	assert.Equal(t, deletionNoRate, p.NextDeletionUnknown)
	require.NotNil(t, p.NextDeletionRecords)
	assert.Positive(t, *p.NextDeletionRecords)
}
