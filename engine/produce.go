package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Producing records is a mutation like any other (DESIGN.md): it goes
// through mutate, with an intent line before the records are sent and an
// outcome line with each record's partition and offset after. Records
// cannot be un-produced: the operations row says why undo does not delete
// them. The audit line describes each record without copying its payload
// (key, partition, timestamp, header names, the value's size and
// SHA-256): a test record is small, but produce can write thousands, and a
// value is data, which the audit log is not the place to keep.

// Header is one record header.
type Header struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ProduceRecord is one record to write. Partition -1 leaves the choice to
// the partitioner (the key's murmur2 hash, as Java's, or sticky for
// records without a key); Timestamp nil is now.
type ProduceRecord struct {
	Key       *string
	Value     *string
	Headers   []Header
	Partition int32
	Timestamp *int64 // ms since the epoch
}

// ProduceOptions modify Produce.
type ProduceOptions struct {
	// Acks is "all" (the default: every in-sync replica), "leader" or
	// "none".
	Acks string
	// Idempotent: nil is on with acks "all" and off otherwise, as the Java
	// producer decides; true with other acks is refused.
	Idempotent *bool
}

// ProducedRecord is one result of Produce: where the record was written.
type ProducedRecord struct {
	Index     int    `json:"index"` // 1-based, the record's place in the call
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`    // -1 when not written (or acks "none")
	Timestamp int64  `json:"timestamp"` // ms; the broker's under LogAppendTime
	Err       *Error `json:"error,omitempty"`

	sent, acked time.Time // when it was handed to the producer, and answered (probe.go)
}

func (r ProducedRecord) Key() string     { return recordKey(r.Topic, r.Index) }
func (r ProducedRecord) Failure() *Error { return r.Err }

func recordKey(topic string, i int) string { return fmt.Sprintf("%s record %d", topic, i) }

// auditRecord is a record as the intent line describes it.
type auditRecord struct {
	Key         *string  `json:"key,omitempty"`
	Partition   int32    `json:"partition"`
	Timestamp   *int64   `json:"timestamp,omitempty"`
	Headers     []string `json:"headers,omitempty"`
	ValueBytes  int      `json:"value_bytes"`
	ValueSHA256 string   `json:"value_sha256,omitempty"`
	NullValue   bool     `json:"null_value,omitempty"`
}

// producedAt is an applied record's detail: where it landed.
type producedAt struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// CheckProduce reads topic's partition count and checks the records'
// explicit partitions and the options; nothing is sent. It returns the
// partition count.
func (c *Client) CheckProduce(ctx context.Context, topic string, recs []ProduceRecord, o ProduceOptions) (int32, error) {
	if _, _, err := o.settings(); err != nil {
		return 0, err
	}
	m, e := c.metadata(ctx, []string{topic})
	if e != nil {
		return 0, e
	}
	t, ok := m.Topics[topic]
	if !ok || t.Err != nil {
		return 0, AsError(orErr(t.Err, kerr.UnknownTopicOrPartition), topic)
	}
	n := int32(len(t.Partitions))
	for i, r := range recs {
		if r.Partition >= n {
			return 0, Errorf(CodeInvalidArgument, recordKey(topic, i+1), "partition %d: %s has %d partition(s) (0 to %d)", r.Partition, topic, n, n-1)
		}
	}
	return n, nil
}

func (o ProduceOptions) settings() (acks kgo.Acks, idempotent bool, err error) {
	switch o.Acks {
	case "", "all":
		acks, idempotent = kgo.AllISRAcks(), true
	case "leader":
		acks = kgo.LeaderAck()
	case "none":
		acks = kgo.NoAck()
	default:
		return acks, false, Errorf(CodeInvalidArgument, "", "acks must be \"all\", \"leader\" or \"none\", got %q", o.Acks)
	}
	if o.Idempotent != nil {
		if *o.Idempotent && !idempotent {
			return acks, false, Errorf(CodeInvalidArgument, "", "idempotent writes need acks \"all\" (Kafka's rule), got acks %q", o.Acks)
		}
		idempotent = *o.Idempotent
	}
	return acks, idempotent, nil
}

// Produce writes records to topic and reports each one's partition and
// offset, sorted as given. The topic must exist (no auto-creation) and an
// explicit partition must be one of its partitions: otherwise nothing is
// sent. Records are sent by a producer of their own (the connection
// settings of the client, idempotent with acks=all by default), which is
// closed afterwards.
func (c *Client) Produce(ctx context.Context, topic string, recs []ProduceRecord, o ProduceOptions) ([]ProducedRecord, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.produce(ctx, topic, recs, o, nil)
}

// produce is Produce, sent by with when it is not nil (the probe's
// producer, kept between probes) or else by a producer of its own.
func (c *Client) produce(ctx context.Context, topic string, recs []ProduceRecord, o ProduceOptions, with *kgo.Client) ([]ProducedRecord, error) {
	acks, idempotent, err := o.settings()
	if err != nil {
		return nil, err
	}
	if _, err := c.CheckProduce(ctx, topic, recs, o); err != nil {
		return nil, err
	}
	keys := make([]string, len(recs))
	described := make([]auditRecord, len(recs))
	for i, r := range recs {
		keys[i] = recordKey(topic, i+1)
		a := auditRecord{Key: r.Key, Partition: r.Partition, Timestamp: r.Timestamp, NullValue: r.Value == nil}
		for _, h := range r.Headers {
			a.Headers = append(a.Headers, h.Key)
		}
		if r.Value != nil {
			sum := sha256.Sum256([]byte(*r.Value))
			a.ValueBytes, a.ValueSHA256 = len(*r.Value), hex.EncodeToString(sum[:])
		}
		described[i] = a
	}
	acksName := o.Acks
	if acksName == "" {
		acksName = "all"
	}
	return mutate(ctx, c, mutation[[]ListedOffset, []ProducedRecord]{
		op: "produce", keys: keys,
		args: struct {
			Topic      string        `json:"topic"`
			Acks       string        `json:"acks"`
			Idempotent bool          `json:"idempotent"`
			Records    []auditRecord `json:"records"`
		}{topic, acksName, idempotent, described},
		before: func(ctx context.Context) ([]ListedOffset, error) {
			return c.listOffsetsOf(ctx, OffsetQuery{Kind: OffsetAtLatest}, topic)
		},
		send: func(ctx context.Context, _ []ListedOffset) ([]ProducedRecord, error) {
			if with != nil {
				return produceWith(ctx, with, topic, recs, acks), nil
			}
			return c.sendRecords(ctx, topic, recs, acks, idempotent)
		},
		items: asItems[ProducedRecord],
		detail: func(_ []ListedOffset, res []ProducedRecord, key string) any {
			for _, r := range res {
				if r.Key() == key {
					return producedAt{r.Partition, r.Offset}
				}
			}
			return nil
		},
	})
}

// listOffsetsOf lists q's offsets of every partition of topics.
func (c *Client) listOffsetsOf(ctx context.Context, q OffsetQuery, topics ...string) ([]ListedOffset, error) {
	tps, _, err := c.topicPartitions(ctx, topics)
	if err != nil {
		return nil, err
	}
	return c.listOffsets(ctx, tps, q)
}

// producePartitioner keeps a record's own partition when it names one
// (Partition >= 0 when it is handed to the partitioner; -1 otherwise) and
// otherwise asks kgo's default (murmur2 of the key as Java's producer,
// sticky for records without a key).
type producePartitioner struct{ fallback kgo.Partitioner }

func (p producePartitioner) ForTopic(t string) kgo.TopicPartitioner {
	return topicPartitioner{p.fallback.ForTopic(t)}
}

type topicPartitioner struct{ fallback kgo.TopicPartitioner }

func (p topicPartitioner) RequiresConsistency(r *kgo.Record) bool {
	return r.Partition >= 0 || p.fallback.RequiresConsistency(r)
}

func (p topicPartitioner) Partition(r *kgo.Record, n int) int {
	if r.Partition >= 0 {
		return int(r.Partition)
	}
	return p.fallback.Partition(r, n)
}

func (c *Client) producer(acks kgo.Acks, idempotent bool, extra ...kgo.Opt) (*kgo.Client, error) {
	opts, err := c.cfg.kgoOpts()
	if err != nil {
		return nil, err
	}
	opts = append(opts, kgo.WithHooks(c.contact), kgo.RequiredAcks(acks), kgo.ProducerLinger(0),
		kgo.RecordPartitioner(producePartitioner{kgo.StickyKeyPartitioner(nil)}),
		kgo.ProduceRequestTimeout(min(c.cfg.timeout(), 30*time.Second)))
	if !idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, AsError(err, "")
	}
	return cl, nil
}

func (c *Client) sendRecords(ctx context.Context, topic string, recs []ProduceRecord, acks kgo.Acks, idempotent bool) ([]ProducedRecord, error) {
	cl, err := c.producer(acks, idempotent)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return produceWith(ctx, cl, topic, recs, acks), nil
}

func produceWith(ctx context.Context, cl *kgo.Client, topic string, recs []ProduceRecord, acks kgo.Acks) []ProducedRecord {
	out := make([]ProducedRecord, len(recs))
	var wg sync.WaitGroup
	for i, r := range recs {
		kr := &kgo.Record{Topic: topic, Partition: r.Partition}
		if r.Key != nil {
			kr.Key = []byte(*r.Key)
		}
		if r.Value != nil {
			kr.Value = []byte(*r.Value)
		}
		for _, h := range r.Headers {
			kr.Headers = append(kr.Headers, kgo.RecordHeader{Key: h.Key, Value: []byte(h.Value)})
		}
		if r.Timestamp != nil {
			kr.Timestamp = time.UnixMilli(*r.Timestamp)
		}
		wg.Add(1)
		out[i].sent = time.Now()
		cl.Produce(ctx, kr, func(kr *kgo.Record, err error) {
			defer wg.Done()
			p := ProducedRecord{Index: i + 1, Topic: topic, Partition: kr.Partition, Offset: kr.Offset,
				Timestamp: kr.Timestamp.UnixMilli(), Err: AsError(err, recordKey(topic, i+1)), sent: out[i].sent, acked: time.Now()}
			if err != nil || acks == kgo.NoAck() {
				p.Offset = -1 // not written, or nobody says where
			}
			out[i] = p
		})
	}
	wg.Wait()
	return out
}
