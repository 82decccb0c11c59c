package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func peekProducer(t *testing.T, addrs []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	kc, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	return kc
}

func offsetsOf(rows []PeekedRecord) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Offset
	}
	return out
}

// Records come back with their keys, headers, own timestamps and sizes;
// values only when asked; from an offset, the start, the end (the last
// count records), a time or a group's commit; count bounds them; nothing
// is committed.
func TestPeekRecordsFromEachStart(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 2, 1, nil, "events")
	require.NoError(t, err)
	kc := peekProducer(t, c.ListenAddrs())
	base := int64(1_780_000_000_000)
	for i := range 20 {
		r := &kgo.Record{Topic: "events", Partition: 1, Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i)),
			Timestamp: time.UnixMilli(base + int64(i)*1000),
			Headers:   []kgo.RecordHeader{{Key: "trace", Value: []byte(fmt.Sprintf("t%d", i))}, {Key: "empty"}}}
		require.NoError(t, kc.ProduceSync(ctx, r).FirstErr())
	}
	require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "events", Partition: 1, Value: nil, Timestamp: time.UnixMilli(base + 20_000)}).FirstErr())

	listOffsets, fetches := countKey(c, kmsg.ListOffsets), countKey(c, kmsg.Fetch)
	p, err := cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromOffset, Offset: 3}, PeekOptions{Count: 2})
	require.NoError(t, err)
	assert.Zero(t, listOffsets.Load(), "from an offset, the range comes from the Fetch answer")
	assert.EqualValues(t, 1, fetches.Load())
	require.Len(t, p.Records, 2)
	r := p.Records[0]
	assert.Equal(t, int64(3), r.Offset)
	assert.Equal(t, base+3000, r.Timestamp)
	assert.Equal(t, TimestampCreateTime, r.TimestampType)
	assert.Equal(t, "k3", string(r.Key))
	assert.Equal(t, []RecordHeader{{Key: "trace", Value: []byte("t3")}, {Key: "empty"}}, r.Headers)
	assert.Equal(t, 2+len(`{"n":3}`), r.Size, "key and value bytes")
	assert.Nil(t, r.Value, "no values unless asked")
	assert.Equal(t, "count", p.Stopped)
	assert.Equal(t, int64(21), p.HighWatermark)

	p, err = cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{Values: true})
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, offsetsOf(p.Records), "count defaults to 10")
	assert.Equal(t, `{"n":0}`, string(p.Records[0].Value))

	p, err = cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromLatest}, PeekOptions{Count: 3, Values: true})
	require.NoError(t, err)
	assert.Equal(t, []int64{18, 19, 20}, offsetsOf(p.Records), "the last count records before the end")
	assert.Nil(t, p.Records[2].Key, "a null key stays null")
	assert.True(t, p.Records[2].NullValue, "a tombstone")

	p, err = cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromTimestamp, Timestamp: base + 14_500}, PeekOptions{Count: 1})
	require.NoError(t, err)
	assert.Equal(t, []int64{15}, offsetsOf(p.Records), "the first record at or after the time")

	p, err = cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromTimestamp, Timestamp: base + 99_000}, PeekOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.Records, "no record at or after the time: nothing")

	commitAt(t, adm, "g", "events", map[int32]int64{1: 7})
	p, err = cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromGroup, Group: "g"}, PeekOptions{Count: 2})
	require.NoError(t, err)
	assert.Equal(t, []int64{7, 8}, offsetsOf(p.Records))
	committed, err := adm.FetchOffsets(ctx, "g")
	require.NoError(t, err)
	o, _ := committed.Lookup("events", 1)
	assert.Equal(t, int64(7), o.At, "peek commits nothing")
	groups, err := adm.DescribeGroups(ctx, "g")
	require.NoError(t, err)
	assert.Empty(t, groups["g"].Members, "peek joins no group")

	p, err = cl.Peek(ctx, "events", 1, PeekFrom{Kind: PeekFromOffset, Offset: 21}, PeekOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.Records, "at the high watermark: nothing yet")
	p, err = cl.Peek(ctx, "events", 0, PeekFrom{Kind: PeekFromLatest}, PeekOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.Records, "an empty partition")
}

// Bad starts fail at once with an error naming the partition.
func TestPeekBadInput(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "small")
	require.NoError(t, err)
	produceAt(t, peekProducer(t, c.ListenAddrs()), "small", 0, 1, 2, 3, 4)
	_, err = adm.DeleteRecords(ctx, kadm.Offsets{"small": {0: {Topic: "small", Partition: 0, At: 2}}})
	require.NoError(t, err)

	started := time.Now()
	cases := []struct {
		topic     string
		partition int32
		from      PeekFrom
		code, msg string
	}{
		{"nope", 0, PeekFrom{Kind: PeekFromEarliest}, "UNKNOWN_TOPIC_OR_PARTITION", "topic nope does not exist"},
		{"small", 3, PeekFrom{Kind: PeekFromEarliest}, "UNKNOWN_TOPIC_OR_PARTITION", "topic small has 1 partitions (0 to 0), not 3"},
		{"small", 0, PeekFrom{Kind: PeekFromOffset, Offset: 9}, "OFFSET_OUT_OF_RANGE", "offset 9 is outside small[0]'s records: offsets 2 to 4"},
		{"small", 0, PeekFrom{Kind: PeekFromOffset, Offset: 1}, "OFFSET_OUT_OF_RANGE", "offset 1 is outside small[0]'s records: offsets 2 to 4"},
		{"small", 0, PeekFrom{Kind: PeekFromGroup, Group: "nobody"}, CodeNoCommittedOffset, "group nobody has no committed offset on small[0]"},
	}
	for _, tc := range cases {
		_, err := cl.Peek(ctx, tc.topic, tc.partition, tc.from, PeekOptions{})
		var e *Error
		require.ErrorAs(t, err, &e, "%+v", tc)
		assert.Equal(t, tc.code, e.Code, "%+v", tc)
		assert.Contains(t, e.Message, tc.msg)
	}
	assert.Less(t, time.Since(started), 3*time.Second, "no bad start waits for the deadline")

	_, err = cl.Peek(ctx, "small", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{Count: PeekMaxCount + 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "count must be between 1 and 10000")
	p, err := cl.Peek(ctx, "small", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 3}, offsetsOf(p.Records), "earliest is the log start")
}

// Compressed batches are read record by record; a transaction's commit
// marker in the range is skipped, and under read_committed an aborted
// transaction's records too.
func TestPeekCompressedAndTransactions(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "mixed")
	require.NoError(t, err)
	zipped := peekProducer(t, c.ListenAddrs(), kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerLinger(50*time.Millisecond))
	var recs []*kgo.Record
	for i := range 5 {
		recs = append(recs, &kgo.Record{Topic: "mixed", Partition: 0, Key: []byte(fmt.Sprint("z", i)), Value: []byte(strings.Repeat("abc", 100))})
	}
	require.NoError(t, zipped.ProduceSync(ctx, recs...).FirstErr()) // offsets 0-4, one batch

	tx := peekProducer(t, c.ListenAddrs(), kgo.TransactionalID("tx-peek"))
	require.NoError(t, tx.BeginTransaction())
	require.NoError(t, tx.ProduceSync(ctx, &kgo.Record{Topic: "mixed", Partition: 0, Key: []byte("committed")}).FirstErr()) // 5
	require.NoError(t, tx.EndTransaction(ctx, kgo.TryCommit))                                                               // marker 6
	require.NoError(t, tx.BeginTransaction())
	require.NoError(t, tx.ProduceSync(ctx, &kgo.Record{Topic: "mixed", Partition: 0, Key: []byte("aborted")}).FirstErr()) // 7
	require.NoError(t, tx.EndTransaction(ctx, kgo.TryAbort))                                                              // marker 8
	produceAt(t, peekProducer(t, c.ListenAddrs()), "mixed", 0, 5)                                                         // 9

	p, err := cl.Peek(ctx, "mixed", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{Count: 100, Values: true})
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1, 2, 3, 4, 5, 7, 9}, offsetsOf(p.Records), "markers are not records")
	assert.Equal(t, "z2", string(p.Records[2].Key))
	assert.Equal(t, strings.Repeat("abc", 100), string(p.Records[2].Value), "decompressed")
	assert.Equal(t, "aborted", string(p.Records[6].Key), "read_uncommitted shows what the log holds")

	p, err = cl.Peek(ctx, "mixed", 0, PeekFrom{Kind: PeekFromOffset, Offset: 6}, PeekOptions{Count: 100, ReadCommitted: true})
	require.NoError(t, err)
	assert.Equal(t, []int64{9}, offsetsOf(p.Records), "from the marker on, the aborted record skipped")

	p, err = cl.Peek(ctx, "mixed", 0, PeekFrom{Kind: PeekFromOffset, Offset: 2}, PeekOptions{Count: 2})
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 3}, offsetsOf(p.Records), "from inside a compressed batch")
}

// max_bytes bounds what the result holds; a record larger than it alone
// is an explicit row with an error and no data; many records are read
// over several Fetches.
func TestPeekMaxBytes(t *testing.T) {
	cl, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "sized")
	require.NoError(t, err)
	kc := peekProducer(t, c.ListenAddrs(), kgo.ProducerBatchMaxBytes(1<<20))
	val := func(n int) []byte { return []byte(strings.Repeat("x", n)) }
	for _, n := range []int{100, 100, 5000, 100, 100} {
		require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "sized", Partition: 0, Key: []byte("k"), Value: val(n)}).FirstErr())
	}

	p, err := cl.Peek(ctx, "sized", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{Values: true, MaxBytes: 500})
	require.NoError(t, err)
	require.Len(t, p.Records, 5, "the large one is a row of its own, holding nothing")
	assert.Equal(t, "end", p.Stopped)
	big := p.Records[2]
	require.NotNil(t, big.Err)
	assert.Equal(t, CodeRecordTooLarge, big.Err.Code)
	assert.Contains(t, big.Err.Message, "offset 2 holds 5001 bytes, more than max_bytes 500")
	assert.Equal(t, 5001, big.Size)
	assert.Nil(t, big.Value)
	assert.Nil(t, big.Key)
	assert.Len(t, p.Records[0].Value, 100)

	p, err = cl.Peek(ctx, "sized", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{Values: true, MaxBytes: 210})
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1, 2}, offsetsOf(p.Records), "202 bytes held, the oversize row holds nothing, the fourth would pass 210")
	assert.Equal(t, "max_bytes", p.Stopped)

	p, err = cl.Peek(ctx, "sized", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{MaxBytes: 250})
	require.NoError(t, err)
	assert.Len(t, p.Records, 5, "without values only keys and headers are held")
	assert.Nil(t, p.Records[2].Err)

	// Thousands of records: read until count (the real-Kafka test sees
	// them over several bounded Fetches; kfake answers them in one).
	many := make([]*kgo.Record, 3000)
	for i := range many {
		many[i] = &kgo.Record{Topic: "sized", Partition: 0, Value: val(200)}
	}
	for i := 0; i < len(many); i += 100 { // 30 batches
		require.NoError(t, kc.ProduceSync(ctx, many[i:i+100]...).FirstErr())
	}
	p, err = cl.Peek(ctx, "sized", 0, PeekFrom{Kind: PeekFromOffset, Offset: 5}, PeekOptions{Count: 3000, MaxBytes: 64 << 10})
	require.NoError(t, err)
	require.Len(t, p.Records, 3000)
	assert.Equal(t, int64(3004), p.Records[2999].Offset)
	assert.Equal(t, "count", p.Stopped)
}

// A leader that keeps answering a retriable error (a leader moving, never
// settling) is retried until the call's deadline, and no longer.
func TestPeekGivesUpAtTheDeadline(t *testing.T) {
	_, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 1, 1, nil, "stuck")
	require.NoError(t, err)
	produceAt(t, peekProducer(t, c.ListenAddrs()), "stuck", 0, 1, 2)
	c.ControlKey(int16(kmsg.Fetch), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return notLeaderFetch(r), nil, true
	})
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 1500 * time.Millisecond})
	require.NoError(t, err)
	defer cl.Close()
	started := time.Now()
	_, err = cl.Peek(ctx, "stuck", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{})
	took := time.Since(started)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeTimeout, e.Code)
	assert.Contains(t, e.Message, "last error: NOT_LEADER_OR_FOLLOWER", "retried until the deadline, saying why")
	assert.Equal(t, "stuck[0]", e.Resource)
	assert.Less(t, took, 3*time.Second, "bounded by the call's timeout")
	assert.GreaterOrEqual(t, took, time.Second, "retried, not given up at once")
}

// A one-shot peek from an offset asks the cluster's metadata once (a start
// of "earliest" or a time adds ListOffsets, which kgo routes by its own
// metadata): the leader is reached
// through the seed at its advertised address (brokerAt), not after a
// Metadata round trip of kgo's own to learn the brokers.
func TestPeekAsksMetadataOnce(t *testing.T) {
	_, c, adm := newTestClient(t)
	ctx := context.Background()
	_, err := adm.CreateTopics(ctx, 3, 1, nil, "once")
	require.NoError(t, err)
	kc := peekProducer(t, c.ListenAddrs())
	for p := range int32(3) {
		require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "once", Partition: p, Value: []byte("v")}).FirstErr())
	}
	kc.Close()                // its own metadata refreshes would be counted
	for p := range int32(3) { // whichever broker leads it
		cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second})
		require.NoError(t, err)
		metadata := countKey(c, kmsg.Metadata)
		got, err := cl.Peek(ctx, "once", p, PeekFrom{Kind: PeekFromOffset, Offset: 0}, PeekOptions{Values: true})
		require.NoError(t, err)
		require.Len(t, got.Records, 1)
		assert.Equal(t, "v", string(got.Records[0].Value))
		assert.Equal(t, int32(1), metadata.Load(), "partition %d", p)
		cl.Close()
	}
}
