package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceAt writes one record per timestamp to topic's partition p, in
// order, and returns their offsets.
func produceAt(t *testing.T, kc *kgo.Client, topic string, p int32, stamps ...int64) []int64 {
	t.Helper()
	var offs []int64
	for _, ms := range stamps {
		r := &kgo.Record{Topic: topic, Partition: p, Value: []byte("v"), Timestamp: time.UnixMilli(ms)}
		res := kc.ProduceSync(context.Background(), r)
		require.NoError(t, res.FirstErr())
		offs = append(offs, res[0].Record.Offset)
	}
	return offs
}

func commitAt(t *testing.T, adm *kadm.Client, group, topic string, offsets map[int32]int64) {
	t.Helper()
	os := kadm.Offsets{}
	for p, o := range offsets {
		os.Add(kadm.Offset{Topic: topic, Partition: p, At: o, LeaderEpoch: -1})
	}
	_, err := adm.CommitOffsets(context.Background(), group, os)
	require.NoError(t, err)
}

func partitionOf(t *testing.T, g GroupLag, p int32) PartitionLag {
	t.Helper()
	for _, pl := range g.Partitions {
		if pl.Partition == p {
			return pl
		}
	}
	t.Fatalf("partition %d not in %s's lag", p, g.Group)
	return PartitionLag{}
}

// Lag in time is read from the records themselves: the first unread
// record's timestamp, now minus it, and the newest timestamp minus it;
// a caught-up partition has 0; the group's max is the largest. One Fetch
// per leader broker, however many partitions lag.
func TestLagInTimeFromTheRecords(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 3, 1, nil, "events")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	produceAt(t, kc, "events", 0, base, base+1_000, base+5_000)
	produceAt(t, kc, "events", 1, base+10_000, base+20_000)
	produceAt(t, kc, "events", 2, base+30_000)
	commitAt(t, adm, "g", "events", map[int32]int64{0: 1, 1: 0, 2: 1}) // 2 is caught up

	fetches := countKey(c, kmsg.Fetch)
	now := base + 60_000
	res, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true, Now: func() time.Time { return time.UnixMilli(now) }})
	require.NoError(t, err)
	require.Len(t, res, 1)
	g := res[0]
	p0, p1, p2 := partitionOf(t, g, 0), partitionOf(t, g, 1), partitionOf(t, g, 2)
	require.NotNil(t, p0.OldestUnconsumed)
	assert.Equal(t, base+1_000, *p0.OldestUnconsumed, "the record at the committed offset")
	assert.Equal(t, now-(base+1_000), *p0.LagMs)
	assert.Equal(t, int64(4_000), *p0.BehindHeadMs, "newest minus oldest unconsumed")
	assert.Equal(t, TimestampCreateTime, p0.TimestampType)
	assert.Equal(t, base+10_000, *p1.OldestUnconsumed)
	assert.Equal(t, now-(base+10_000), *p1.LagMs)
	assert.Nil(t, p2.OldestUnconsumed, "nothing unread")
	assert.Equal(t, int64(0), *p2.LagMs)
	require.NotNil(t, g.MaxLagMs)
	assert.Equal(t, now-(base+1_000), *g.MaxLagMs)
	brokers := map[int32]bool{c.LeaderFor("events", 0): true, c.LeaderFor("events", 1): true}
	assert.LessOrEqual(t, int(fetches.Load()), len(brokers), "one Fetch per leader of the lagging partitions")

	// Without the option, nothing of it.
	plain, err := cl.Lag(ctx, []string{"g"})
	require.NoError(t, err)
	assert.Nil(t, plain[0].MaxLagMs)
	assert.Nil(t, plain[0].Partitions[0].LagMs)
}

// A commit below the log start points at deleted records: said, and the
// oldest record left gives a floor. A commit on a transaction marker reads
// the next real record.
func TestLagInTimeDeletedRecordsAndMarkers(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 2, 1, nil, "txn")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	produceAt(t, kc, "txn", 0, base, base+1, base+2, base+3)
	_, err = adm.DeleteRecords(ctx, kadm.Offsets{"txn": {0: {Topic: "txn", Partition: 0, At: 3}}})
	require.NoError(t, err)

	tx, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID("tx-1"))
	require.NoError(t, err)
	defer tx.Close()
	require.NoError(t, tx.BeginTransaction())
	require.NoError(t, tx.ProduceSync(ctx, &kgo.Record{Topic: "txn", Partition: 1, Value: []byte("a"), Timestamp: time.UnixMilli(base + 100)}).FirstErr())
	require.NoError(t, tx.EndTransaction(ctx, kgo.TryCommit))
	after := produceAt(t, kc, "txn", 1, base+200)                        // after the commit marker
	commitAt(t, adm, "g", "txn", map[int32]int64{0: 1, 1: after[0] - 1}) // 1: on the marker

	res, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	p0, p1 := partitionOf(t, res[0], 0), partitionOf(t, res[0], 1)
	require.NotNil(t, p0.OldestUnconsumed, "the oldest record left: a floor")
	assert.Equal(t, base+3, *p0.OldestUnconsumed)
	assert.Equal(t, TimeUnknownLost, p0.TimeUnknown)
	assert.EqualValues(t, 2, p0.RecordsLost, "offsets 1 and 2 were deleted unread")
	assert.EqualValues(t, 2, res[0].RecordsLost)
	plain, err := cl.Lag(ctx, []string{"g"})
	require.NoError(t, err)
	assert.EqualValues(t, 2, plain[0].RecordsLost, "records lost are counted without the time option too")
	require.NotNil(t, p1.OldestUnconsumed, "%+v", p1)
	assert.Equal(t, base+200, *p1.OldestUnconsumed, "the marker is skipped")
	assert.Nil(t, res[0].Err)
}

// A lag in time at 80% of the topic's retention.ms (or the fraction asked)
// marks the partition at risk: its unread records will soon be deleted.
func TestLagInTimeAtRisk(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 2, 1, map[string]*string{"retention.ms": kadm.StringPtr("100000")}, "short")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	now := int64(1_780_000_100_000)
	produceAt(t, kc, "short", 0, now-90_000, now-1_000) // 90 s behind: 90% of retention
	produceAt(t, kc, "short", 1, now-50_000, now-1_000) // 50 s: 50%
	commitAt(t, adm, "g", "short", map[int32]int64{0: 0, 1: 0})
	clock := func() time.Time { return time.UnixMilli(now) }

	res, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true, Now: clock})
	require.NoError(t, err)
	assert.True(t, partitionOf(t, res[0], 0).AtRisk)
	assert.False(t, partitionOf(t, res[0], 1).AtRisk)
	assert.Equal(t, 1, res[0].AtRisk)

	res, err = cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true, Now: clock, AtRisk: 0.5})
	require.NoError(t, err)
	assert.Equal(t, 2, res[0].AtRisk, "at half the retention both are")
}

// One timestamp per partition, in one ListOffsets request per leader.
func TestListOffsetsAtOneTimePerPartition(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 2, 1, nil, "ts")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	produceAt(t, kc, "ts", 0, base, base+10, base+20)
	produceAt(t, kc, "ts", 1, base+100, base+200)

	lists := countKey(c, kmsg.ListOffsets)
	got, err := cl.ListOffsetsAt(ctx, map[TopicPartition]int64{{Topic: "ts", Partition: 0}: base + 15, {Topic: "ts", Partition: 1}: base + 150, {Topic: "ts", Partition: 9}: base})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, int64(2), got[0].Offset, "p0: the first record at or after base+15")
	assert.Equal(t, base+20, got[0].Timestamp)
	assert.Equal(t, int64(1), got[1].Offset, "p1 at its own time")
	assert.Equal(t, int32(9), got[2].Partition)
	require.NotNil(t, got[2].Err)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", got[2].Err.Code)
	assert.LessOrEqual(t, lists.Load(), int32(4), "one request for both times (and the unknown partition's retries), not one per partition")

	_, err = cl.ListOffsetsAt(ctx, map[TopicPartition]int64{{Topic: "ts", Partition: 0}: -5})
	assert.Equal(t, CodeInvalidArgument, AsError(err, "").Code)
}

// no_commit=skip: a partition without a commit is "-" (lag -1) and out of
// the total, as kafka-consumer-groups shows it; the default counts it from
// the log start.
func TestLagNoCommitSkip(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 2, 1, nil, "nc")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	produceAt(t, kc, "nc", 0, 1, 2, 3)
	produceAt(t, kc, "nc", 1, 1, 2)
	commitAt(t, adm, "g", "nc", map[int32]int64{0: 1})

	def, err := cl.LagWith(ctx, []string{"g"}, LagOptions{})
	require.NoError(t, err)
	assert.EqualValues(t, 4, def[0].TotalLag, "2 behind on 0, 2 from the start on 1")
	skip, err := cl.LagWith(ctx, []string{"g"}, LagOptions{NoCommit: NoCommitSkip, Time: true})
	require.NoError(t, err)
	assert.EqualValues(t, 2, skip[0].TotalLag)
	p1 := partitionOf(t, skip[0], 1)
	assert.EqualValues(t, -1, p1.Lag)
	assert.Nil(t, p1.Err)
	assert.Nil(t, p1.LagMs)
	assert.Empty(t, p1.TimeUnknown)
}

// A leader that moves mid-call: the Fetch answered NOT_LEADER_OR_FOLLOWER
// is sent again to the new leader, and the time is still exact.
func TestLagInTimeSurvivesALeaderMove(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "mv")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	produceAt(t, kc, "mv", 0, base, base+1)
	commitAt(t, adm, "g", "mv", map[int32]int64{0: 0})
	var refused atomic.Int32
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if refused.Add(1) > 1 {
			return nil, nil, false // the second one goes through
		}
		c.KeepControl()
		return notLeaderFetch(req), nil, true
	})
	res, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	p := partitionOf(t, res[0], 0)
	require.NotNil(t, p.OldestUnconsumed, "%+v", p)
	assert.Equal(t, base, *p.OldestUnconsumed)
	assert.GreaterOrEqual(t, refused.Load(), int32(2), "the refused Fetch was sent again")
}

// A leader that never answers the Fetch: the call ends by its deadline,
// and the partition names what failed; nothing hangs.
func TestLagInTimeNeverHangs(t *testing.T) {
	_, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "dead")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	produceAt(t, kc, "dead", 0, 1, 2)
	commitAt(t, adm, "g", "dead", map[int32]int64{0: 0})
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 2 * time.Second})
	require.NoError(t, err)
	defer cl.Close()
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, errors.New("the broker drops the connection"), true
	})
	began := time.Now()
	res, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	took := time.Since(began)
	assert.Less(t, took, 6*time.Second, "bounded by the call's timeout")
	require.NoError(t, err)
	p := partitionOf(t, res[0], 0)
	require.NotNil(t, p.Err, "the partition says what failed")
	t.Logf("after %s: %v", took, p.Err)
	assert.Contains(t, p.Err.Resource, "dead[0]")
	assert.Nil(t, p.LagMs)
	assert.NotNil(t, res[0].Err, "and fails its group")
}

// Groups at different commits on one partition each get their own first
// unread record, from one Fetch of that partition.
func TestLagInTimeManyGroupsOnePartition(t *testing.T) {
	cl, c, adm := newTestClient(t, kfake.NumBrokers(1))
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "shared")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	produceAt(t, kc, "shared", 0, base, base+1_000, base+2_000, base+3_000)
	for g, at := range map[string]int64{"a": 0, "b": 1, "c": 3} {
		commitAt(t, adm, g, "shared", map[int32]int64{0: at})
	}
	fetches := countKey(c, kmsg.Fetch)
	// (At a time when nothing is at risk of retention.ms: an estimate of
	// the next deletion reads more records.)
	soon := func() time.Time { return time.UnixMilli(base + 10_000) }
	res, err := cl.LagWith(ctx, []string{"a", "b", "c"}, LagOptions{Time: true, Now: soon})
	require.NoError(t, err)
	require.Len(t, res, 3)
	for i, want := range []int64{base, base + 1_000, base + 3_000} {
		p := res[i].Partitions[0]
		require.NotNil(t, p.OldestUnconsumed, "%s: %+v", res[i].Group, p)
		assert.Equal(t, want, *p.OldestUnconsumed, res[i].Group)
	}
	assert.EqualValues(t, 1, fetches.Load(), "one Fetch served the three groups")
}

// notLeaderFetch answers a Fetch with NOT_LEADER_OR_FOLLOWER for every
// partition it asks for: a leader that moved.
func notLeaderFetch(req kmsg.Request) kmsg.Response {
	r := req.(*kmsg.FetchRequest)
	resp := r.ResponseKind().(*kmsg.FetchResponse)
	for _, rt := range r.Topics {
		st := kmsg.NewFetchResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewFetchResponseTopicPartition()
			sp.Partition, sp.ErrorCode = rp.Partition, kerr.NotLeaderForPartition.Code
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// A topic with retention.bytes: a partition that has reached 80% of it,
// with the committed offset in its oldest segment, is at risk by
// retention.bytes; one read past the oldest segment is not.
func TestLagAtRiskByRetentionBytes(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	cfg := map[string]*string{"retention.bytes": kadm.StringPtr("4000"), "segment.bytes": kadm.StringPtr("1024")}
	_, err := adm.CreateTopic(ctx, 1, 3, cfg, "sized")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	require.NoError(t, err)
	defer kc.Close()
	for range 50 {
		require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "sized", Value: make([]byte, 100)}).FirstErr())
	}
	commitAt(t, adm, "early", "sized", map[int32]int64{0: 2})
	commitAt(t, adm, "late", "sized", map[int32]int64{0: 45})
	lags, err := cl.LagWith(ctx, []string{"early", "late"}, LagOptions{Time: true})
	require.NoError(t, err)
	early, late := partitionOf(t, lags[0], 0), partitionOf(t, lags[1], 0)
	assert.True(t, early.AtRisk, "%+v", early)
	assert.Equal(t, "retention.bytes", early.AtRiskBy)
	assert.Equal(t, 1, lags[0].AtRisk)
	assert.False(t, late.AtRisk, "%+v", late)
	assert.Empty(t, late.AtRiskBy)
}

// With time, a partition whose committed offset has not moved since the
// state store's earlier sample says for how long.
func TestLagStuckFromTheStateStore(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	kc := oneTopic(t, c, adm, "t")
	produceN(t, kc, "t", 10)
	commitAt(t, adm, "g", "t", map[int32]int64{0: 3})

	lags, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	assert.Nil(t, partitionOf(t, lags[0], 0).StuckMs, "no earlier sample")

	then := time.Now().Add(-time.Minute)
	_, err = cl.LagStatus(ctx, []string{"g"}, LagStatusOptions{Lag: LagOptions{Now: func() time.Time { return then }}})
	require.NoError(t, err)
	lags, err = cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	stuck := partitionOf(t, lags[0], 0).StuckMs
	require.NotNil(t, stuck)
	assert.InDelta(t, time.Minute.Milliseconds(), *stuck, 5000)

	commitAt(t, adm, "g", "t", map[int32]int64{0: 4})
	lags, err = cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	assert.Nil(t, partitionOf(t, lags[0], 0).StuckMs, "it moved since")
}

// The Fetches to different leaders are in flight together, not one after
// another: a Fetch held at its broker (SleepControl lets the others' run)
// still sees the other leaders' Fetches arrive.
func TestLagInTimeFetchesLeadersAtOnce(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 8, 1, nil, "spread")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer kc.Close()
	base := int64(1_780_000_000_000)
	leaders := map[int32]bool{}
	commits := map[int32]int64{}
	for p := range int32(8) {
		produceAt(t, kc, "spread", p, base, base+1)
		leaders[c.LeaderFor("spread", p)] = true
		commits[p] = 0
	}
	require.GreaterOrEqual(t, len(leaders), 2, "partitions on more than one broker")
	commitAt(t, adm, "g", "spread", commits)
	var inFlight, most atomic.Int32
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		c.SleepControl(func() { time.Sleep(300 * time.Millisecond) })
		inFlight.Add(-1)
		return nil, nil, false
	})
	res, err := cl.LagWith(ctx, []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	for p := range int32(8) {
		got := partitionOf(t, res[0], p)
		require.NotNil(t, got.OldestUnconsumed, "%+v", got)
		assert.Equal(t, base, *got.OldestUnconsumed)
	}
	assert.GreaterOrEqual(t, most.Load(), int32(2), "the leaders' Fetches overlapped")
}
