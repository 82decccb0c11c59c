// Package testbomb writes decompression bombs to a test cluster: one
// record whose value is a run of zeros, in a gzip record batch a
// thousandth of its size, as a hostile producer would send it. Tests of
// what reads records (peek, lag in time, skip-record) produce one and
// check the read is refused within its bounds.
package testbomb

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Gzip is a gzip stream that decompresses to prefix, zeros zero bytes,
// then suffix, built without ever holding the zeros: gzip readers read
// concatenated members as one stream, so the zeros are one member of a
// MiB of zeros repeated (about 1 KiB each).
func Gzip(prefix []byte, zeros int, suffix []byte) []byte {
	member := func(p []byte) []byte {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = w.Write(p)
		_ = w.Close()
		return b.Bytes()
	}
	out := member(prefix)
	const chunk = 1 << 20
	full := member(make([]byte, chunk))
	for ; zeros >= chunk; zeros -= chunk {
		out = append(out, full...)
	}
	if zeros > 0 {
		out = append(out, member(make([]byte, zeros))...)
	}
	return append(out, member(suffix)...)
}

// Batch is a gzip record batch holding one record, at timestamp tsMs (ms;
// any value, -1 included, as a producer may send), with no key and a
// value of zeros zero bytes.
func Batch(zeros int, tsMs int64) []byte {
	// A record: length, attributes, timestamp delta, offset delta, key
	// (-1: null), value length, value, header count.
	head := []byte{0} // attributes
	head = binary.AppendVarint(head, 0)
	head = binary.AppendVarint(head, 0)
	head = binary.AppendVarint(head, -1)
	head = binary.AppendVarint(head, int64(zeros))
	tail := binary.AppendVarint(nil, 0)
	prefix := binary.AppendVarint(nil, int64(len(head)+zeros+len(tail)))
	records := Gzip(append(prefix, head...), zeros, tail)

	b := kmsg.RecordBatch{
		PartitionLeaderEpoch: -1, Magic: 2, Attributes: 1, // gzip
		FirstTimestamp: tsMs, MaxTimestamp: tsMs,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: 1, Records: records,
	}
	raw := b.AppendTo(nil)
	b.Length = int32(len(raw) - 12)
	raw = b.AppendTo(nil)
	b.CRC = int32(crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b.AppendTo(nil)
}

// Produce writes Batch(zeros, tsMs) to topic's partition through kc (a
// raw Produce, so that no client recompresses it or sets its timestamp)
// and returns its offset.
func Produce(ctx context.Context, kc *kgo.Client, topic string, partition int32, zeros int, tsMs int64) (int64, error) {
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	meta.Topics = append(meta.Topics, mt)
	m, err := meta.RequestWith(ctx, kc)
	if err != nil {
		return 0, err
	}
	if len(m.Topics) != 1 {
		return 0, fmt.Errorf("producing the bomb: no topic %s", topic)
	}
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic, rt.TopicID = topic, m.Topics[0].TopicID
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = partition, Batch(zeros, tsMs)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	leader := int32(-1)
	for _, p := range m.Topics[0].Partitions {
		if p.Partition == partition {
			leader = p.Leader
		}
	}
	resp, err := req.RequestWith(ctx, kc.Broker(int(leader)))
	if err != nil {
		return 0, err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return 0, fmt.Errorf("producing the bomb to %s[%d]: %w", topic, partition, err)
			}
			return p.BaseOffset, nil
		}
	}
	return 0, fmt.Errorf("producing the bomb to %s[%d]: no answer", topic, partition)
}
