package engine

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/internal/testbomb"
)

// Each codec's output is refused past the bound, and read whole within
// it. A gzip stream of 1 GiB (1 MiB on the wire) costs the bound, not the
// gigabyte: the default decompressor allocated all of it.
func TestDecompressWithinBounds(t *testing.T) {
	data := bytes.Repeat([]byte("kadmin-lua "), 400_000) // 4.4 MB
	for _, codec := range []kgo.CompressionCodec{kgo.GzipCompression(), kgo.Lz4Compression(), kgo.ZstdCompression(), kgo.SnappyCompression()} {
		comp, err := kgo.DefaultCompressor(codec)
		require.NoError(t, err)
		var buf bytes.Buffer
		src, typ := comp.Compress(&buf, data)
		src = bytes.Clone(src)

		d := newBoundedDecompressor(DecompressLimits{Batch: 1 << 20})
		_, err = d.Decompress(src, typ)
		assert.ErrorIs(t, err, kgo.ErrMaxDecompress, "codec %d over the bound", typ)

		d = newBoundedDecompressor(DecompressLimits{Batch: 8 << 20, Read: 12 << 20})
		out, err := d.Decompress(src, typ)
		require.NoError(t, err, "codec %d", typ)
		assert.Equal(t, data, out, "codec %d within the bound", typ)
		_, err = d.Decompress(src, typ)
		assert.NoError(t, err, "8.8 MB of the answer's 12 MiB")
		_, err = d.Decompress(src, typ)
		assert.ErrorIs(t, err, kgo.ErrMaxDecompress, "codec %d: the answer's bound", typ)
		assert.True(t, d.overRead)
	}

	bomb := testbomb.Gzip(nil, 1<<30, nil)
	assert.Less(t, len(bomb), 2<<20, "a gigabyte in about a megabyte")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := newBoundedDecompressor(DecompressLimits{Batch: 4 << 20}).Decompress(bomb, kgo.CodecGzip)
	runtime.ReadMemStats(&after)
	assert.ErrorIs(t, err, kgo.ErrMaxDecompress)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(12<<20), "what the bomb cost: about the bound, not its gigabyte")
}

// bombClient is a client whose bound per batch is 1 MiB, and a topic
// "bomb" holding a record, a gzip bomb of 16 MiB of zeros (16 KiB on the
// wire), and a record.
func bombClient(t *testing.T) (*Client, *kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "bomb"))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := New(Config{Brokers: c.ListenAddrs(), Timeout: 5 * time.Second, Decompress: DecompressLimits{Batch: 1 << 20}})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	t.Cleanup(kc.Close)
	ctx := context.Background()
	base := time.UnixMilli(1_780_000_000_000)
	require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "bomb", Value: []byte("before"), Timestamp: base}).FirstErr())
	off, err := testbomb.Produce(ctx, kc, "bomb", 0, 16<<20, base.Add(time.Second).UnixMilli())
	require.NoError(t, err)
	require.EqualValues(t, 1, off)
	require.NoError(t, kc.ProduceSync(ctx, &kgo.Record{Topic: "bomb", Value: []byte("after"), Timestamp: base.Add(2 * time.Second)}).FirstErr())
	return cl, c, kc
}

// Peek shows a batch over the bound as a row with DECOMPRESS_LIMIT naming
// the partition and its offsets, and reads on after it; before, the row
// held the 16 MiB value.
func TestPeekRefusesADecompressionBomb(t *testing.T) {
	cl, _, _ := bombClient(t)
	got, err := cl.Peek(context.Background(), "bomb", 0, PeekFrom{Kind: PeekFromEarliest}, PeekOptions{Values: true, MaxBytes: 64 << 20})
	require.NoError(t, err)
	require.Len(t, got.Records, 3)
	assert.Equal(t, []byte("before"), got.Records[0].Value)
	bomb := got.Records[1]
	assert.EqualValues(t, 1, bomb.Offset)
	require.NotNil(t, bomb.Err)
	assert.Equal(t, CodeDecompressLimit, bomb.Err.Code)
	assert.Equal(t, "bomb[0]", bomb.Err.Resource)
	assert.Contains(t, bomb.Err.Message, "bomb[0]: the record batch at offsets 1 to 1 decompresses to more than 1.0 MiB")
	assert.Nil(t, bomb.Value)
	assert.Equal(t, []byte("after"), got.Records[2].Value, "read on after it")
	assert.Equal(t, "end", got.Stopped)
}

// Lag in time on a group whose first unread record is in the bomb fails
// that partition with the same error, rather than reading 16 MiB (or,
// without a bound, the gigabytes of a real bomb).
func TestLagInTimeRefusesADecompressionBomb(t *testing.T) {
	cl, c, _ := bombClient(t)
	kc, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer kc.Close()
	commitAt(t, kadm.NewClient(kc), "g", "bomb", map[int32]int64{0: 1})
	res, err := cl.LagWith(context.Background(), []string{"g"}, LagOptions{Time: true})
	require.NoError(t, err)
	p := partitionOf(t, res[0], 0)
	require.NotNil(t, p.Err, "%+v", p)
	assert.Equal(t, CodeDecompressLimit, p.Err.Code)
	assert.Contains(t, p.Err.Message, "bomb[0]: the record batch at offsets 1 to 1")
	assert.Nil(t, p.LagMs)
	assert.EqualValues(t, 2, p.Lag, "the lag in records is still known")
}
