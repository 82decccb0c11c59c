package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// ListedTransaction is one row of ListTransactions.
type ListedTransaction struct {
	TransactionalID string `json:"transactional_id"`
	ProducerID      int64  `json:"producer_id"`
	State           string `json:"state"`
	Coordinator     int32  `json:"coordinator"`
}

// ListTransactionsOptions filter ListTransactions.
type ListTransactionsOptions struct {
	States      []string // Ongoing, PrepareCommit, CompleteAbort, ...
	ProducerIDs []int64
	Pattern     string // RE2 on the transactional id (Kafka 4.1+)
}

// ListTransactions lists transactional ids known to the coordinators,
// sorted by id.
func (c *Client) ListTransactions(ctx context.Context, o ListTransactionsOptions) ([]ListedTransaction, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.listTransactions(ctx, o)
}

func (c *Client) listTransactions(ctx context.Context, o ListTransactionsOptions) ([]ListedTransaction, error) {
	var ls kadm.ListedTransactions
	if err := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		ls, err = c.adm.ListTransactionsByTxPattern(ctx, o.ProducerIDs, o.States, o.Pattern)
		return err
	}); err != nil {
		return nil, err
	}
	out := []ListedTransaction{}
	for _, l := range ls.Sorted() {
		out = append(out, ListedTransaction{TransactionalID: l.TxnID, ProducerID: l.ProducerID, State: l.State, Coordinator: l.Coordinator})
	}
	return out, nil
}

// DescribedTransaction is one result of DescribeTransactions.
type DescribedTransaction struct {
	TransactionalID string           `json:"transactional_id"`
	State           string           `json:"state"`
	ProducerID      int64            `json:"producer_id"`
	ProducerEpoch   int16            `json:"producer_epoch"`
	TimeoutMs       int32            `json:"timeout_ms"`
	StartTimestamp  int64            `json:"start_timestamp"` // ms; -1 when no transaction is open
	Coordinator     int32            `json:"coordinator"`
	Partitions      []TopicPartition `json:"partitions"`
	Err             *Error           `json:"error,omitempty"`
}

func (d DescribedTransaction) Key() string     { return d.TransactionalID }
func (d DescribedTransaction) Failure() *Error { return d.Err }

// DescribeTransactions describes transactional ids, in id order. An
// unknown id gets TRANSACTIONAL_ID_NOT_FOUND.
func (c *Client) DescribeTransactions(ctx context.Context, ids []string) ([]DescribedTransaction, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.describeTransactions(ctx, slices.Compact(slices.Sorted(slices.Values(ids))))
}

func (c *Client) describeTransactions(ctx context.Context, ids []string) ([]DescribedTransaction, error) {
	found := map[string]DescribedTransaction{}
	errs := retryItems(ctx, ids, func(id string) string { return id }, func(ctx context.Context, pending []string) (map[string]*Error, error) {
		ds, err := c.adm.DescribeTransactions(ctx, pending...)
		answers := map[string]*Error{}
		for _, d := range ds {
			dt := DescribedTransaction{TransactionalID: d.TxnID, State: d.State, ProducerID: d.ProducerID, ProducerEpoch: d.ProducerEpoch,
				TimeoutMs: d.TimeoutMillis, StartTimestamp: d.StartTimestamp, Coordinator: d.Coordinator, Partitions: []TopicPartition{}}
			for _, t := range d.Topics.Sorted() {
				for _, p := range t.Partitions {
					dt.Partitions = append(dt.Partitions, TopicPartition{Topic: t.Topic, Partition: p})
				}
			}
			found[d.TxnID] = dt
			answers[d.TxnID] = AsError(d.Err, d.TxnID)
		}
		if err != nil && len(answers) == 0 {
			return nil, err
		}
		return answers, nil
	})
	out := make([]DescribedTransaction, 0, len(ids))
	for _, id := range ids {
		d, ok := found[id]
		if !ok || errs[id] != nil {
			d = DescribedTransaction{TransactionalID: id, Partitions: []TopicPartition{}}
		}
		d.Err = errs[id]
		out = append(out, d)
	}
	return out, nil
}

// Producer is one active producer on a partition (DescribeProducers).
type Producer struct {
	Topic                 string `json:"topic"`
	Partition             int32  `json:"partition"`
	ProducerID            int64  `json:"producer_id"`
	ProducerEpoch         int16  `json:"producer_epoch"`
	LastSequence          int32  `json:"last_sequence"`
	LastTimestamp         int64  `json:"last_timestamp"`
	CoordinatorEpoch      int32  `json:"coordinator_epoch"`
	CurrentTxnStartOffset int64  `json:"current_txn_start_offset"` // -1 when no transaction is open
	Leader                int32  `json:"leader"`
}

// DescribeProducers lists the active producers of every partition of the
// named topics (all topics when empty), sorted by topic, partition and
// producer id. A missing topic or failing partition fails the call.
func (c *Client) DescribeProducers(ctx context.Context, topics []string) ([]Producer, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return c.describeProducers(ctx, topics)
}

func (c *Client) describeProducers(ctx context.Context, topics []string) ([]Producer, error) {
	m, err := c.metadata(ctx, slices.Compact(slices.Sorted(slices.Values(topics))))
	if err != nil {
		return nil, err
	}
	set := kadm.TopicsSet{}
	for _, t := range slices.Compact(slices.Sorted(slices.Values(topics))) {
		td, ok := m.Topics[t]
		if !ok || td.Err != nil {
			e := td.Err
			if e == nil {
				e = kerr.UnknownTopicOrPartition
			}
			return nil, AsError(e, t)
		}
	}
	for t, td := range m.Topics {
		if td.Err == nil {
			set.Add(t, td.Partitions.Numbers()...)
		}
	}
	var ds kadm.DescribedProducersTopics
	if err := retryCall(ctx, "", func(ctx context.Context) error {
		var err error
		ds, err = c.adm.DescribeProducers(ctx, set)
		if err != nil {
			return err
		}
		for _, p := range ds.SortedPartitions() {
			if p.Err != nil {
				e := AsError(p.Err, vocab.PartitionKey(p.Topic, p.Partition))
				if p.ErrMessage != "" {
					e.Message = p.ErrMessage
				}
				return e
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := []Producer{}
	for _, p := range ds.SortedProducers() {
		out = append(out, Producer{Topic: p.Topic, Partition: p.Partition, ProducerID: p.ProducerID, ProducerEpoch: p.ProducerEpoch,
			LastSequence: p.LastSequence, LastTimestamp: p.LastTimestamp, CoordinatorEpoch: p.CoordinatorEpoch,
			CurrentTxnStartOffset: p.CurrentTxnStartOffset, Leader: p.Leader})
	}
	return out, nil
}

// AbortSpec names an open transaction on one partition. ProducerEpoch and
// CoordinatorEpoch < 0 are looked up from DescribeProducers.
type AbortSpec struct {
	Topic            string
	Partition        int32
	ProducerID       int64
	ProducerEpoch    int32
	CoordinatorEpoch int32
}

// AbortedTransaction is the result of AbortTransaction.
type AbortedTransaction struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	ProducerID       int64  `json:"producer_id"`
	ProducerEpoch    int16  `json:"producer_epoch"`
	CoordinatorEpoch int32  `json:"coordinator_epoch"`
	Err              *Error `json:"error,omitempty"`
}

func (a AbortedTransaction) Key() string     { return vocab.PartitionKey(a.Topic, a.Partition) }
func (a AbortedTransaction) Failure() *Error { return a.Err }

// ResolveAbort fills a spec's missing epochs from the partition's active
// producers; it fails with NOT_FOUND when the producer has no open
// transaction there.
func (c *Client) ResolveAbort(ctx context.Context, s AbortSpec) (AbortedTransaction, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	a := AbortedTransaction{Topic: s.Topic, Partition: s.Partition, ProducerID: s.ProducerID,
		ProducerEpoch: int16(s.ProducerEpoch), CoordinatorEpoch: s.CoordinatorEpoch}
	if s.ProducerEpoch >= 0 && s.CoordinatorEpoch >= 0 {
		return a, nil
	}
	ps, err := c.describeProducers(ctx, []string{s.Topic})
	if err != nil {
		return a, err
	}
	for _, p := range ps {
		if p.Partition == s.Partition && p.ProducerID == s.ProducerID && p.CurrentTxnStartOffset >= 0 {
			if s.ProducerEpoch < 0 {
				a.ProducerEpoch = p.ProducerEpoch
			}
			if s.CoordinatorEpoch < 0 {
				a.CoordinatorEpoch = p.CoordinatorEpoch
			}
			return a, nil
		}
	}
	return a, Errorf(CodeNotFound, a.Key(), "producer %d has no open transaction on this partition", s.ProducerID)
}

// AbortTransaction writes an abort marker for a producer's open
// transaction on one partition (WriteTxnMarkers, as kafka-transactions.sh
// abort does). Writing the same abort twice is harmless, so retriable
// failures are retried.
func (c *Client) AbortTransaction(ctx context.Context, a AbortedTransaction) (AbortedTransaction, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	return mutate(ctx, c, mutation[struct{}, AbortedTransaction]{
		op: "abort_transaction", keys: []string{a.Key()}, args: a,
		send:  func(ctx context.Context, _ struct{}) (AbortedTransaction, error) { return c.abortTxn(ctx, a), nil },
		items: func(a AbortedTransaction) []Item { return []Item{a} },
	})
}

func (c *Client) abortTxn(ctx context.Context, a AbortedTransaction) AbortedTransaction {
	a.Err = retryCall(ctx, a.Key(), func(ctx context.Context) error {
		m := kadm.TxnMarkers{ProducerID: a.ProducerID, ProducerEpoch: a.ProducerEpoch, CoordinatorEpoch: a.CoordinatorEpoch}
		m.Topics.Add(a.Topic, a.Partition)
		rs, err := c.adm.WriteTxnMarkers(ctx, m)
		if err != nil {
			return err
		}
		for _, p := range rs.SortedPartitions() {
			if p.Err != nil {
				return p.Err
			}
		}
		return nil
	})
	return a
}

// HangingOptions filter FindHangingTransactions.
type HangingOptions struct {
	Topics  []string      // all topics when empty
	Brokers []int32       // only partitions led by these brokers
	MaxAge  time.Duration // older than this (default 15m)
}

// HangingTransaction is an open transaction on a partition that its
// coordinator does not know as ongoing.
type HangingTransaction struct {
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	ProducerID       int64  `json:"producer_id"`
	ProducerEpoch    int16  `json:"producer_epoch"`
	CoordinatorEpoch int32  `json:"coordinator_epoch"`
	StartOffset      int64  `json:"start_offset"`
	LastTimestamp    int64  `json:"last_timestamp"`
	TransactionalID  string `json:"transactional_id,omitempty"` // when the coordinator knows the producer
	Reason           string `json:"reason"`
}

// FindHangingTransactions finds transactions left open on partitions, as
// kafka-transactions.sh find-hanging does: producers with an open
// transaction whose last write is older than MaxAge and whose coordinator
// does not have that transaction ongoing on that partition.
func (c *Client) FindHangingTransactions(ctx context.Context, o HangingOptions, now time.Time) ([]HangingTransaction, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	if o.MaxAge == 0 {
		o.MaxAge = 15 * time.Minute
	}
	ps, err := c.describeProducers(ctx, o.Topics)
	if err != nil {
		return nil, err
	}
	var cands []Producer
	var pids []int64
	for _, p := range ps {
		if p.CurrentTxnStartOffset < 0 || now.Sub(time.UnixMilli(p.LastTimestamp)) < o.MaxAge {
			continue
		}
		if len(o.Brokers) > 0 && !slices.Contains(o.Brokers, p.Leader) {
			continue
		}
		cands = append(cands, p)
		pids = append(pids, p.ProducerID)
	}
	out := []HangingTransaction{}
	if len(cands) == 0 {
		return out, nil
	}
	listed, err := c.listTransactions(ctx, ListTransactionsOptions{ProducerIDs: pids})
	if err != nil {
		return nil, err
	}
	idOf := map[int64]string{}
	var ids []string
	for _, l := range listed {
		idOf[l.ProducerID] = l.TransactionalID
		ids = append(ids, l.TransactionalID)
	}
	described := map[string]DescribedTransaction{}
	if len(ids) > 0 {
		ds, err := c.describeTransactions(ctx, slices.Compact(slices.Sorted(slices.Values(ids))))
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			described[d.TransactionalID] = d
		}
	}
	for _, p := range cands {
		h := HangingTransaction{Topic: p.Topic, Partition: p.Partition, ProducerID: p.ProducerID, ProducerEpoch: p.ProducerEpoch,
			CoordinatorEpoch: p.CoordinatorEpoch, StartOffset: p.CurrentTxnStartOffset, LastTimestamp: p.LastTimestamp}
		id, known := idOf[p.ProducerID]
		d := described[id]
		switch {
		case !known:
			h.Reason = "no transactional id of the coordinators uses this producer id"
		case d.Err != nil:
			h.TransactionalID, h.Reason = id, "the coordinator cannot describe it: "+d.Err.Code
		case d.ProducerID != p.ProducerID || d.ProducerEpoch != p.ProducerEpoch && d.State == "Ongoing":
			h.TransactionalID, h.Reason = id, "the transactional id moved on to another producer id or epoch"
		case !strings.EqualFold(d.State, "Ongoing"):
			h.TransactionalID, h.Reason = id, "the transactional id is "+d.State+", not Ongoing"
		case !slices.Contains(d.Partitions, TopicPartition{Topic: p.Topic, Partition: p.Partition}):
			h.TransactionalID, h.Reason = id, "the ongoing transaction does not include this partition"
		default:
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// FencedProducer is one result of FenceProducers.
type FencedProducer struct {
	TransactionalID string `json:"transactional_id"`
	ProducerID      int64  `json:"producer_id"`
	ProducerEpoch   int16  `json:"producer_epoch"`
	Err             *Error `json:"error,omitempty"`
}

func (f FencedProducer) Key() string     { return f.TransactionalID }
func (f FencedProducer) Failure() *Error { return f.Err }

// FenceProducers bumps each transactional id's producer epoch
// (InitProducerId, as Admin.fenceProducers does): the producer using it is
// fenced and its open transaction aborted. Fencing twice only bumps the
// epoch again, so retriable failures (CONCURRENT_TRANSACTIONS while the
// coordinator aborts, NOT_COORDINATOR...) are retried.
func (c *Client) FenceProducers(ctx context.Context, ids []string) ([]FencedProducer, error) {
	ctx, cancel := c.callCtx(ctx)
	defer cancel()
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	return mutate(ctx, c, mutation[struct{}, []FencedProducer]{
		op: "fence_producers", keys: ids,
		args: struct {
			TransactionalIDs []string `json:"transactional_ids"`
		}{ids},
		send:  func(ctx context.Context, _ struct{}) ([]FencedProducer, error) { return c.fence(ctx, ids), nil },
		items: asItems[FencedProducer],
	})
}

func (c *Client) fence(ctx context.Context, ids []string) []FencedProducer {
	out := make([]FencedProducer, 0, len(ids))
	for _, id := range ids {
		f := FencedProducer{TransactionalID: id}
		f.Err = retryCall(ctx, id, func(ctx context.Context) error {
			req := kmsg.NewPtrInitProducerIDRequest()
			req.TransactionalID = &id
			req.TransactionTimeoutMillis = 60000
			req.ProducerID, req.ProducerEpoch = -1, -1
			resp, err := req.RequestWith(ctx, c.kgo)
			if err != nil {
				return err
			}
			if e := kafkaErr(resp.ErrorCode, nil, id); e != nil {
				// kerr calls CONCURRENT_TRANSACTIONS final; it is not
				// (Java's is a RetriableException): a real broker answers
				// it while it aborts the fenced producer's open
				// transaction, and the retry then bumps the epoch.
				if resp.ErrorCode == kerr.ConcurrentTransactions.Code {
					e.Retriable = true
				}
				return e
			}
			f.ProducerID, f.ProducerEpoch = resp.ProducerID, resp.ProducerEpoch
			return nil
		})
		out = append(out, f)
	}
	return out
}
