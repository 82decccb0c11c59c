package engine

import (
	"bytes"
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Peeking at records: up to Count records of one partition from an
// offset, read as record_at.go reads the first one (raw Fetches to the
// partition's leader, parsed by kgo.ProcessFetchPartition: decompression,
// CRCs, control records dropped, aborted transactions under
// read_committed), looping until Count records, MaxBytes held, or the
// high watermark. It never joins a group and commits nothing: a read, with
// no row in the operations table.

// Where Peek starts.
const (
	PeekFromOffset    = "offset"    // PeekFrom.Offset
	PeekFromEarliest  = "earliest"  // the log start offset
	PeekFromLatest    = "latest"    // the last Count records before the end (kcat -o -N)
	PeekFromTimestamp = "timestamp" // the first offset whose record timestamp is >= PeekFrom.Timestamp
	PeekFromGroup     = "group"     // PeekFrom.Group's committed offset on the partition
)

// Peek's bounds.
const (
	PeekDefaultCount    = 10
	PeekMaxCount        = 10_000
	PeekDefaultMaxBytes = 1 << 20
	// peekFetchFloor is the least a Fetch asks per partition, so that a
	// small max_bytes still makes progress with few round trips.
	peekFetchFloor = 64 << 10
	// peekFetchCeil bounds one Fetch answer's partition bytes.
	peekFetchCeil = 8 << 20
)

// CodeRecordTooLarge is a peeked row whose record alone holds more than
// MaxBytes: its key, headers and value are left out.
const CodeRecordTooLarge = "RECORD_TOO_LARGE"

// CodeNoCommittedOffset: peek from a group that has no commit on the
// partition.
const CodeNoCommittedOffset = "NO_COMMITTED_OFFSET"

// PeekFrom says where Peek starts.
type PeekFrom struct {
	Kind      string // one of the PeekFrom* constants
	Offset    int64  // PeekFromOffset
	Timestamp int64  // PeekFromTimestamp: ms since the epoch
	Group     string // PeekFromGroup
}

// PeekOptions bound Peek.
type PeekOptions struct {
	Count         int  // records at most; PeekDefaultCount when 0, at most PeekMaxCount
	MaxBytes      int  // bytes held at most (keys, headers, values when Values); PeekDefaultMaxBytes when 0
	Values        bool // keep the records' values
	ReadCommitted bool // skip aborted transactions' records, as a read_committed consumer does
}

// RecordHeader is one header of a record.
type RecordHeader struct {
	Key   string `json:"key"`
	Value []byte `json:"value"`
}

// PeekedRecord is one record Peek read.
type PeekedRecord struct {
	Offset        int64          `json:"offset"`
	Timestamp     int64          `json:"timestamp"`      // ms
	TimestampType string         `json:"timestamp_type"` // TimestampCreateTime or TimestampLogAppendTime
	Key           []byte         `json:"key"`            // nil for a null key
	Headers       []RecordHeader `json:"headers"`
	Size          int            `json:"size"`  // bytes of key and value
	Value         []byte         `json:"value"` // only with PeekOptions.Values; nil for a null value
	NullValue     bool           `json:"-"`     // the value is null (a tombstone)
	Err           *Error         `json:"error,omitempty"`
}

// Peeked is what Peek read of one partition.
type Peeked struct {
	Topic         string         `json:"topic"`
	Partition     int32          `json:"partition"`
	Start         int64          `json:"start"` // the offset it read from
	LogStart      int64          `json:"log_start"`
	HighWatermark int64          `json:"high_watermark"`
	Records       []PeekedRecord `json:"records"`
	// Stopped says why there are no more records: "count", "max_bytes"
	// or "end" (the high watermark).
	Stopped string `json:"stopped"`
}

// Peek reads up to opts.Count records of topic's partition from from.
//
// An offset at the high watermark gives no records (nothing written yet);
// one below the log start or past the high watermark fails with
// OFFSET_OUT_OF_RANGE naming the partition and its range. "latest" starts
// Count offsets before the high watermark (not before the log start), as
// kcat -o -N does: fewer records come back where control records or
// compaction left gaps. A group with no commit on the partition fails with
// NO_COMMITTED_OFFSET.
//
// MaxBytes bounds what the result holds: the keys, header keys and values,
// and values when Values, of the records. Reading stops before a record
// that would pass it, except that a record holding more than MaxBytes on
// its own comes back as a row with its offset, timestamp and size, and an
// error RECORD_TOO_LARGE instead of its key, headers and value; reading
// goes on after it. A compressed batch over the decompression bounds
// (Config.Decompress) is one row at its first offset, timestamp -1, with
// an error DECOMPRESS_LIMIT naming its offsets; reading goes on after it.
func (c *Client) Peek(ctx context.Context, topic string, partition int32, from PeekFrom, opts PeekOptions) (*Peeked, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	tp := TopicPartition{Topic: topic, Partition: partition}
	switch {
	case topic == "":
		return nil, Errorf(CodeInvalidArgument, "", "topic must not be empty")
	case partition < 0:
		return nil, Errorf(CodeInvalidArgument, tp.String(), "partition must be >= 0")
	case opts.Count < 0 || opts.Count > PeekMaxCount:
		return nil, Errorf(CodeInvalidArgument, tp.String(), "count must be between 1 and %d, got %d", PeekMaxCount, opts.Count)
	case opts.MaxBytes < 0:
		return nil, Errorf(CodeInvalidArgument, tp.String(), "max_bytes must be positive, got %d", opts.MaxBytes)
	}
	if opts.Count == 0 {
		opts.Count = PeekDefaultCount
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = PeekDefaultMaxBytes
	}
	meta, err := c.partitionMeta(ctx, tp)
	if err != nil {
		return nil, err
	}
	start, empty, err := c.peekStart(ctx, tp, from, opts.Count)
	if err != nil {
		return nil, err
	}
	// The range is read from the Fetch answers (HighWatermark,
	// LogStartOffset): no ListOffsets for a start given as an offset.
	out := &Peeked{Topic: topic, Partition: partition, Start: start, LogStart: -1, HighWatermark: -1, Records: []PeekedRecord{}, Stopped: "end"}
	if empty {
		return out, nil
	}
	var isolation int8
	if opts.ReadCommitted {
		isolation = 1
	}
	partBytes := int32(min(max(opts.MaxBytes, peekFetchFloor), peekFetchCeil))
	held := 0
	pos := start
	for {
		var fp kgo.FetchPartition
		var next int64
		var refused *kgo.ErrDecompressTooLarge // a batch over the decompression bounds
		var refusal *Error
		errs := retryItems(ctx, []TopicPartition{tp}, TopicPartition.String, func(ctx context.Context, pending []TopicPartition) (map[TopicPartition]*Error, error) {
			answers, err := c.fetchRaw(ctx, pending, meta, map[TopicPartition]int64{tp: pos}, isolation, partBytes, func(tp TopicPartition, rp *kmsg.FetchResponseTopicPartition) *Error {
				if e := kafkaErr(rp.ErrorCode, nil, tp.String()); e != nil {
					if e.Code == kerr.OffsetOutOfRange.Message {
						e.Retriable = false // outside the log: said below
					}
					return e
				}
				out.HighWatermark = max(out.HighWatermark, rp.HighWatermark)
				if out.LogStart < 0 {
					out.LogStart = rp.LogStartOffset
				}
				var perr *Error
				fp, next, refused, perr = parseFetched(tp, pos, rp, isolation, c.cfg.Decompress)
				if refused != nil {
					refusal = perr
					return nil // a row says so, and reading goes on after it
				}
				return perr
			})
			if err != nil || answers[tp] != nil {
				meta = nil // the leader may have moved: ask again
			}
			return answers, err
		})
		if e := errs[tp]; e != nil {
			if e.Code == kerr.OffsetOutOfRange.Message && len(out.Records) == 0 {
				return nil, c.outOfRange(ctx, tp, pos, e)
			}
			return nil, e
		}
		if refused != nil {
			// The batch is not read: its row has the offset it starts
			// at (or the one asked) and the error, which names its
			// offsets; peek goes on after it, as after a record over
			// max_bytes, so that skip-record can show and skip it.
			out.Records = append(out.Records, PeekedRecord{Offset: max(refused.Offset, pos), Timestamp: -1, Headers: []RecordHeader{}, Err: refusal})
			if len(out.Records) == opts.Count {
				out.Stopped = "count"
				return out, nil
			}
			if pos = max(refused.NextOffset, pos+1); pos >= out.HighWatermark {
				return out, nil
			}
			continue
		}
		// Room for this answer's records at once: appending one by one
		// doubled the slice ten times for 1,000 records.
		out.Records = slices.Grow(out.Records, min(opts.Count-len(out.Records), len(fp.Records)))
		for _, rec := range fp.Records {
			if rec.Offset < pos {
				continue
			}
			row, size := peekRow(rec, opts)
			if size > opts.MaxBytes {
				row = PeekedRecord{Offset: row.Offset, Timestamp: row.Timestamp, TimestampType: row.TimestampType, Size: row.Size,
					Headers: []RecordHeader{},
					Err: Errorf(CodeRecordTooLarge, tp.String(), "the record at offset %d holds %d bytes, more than max_bytes %d: its key, headers and value are left out",
						rec.Offset, size, opts.MaxBytes)}
				size = 0
			}
			if held+size > opts.MaxBytes {
				out.Stopped = "max_bytes"
				return out, nil
			}
			held += size
			out.Records = append(out.Records, row)
			if len(out.Records) == opts.Count {
				out.Stopped = "count"
				return out, nil
			}
		}
		switch {
		case len(fp.Records) > 0 && fp.Records[len(fp.Records)-1].Offset+1 > pos:
			pos = max(next, fp.Records[len(fp.Records)-1].Offset+1)
		case next > pos:
			pos = next // only control or aborted records: go on after them
		default:
			return out, nil // nothing more below the high watermark
		}
		if pos >= out.HighWatermark {
			return out, nil
		}
	}
}

// outOfRange says where tp's records are, for a start outside them.
func (c *Client) outOfRange(ctx context.Context, tp TopicPartition, start int64, e *Error) error {
	low, high, err := c.partitionRange(ctx, tp)
	if err != nil {
		return e
	}
	return Errorf(kerr.OffsetOutOfRange.Message, tp.String(), "offset %d is outside %s's records: offsets %d to %d (the high watermark, the next record's offset)",
		start, tp, low, high)
}

// peekRow turns a record into a row and says how many bytes it holds.
// Keys, headers and values are copied: a record's bytes are a slice of
// its whole decompressed batch, which a row would otherwise keep alive
// (1,000 rows from 1,000 batches held every batch whole).
func peekRow(rec *kgo.Record, opts PeekOptions) (PeekedRecord, int) {
	row := PeekedRecord{Offset: rec.Offset, Timestamp: rec.Timestamp.UnixMilli(), TimestampType: timestampType(rec),
		Key: bytes.Clone(rec.Key), Size: len(rec.Key) + len(rec.Value), Headers: make([]RecordHeader, 0, len(rec.Headers))}
	size := len(rec.Key)
	for _, h := range rec.Headers {
		row.Headers = append(row.Headers, RecordHeader{Key: h.Key, Value: bytes.Clone(h.Value)})
		size += len(h.Key) + len(h.Value)
	}
	if opts.Values {
		row.Value, row.NullValue = bytes.Clone(rec.Value), rec.Value == nil
		size += len(rec.Value)
	}
	return row, size
}

// partitionMeta reads tp's topic's metadata, and fails at once, not at
// the deadline, for a topic or partition the cluster does not have. The
// answer serves the first Fetch.
func (c *Client) partitionMeta(ctx context.Context, tp TopicPartition) (*kmsg.MetadataResponse, error) {
	var meta *kmsg.MetadataResponse
	if e := retryCall(ctx, tp.String(), func(ctx context.Context) error {
		m, err := c.rawMetadata(ctx, tp.Topic)
		if err != nil {
			return err
		}
		if len(m.Topics) == 1 {
			if e := kafkaErr(m.Topics[0].ErrorCode, nil, tp.Topic); e != nil && e.Code != kerr.UnknownTopicOrPartition.Message {
				return e
			}
		}
		meta = m
		return nil
	}); e != nil {
		return nil, e
	}
	for _, t := range meta.Topics {
		if t.Topic == nil || *t.Topic != tp.Topic || t.ErrorCode != 0 {
			continue
		}
		for _, p := range t.Partitions {
			if p.Partition == tp.Partition {
				return meta, nil
			}
		}
		return nil, Errorf(kerr.UnknownTopicOrPartition.Message, tp.String(), "topic %s has %d partitions (0 to %d), not %d",
			tp.Topic, len(t.Partitions), len(t.Partitions)-1, tp.Partition)
	}
	return nil, Errorf(kerr.UnknownTopicOrPartition.Message, tp.String(), "topic %s does not exist", tp.Topic)
}

// partitionRange lists the partition's log start offset and high watermark.
func (c *Client) partitionRange(ctx context.Context, tp TopicPartition) (low, high int64, err error) {
	for i, q := range []string{OffsetAtEarliest, OffsetAtLatest} {
		ls, err := c.listOffsets(ctx, []TopicPartition{tp}, OffsetQuery{Kind: q})
		if err != nil {
			return 0, 0, err
		}
		if len(ls) != 1 {
			return 0, 0, Errorf(CodeNetwork, tp.String(), "no %s offset listed for %s", q, tp)
		}
		if ls[0].Err != nil {
			return 0, 0, ls[0].Err
		}
		if i == 0 {
			low = ls[0].Offset
		} else {
			high = ls[0].Offset
		}
	}
	return low, high, nil
}

// listedOffset lists one offset of tp.
func (c *Client) listedOffset(ctx context.Context, tp TopicPartition, q OffsetQuery) (int64, error) {
	ls, err := c.listOffsets(ctx, []TopicPartition{tp}, q)
	if err != nil {
		return 0, err
	}
	if len(ls) != 1 {
		return 0, Errorf(CodeNetwork, tp.String(), "no %s offset listed for %s", q.Kind, tp)
	}
	if ls[0].Err != nil {
		return 0, ls[0].Err
	}
	return ls[0].Offset, nil
}

// peekStart resolves from to an offset; empty says there is nothing to
// read (no record at or after the time, an empty partition's end).
func (c *Client) peekStart(ctx context.Context, tp TopicPartition, from PeekFrom, count int) (start int64, empty bool, err error) {
	switch from.Kind {
	case PeekFromOffset:
		if from.Offset < 0 {
			return 0, false, Errorf(CodeInvalidArgument, tp.String(), "offset must be >= 0, got %d", from.Offset)
		}
		return from.Offset, false, nil
	case PeekFromEarliest:
		low, err := c.listedOffset(ctx, tp, OffsetQuery{Kind: OffsetAtEarliest})
		return low, false, err
	case PeekFromLatest:
		low, high, err := c.partitionRange(ctx, tp)
		return max(low, high-int64(count)), high <= low, err
	case PeekFromTimestamp:
		ls, err := c.listOffsets(ctx, []TopicPartition{tp}, OffsetQuery{Kind: OffsetAtTimestamp, Timestamp: from.Timestamp})
		if err != nil {
			return 0, false, err
		}
		if len(ls) != 1 {
			return 0, false, Errorf(CodeNetwork, tp.String(), "no offset listed for %s at time %d", tp, from.Timestamp)
		}
		if ls[0].Err != nil {
			return 0, false, ls[0].Err
		}
		// No record at or after the time: listOffsets answers the end
		// with timestamp -1 (or -1 itself).
		return ls[0].Offset, ls[0].Offset < 0 || ls[0].Timestamp < 0, nil
	case PeekFromGroup:
		if from.Group == "" {
			return 0, false, Errorf(CodeInvalidArgument, tp.String(), "group must not be empty")
		}
		offs, ferr := c.fetchOffsets(ctx, from.Group)
		if ferr != nil {
			return 0, false, ferr
		}
		if o, ok := offs.Lookup(tp.Topic, tp.Partition); ok && o.Err == nil && o.At >= 0 {
			return o.At, false, nil
		} else if ok && o.Err != nil {
			return 0, false, AsError(o.Err, tp.String())
		}
		return 0, false, Errorf(CodeNoCommittedOffset, tp.String(), "group %s has no committed offset on %s", from.Group, tp)
	}
	return 0, false, Errorf(CodeInvalidArgument, tp.String(), "unknown start %q (want an offset, earliest, latest, a timestamp or a group)", from.Kind)
}
