package luaapi

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_transactions", Area: "txn", Args: "([{states=, producer_ids=, pattern=}])",
			Returns: "{{transactional_id=, producer_id=, state=, coordinator=}...}",
			Summary: "List transactional ids known to the transaction coordinators.",
			Doc:     `states keeps only those states ("Ongoing", "PrepareCommit", "CompleteAbort", "Empty", ...); producer_ids keeps only those producer ids; pattern is an RE2 expression on the transactional id (Kafka 4.1+; older brokers ignore it).`,
			Example: `for _, t in ipairs(list_transactions{states = {"Ongoing"}}) do print(t.transactional_id, t.producer_id) end`,
			Run:     listTransactions},
		&Func{Name: "describe_transactions", Area: "txn", Args: "(ids)",
			Returns: "{{transactional_id=, state=, producer_id=, producer_epoch=, timeout_ms=, start_timestamp=, coordinator=, partitions={{topic=, partition=}...}}...}",
			Summary: "Describe transactional ids: state, producer and the partitions of the open transaction.",
			Doc:     "ids is a transactional id or an array. An unknown id fails with TRANSACTIONAL_ID_NOT_FOUND (see err.results, or pass {partial=true}). start_timestamp is -1 when no transaction is open.",
			Example: `local ok, err = pcall(describe_transactions, "payments-tx")
print(ok or err.code)`,
			Run: describeTransactions},
		&Func{Name: "describe_producers", Area: "txn", Args: "(topics)",
			Returns: "{{topic=, partition=, producer_id=, producer_epoch=, last_sequence=, last_timestamp=, coordinator_epoch=, current_txn_start_offset=, leader=}...}",
			Summary: "List the active producers of every partition of the topics.",
			Doc:     "topics is a topic name or an array of names; every partition is asked. current_txn_start_offset is the first offset of the producer's open transaction, -1 when none is open.",
			Example: `for _, p in ipairs(describe_producers("orders")) do print(p.partition, p.producer_id, p.current_txn_start_offset) end`,
			Run:     describeProducers},
		&Func{Name: "abort_transaction", Area: "txn", Mutating: true, Destructive: true,
			Args:    "{topic=, partition=, producer_id=, [producer_epoch=], [coordinator_epoch=]}",
			Returns: "{topic=, partition=, producer_id=, producer_epoch=, coordinator_epoch=, error=}",
			Summary: "Abort a producer's open transaction on one partition (writes an abort marker).",
			Doc: `Like kafka-transactions.sh abort: a WriteTxnMarkers abort for the producer on that partition, for a transaction left hanging (see find_hanging_transactions). The records of the transaction are discarded for read_committed consumers.
producer_epoch and coordinator_epoch default to the producer's current ones from describe_producers. Producer ids are exact as Lua numbers below 2^53 (Kafka's are); a larger one can be given as a string. Under --dry-run nothing is written; the epochs are still looked up.`,
			Example: `for _, h in ipairs(find_hanging_transactions()) do
  abort_transaction{topic = h.topic, partition = h.partition, producer_id = h.producer_id}
end`,
			Run: abortTransaction},
		&Func{Name: "find_hanging_transactions", Area: "txn", Args: "([{topics=, brokers=, max_age_ms=}])",
			Returns: "{{topic=, partition=, producer_id=, producer_epoch=, coordinator_epoch=, start_offset=, last_timestamp=, transactional_id=, reason=}...}",
			Summary: "Find transactions left open on partitions that their coordinator has forgotten.",
			Doc: `Like kafka-transactions.sh find-hanging: producers with an open transaction on a partition (describe_producers) whose last write is older than max_age_ms (default 15 minutes) and whose transactional id is not ongoing on that partition per list_transactions / describe_transactions. Such a transaction holds back the last stable offset (read_committed consumers stall) until aborted with abort_transaction.
topics defaults to all topics; brokers keeps partitions led by those brokers.`,
			Example: `for _, h in ipairs(find_hanging_transactions{max_age_ms = 60000}) do print(h.topic, h.partition, h.producer_id, h.reason) end`,
			Run:     findHanging},
		&Func{Name: "fence_producers", Area: "txn", Mutating: true, Destructive: true,
			Args:    "(transactional_ids[, {partial=}])",
			Returns: "{{transactional_id=, producer_id=, producer_epoch=, error=}...}",
			Summary: "Fence the producers using transactional ids (bump their epoch; open transactions abort).",
			Doc:     "Like Admin.fenceProducers: an InitProducerId for each transactional id bumps its producer epoch, so the producer using it fails its next transactional call with an epoch error and its open transaction is aborted. Under --dry-run nothing is sent.",
			Example: `fence_producers("stuck-producer")`,
			Run:     fenceProducers},
	)
}

func listTransactions(c *Call) (any, error) {
	f, err := c.Options(1, "states", "producer_ids", "pattern")
	if err != nil {
		return nil, err
	}
	o := engine.ListTransactionsOptions{States: f.strings("states"), Pattern: f.str("pattern", false)}
	o.ProducerIDs = int64List(f, "producer_ids")
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListTransactions(c.Ctx(), o)
}

// int64List reads an optional number or array of numbers.
func int64List(f *fields, key string) []int64 {
	v := f.get(key)
	if v == lua.LNil {
		return nil
	}
	if n, ok := toInt(v); ok {
		return []int64{n}
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		f.fail(key, "must be an array of integers, got %s", describe(v))
		return nil
	}
	var out []int64
	for i := 1; i <= t.Len(); i++ {
		n, ok := toInt(t.RawGetInt(i))
		if !ok {
			f.fail(key, "must be an array of integers, got %s at #%d", describe(t.RawGetInt(i)), i)
			return nil
		}
		out = append(out, n)
	}
	return out
}

func describeTransactions(c *Call) (any, error) {
	return namesCall(c, "ids", false, func(cl *engine.Client, ids []string) (any, error) {
		return cl.DescribeTransactions(c.Ctx(), ids)
	})
}

func describeProducers(c *Call) (any, error) {
	topics, err := c.Strings(1, "topics", false)
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeProducers(c.Ctx(), topics)
}

func abortTransaction(c *Call) (any, error) {
	f := newFields(c.Arg(1), "argument #1", "topic", "partition", "producer_id", "producer_epoch", "coordinator_epoch")
	s := engine.AbortSpec{Topic: f.str("topic", true), Partition: int32(f.integer("partition", 0, 0)),
		ProducerID: f.integer("producer_id", 0, -1), ProducerEpoch: int32(f.integer("producer_epoch", 0, -1)),
		CoordinatorEpoch: int32(f.integer("coordinator_epoch", 0, -1))}
	for _, k := range []string{"partition", "producer_id"} {
		if f.err == nil && !f.has(k) {
			f.fail(k, "is required")
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	a, err := cl.ResolveAbort(c.Ctx(), s)
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		c.Plan("abort producer %d (epoch %d) on %s", a.ProducerID, a.ProducerEpoch, a.Key())
		return a, nil
	}
	res, err := cl.AbortTransaction(c.Ctx(), a)
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, res.Err
	}
	return res, nil
}

func findHanging(c *Call) (any, error) {
	f, err := c.Options(1, "topics", "brokers", "max_age_ms")
	if err != nil {
		return nil, err
	}
	o := engine.HangingOptions{Topics: f.strings("topics"),
		MaxAge: time.Duration(f.integer("max_age_ms", 0, 15*60*1000)) * time.Millisecond}
	for _, b := range int64List(f, "brokers") {
		o.Brokers = append(o.Brokers, int32(b))
	}
	if o.MaxAge == 0 {
		o.MaxAge = time.Nanosecond // 0 means "any age"
	}
	if f.err != nil {
		return nil, f.err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.FindHangingTransactions(c.Ctx(), o, time.Now())
}

func fenceProducers(c *Call) (any, error) {
	return namesCall(c, "transactional_ids", false, func(cl *engine.Client, ids []string) (any, error) {
		if !c.DryRun() {
			return cl.FenceProducers(c.Ctx(), ids)
		}
		var out []engine.FencedProducer
		for _, id := range dedup(ids) {
			c.Plan("fence the producer of transactional id %s", id)
			out = append(out, engine.FencedProducer{TransactionalID: id, ProducerID: -1, ProducerEpoch: -1})
		}
		return out, nil
	})
}
