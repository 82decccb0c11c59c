package engine

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Decompressing what a Fetch returned, within bounds. A record batch is
// compressed whole (a record cannot be decompressed alone), and gzip
// reaches about 1:1000: one 1 MB gzip record of zeros is 1 GB once read.
// franz-go's default decompressor allows 2 GiB a batch, so peek, lag in
// time and skip-record read such a record into gigabytes, bounded only by
// --max-memory, which a Go program (or a library user) may not set. The
// decompressor here streams each batch into a buffer that refuses to grow
// past the bounds, so a bomb costs at most the bound, and fails with
// DECOMPRESS_LIMIT naming the partition and the batch's offsets.

// CodeDecompressLimit: a record batch that decompresses to more than
// kadmin-lua reads of one batch (DecompressLimits.Batch), or one Fetch
// answer whose batches together pass DecompressLimits.Read.
const CodeDecompressLimit = "DECOMPRESS_LIMIT"

// DecompressLimits bound what reading records decompresses.
type DecompressLimits struct {
	// Batch bounds one record batch decompressed: every record is in a
	// batch, so it bounds each record too.
	Batch int64
	// Read bounds one partition's Fetch answer, its batches summed. A call
	// reads the answers one at a time and keeps none of their bytes
	// (lag in time keeps timestamps, peek copies what it returns), so it
	// is the most one call holds decompressed at once.
	Read int64
}

// Default bounds: a batch is at most max.message.bytes (1 MiB by default)
// compressed; 64 MiB decompressed is more than a producer's batch.size
// or a 1 MiB batch at a text compression ratio ever makes.
const (
	DefaultDecompressBatch = 64 << 20
	DefaultDecompressRead  = 256 << 20
)

func (l DecompressLimits) withDefaults() DecompressLimits {
	if l.Batch <= 0 {
		l.Batch = DefaultDecompressBatch
	}
	if l.Read <= 0 {
		l.Read = DefaultDecompressRead
	}
	return l
}

// boundedDecompressor is a kgo.Decompressor for one Fetch answer: each
// batch within limits.Batch, all of them within limits.Read.
type boundedDecompressor struct {
	limits DecompressLimits
	used   int64 // decompressed so far in this answer
	// overRead: the last batch refused passed the bound of the answer
	// rather than the batch's own.
	overRead bool
}

func newBoundedDecompressor(l DecompressLimits) *boundedDecompressor {
	return &boundedDecompressor{limits: l.withDefaults()}
}

// Decompress implements kgo.Decompressor.
func (d *boundedDecompressor) Decompress(src []byte, codec kgo.CompressionCodecType) ([]byte, error) {
	if codec == kgo.CodecNone {
		return src, nil // already in memory: nothing grows
	}
	limit, overRead := d.limits.Batch, false
	if left := d.limits.Read - d.used; left < limit {
		limit, overRead = max(left, 0), true
	}
	out, err := decompressWithin(src, codec, limit)
	if errors.Is(err, errOverLimit) {
		// kgo.ProcessFetchPartition turns this into an
		// ErrDecompressTooLarge naming the batch's offsets.
		d.overRead = overRead
		return nil, kgo.ErrMaxDecompress
	}
	d.used += int64(len(out))
	return out, err
}

var errOverLimit = errors.New("over the limit")

// decompressWithin decompresses src, failing with errOverLimit as soon as
// the output would pass limit bytes: gzip, lz4 and zstd are streamed into
// a buffer that never holds more than limit+1 bytes; snappy states its
// decoded length up front, which is checked before decoding.
func decompressWithin(src []byte, codec kgo.CompressionCodecType, limit int64) ([]byte, error) {
	var r io.Reader
	switch codec {
	case kgo.CodecGzip:
		gz, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		r = gz
	case kgo.CodecLz4:
		r = lz4.NewReader(bytes.NewReader(src))
	case kgo.CodecZstd:
		zr, err := zstd.NewReader(bytes.NewReader(src), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(max(limit, 1))), zstd.WithDecoderMaxWindow(uint64(max(limit, zstd.MinWindowSize))))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	case kgo.CodecSnappy:
		n, err := snappyDecodedLen(src)
		if err != nil {
			return nil, err
		}
		if n > limit {
			return nil, errOverLimit
		}
		return kgo.DefaultDecompressor().Decompress(src, codec)
	default:
		return nil, fmt.Errorf("unknown compression codec %d", codec)
	}
	out, err := readAtMost(r, limit, 4*len(src))
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return nil, errOverLimit
	}
	return out, err
}

// readAtMost reads r to its end into a buffer first sized guess, grown by
// doubling but never past limit+1 bytes (bytes.Buffer would double past
// it: 16 MiB allocated to refuse 4 MiB), failing with errOverLimit when r
// holds more than limit bytes.
func readAtMost(r io.Reader, limit int64, guess int) ([]byte, error) {
	buf := make([]byte, 0, min(max(int64(guess), 512), limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errOverLimit
			}
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit+1-int64(cap(buf)))))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return nil, errOverLimit
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}

// xerialMagic starts snappy in the xerial framing the Java producer
// writes: a 16-byte header, then blocks of a big-endian length and a raw
// snappy block.
var xerialMagic = []byte{130, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// snappyDecodedLen is what snappy data says it decodes to, summed over
// the blocks of the xerial framing.
func snappyDecodedLen(src []byte) (int64, error) {
	if len(src) <= 16 || !bytes.HasPrefix(src, xerialMagic) {
		n, err := s2.DecodedLen(src)
		return int64(n), err
	}
	var total int64
	for rest := src[16:]; len(rest) > 0; {
		if len(rest) < 4 {
			return 0, errors.New("malformed xerial snappy framing")
		}
		size := int64(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if size > int64(len(rest)) {
			return 0, errors.New("malformed xerial snappy framing")
		}
		n, err := s2.DecodedLen(rest[:size])
		if err != nil {
			return 0, err
		}
		total += int64(n)
		rest = rest[size:]
	}
	return total, nil
}

// refused says which batch of tp d refused, from the error
// kgo.ProcessFetchPartition made of it, and where reading can go on after
// it; nil when err is no such refusal.
func (d *boundedDecompressor) refused(tp TopicPartition, err error) (*Error, *kgo.ErrDecompressTooLarge) {
	var big *kgo.ErrDecompressTooLarge
	if !errors.As(err, &big) {
		return nil, nil
	}
	l := d.limits
	what := fmt.Sprintf("more than %s, kadmin-lua's bound per record batch (a decompression bomb?)", humanBytes(l.Batch))
	if d.overRead {
		what = fmt.Sprintf("more than the %s one read of the partition may decompress, with the batches before it", humanBytes(l.Read))
	}
	return &Error{Code: CodeDecompressLimit, Resource: tp.String(),
		Message: fmt.Sprintf("%s: the record batch at offsets %d to %d decompresses to %s: it was not read (the records after it are at offset %d)",
			tp, big.Offset, big.NextOffset-1, what, big.NextOffset)}, big
}
