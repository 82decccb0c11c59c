package luaapi

import (
	"slices"
	"time"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_transactions", Area: "txn",
			Options: []Field{
				{Name: "states", Type: List[string](Enum(transactionStates...)), Doc: "keep only transactions in these states"},
				{Name: "producer_ids", Type: List[int64](producerID), Doc: "keep only these producer ids"},
				{Name: "pattern", Type: Str(), Doc: "keep only transactional ids matching this regular expression (Kafka 4.1+)"},
			},
			Returns: "{{transactional_id=string, producer_id=int, state=string, coordinator=int}...}",
			Summary: "List transactional ids known to the transaction coordinators.",
			Doc:     `states keeps only those states ("Ongoing", "PrepareCommit", "CompleteAbort", "Empty", ...); producer_ids keeps only those producer ids; pattern is an RE2 expression on the transactional id (Kafka 4.1+; older brokers ignore it).`,
			Example: `for _, t in ipairs(list_transactions{states = {"Ongoing"}}) do print(t.transactional_id, t.producer_id) end`,
			Run:     listTransactions},
		&Func{Name: "describe_transactions", Area: "txn", Batch: true,
			Params:  []Param{{Name: "ids", Type: transactionalIDs, Doc: "the transactional ids to describe"}},
			Returns: "{{transactional_id=string, state=string, producer_id=int, producer_epoch=int, timeout_ms=int, start_timestamp=time, coordinator=int, partitions={{topic=string, partition=int}...}, error=error?}...}",
			Summary: "Describe transactional ids: state, producer and the partitions of the open transaction.",
			Doc:     "ids is a transactional id or an array. An unknown id fails with TRANSACTIONAL_ID_NOT_FOUND (see err.results, or pass {partial=true}). start_timestamp is -1 when no transaction is open.",
			Example: `local ok, err = pcall(describe_transactions, "payments-tx")
print(ok or err.code)`,
			Run: describeTransactions},
		&Func{Name: "describe_producers", Area: "txn",
			Params:  []Param{{Name: "topics", Type: topicNames.NonEmpty(), Doc: "the topics whose partitions to ask"}},
			Returns: "{{topic=string, partition=int, producer_id=int, producer_epoch=int, last_sequence=int, last_timestamp=time, coordinator_epoch=int, current_txn_start_offset=int, leader=int}...}",
			Summary: "List the active producers of every partition of the topics.",
			Doc:     "topics is a topic name or an array of names; every partition is asked. current_txn_start_offset is the first offset of the producer's open transaction, -1 when none is open.",
			Example: `for _, p in ipairs(describe_producers("orders")) do print(p.partition, p.producer_id, p.current_txn_start_offset) end`,
			Run:     describeProducers},
		&Func{Name: "abort_transaction", Area: "txn", TableCall: true,
			Options: []Field{
				{Name: "topic", Type: topicName, Required: true, Doc: "the partition's topic"},
				{Name: "partition", Type: partitionNum, Required: true, Doc: "the partition holding the open transaction"},
				{Name: "producer_id", Type: producerID, Required: true, Doc: "the producer whose transaction to abort (a string for ids beyond 2^53)"},
				{Name: "producer_epoch", Type: producerEpoch, Doc: "default (or -1): the producer's current epoch, from describe_producers"},
				{Name: "coordinator_epoch", Type: Int32(-1).Named("coordinator epoch"), Doc: "default (or -1): the producer's current coordinator epoch"},
			},
			Returns: "{topic=string, partition=int, producer_id=int, producer_epoch=int, coordinator_epoch=int, error=error?}",
			Summary: "Abort a producer's open transaction on one partition (writes an abort marker).",
			Doc: `Like kafka-transactions.sh abort: a WriteTxnMarkers abort for the producer on that partition, for a transaction left hanging (see find_hanging_transactions). The records of the transaction are discarded for read_committed consumers.
producer_epoch and coordinator_epoch default to the producer's current ones from describe_producers. Producer ids are exact as Lua numbers below 2^53 (Kafka's are); a larger one can be given as a string. Under --dry-run nothing is written; the epochs are still looked up.`,
			Example: `for _, h in ipairs(find_hanging_transactions()) do
  abort_transaction{topic = h.topic, partition = h.partition, producer_id = h.producer_id}
end`,
			Run: abortTransaction},
		&Func{Name: "find_hanging_transactions", Area: "txn",
			Options: []Field{
				{Name: "topics", Type: topicNames, Doc: "look only at these topics (default: every topic)"},
				{Name: "brokers", Type: brokerIDList, Doc: "look only at partitions led by these brokers"},
				{Name: "max_age_ms", Type: Int64(0).Between(0, maxDurationMillis).Named("maximum age in ms"), Doc: "only transactions whose last write is older than this (default 15 minutes; 0: any age)"},
			},
			Returns: "{{topic=string, partition=int, producer_id=int, producer_epoch=int, coordinator_epoch=int, start_offset=int, last_timestamp=time, transactional_id=string?, reason=string}...}",
			Summary: "Find transactions left open on partitions that their coordinator has forgotten.",
			Doc: `Like kafka-transactions.sh find-hanging: producers with an open transaction on a partition (describe_producers) whose last write is older than max_age_ms (default 15 minutes) and whose transactional id is not ongoing on that partition per list_transactions / describe_transactions. Such a transaction holds back the last stable offset (read_committed consumers stall) until aborted with abort_transaction.
topics defaults to all topics; brokers keeps partitions led by those brokers.`,
			Example: `for _, h in ipairs(find_hanging_transactions{max_age_ms = 60000}) do print(h.topic, h.partition, h.producer_id, h.reason) end`,
			Run:     findHanging},
		&Func{Name: "fence_producers", Area: "txn", Batch: true,
			Params:  []Param{{Name: "transactional_ids", Type: transactionalIDs, Doc: "the transactional ids whose producers to fence"}},
			Returns: "{{transactional_id=string, producer_id=int, producer_epoch=int, error=error?}...}",
			Summary: "Fence the producers using transactional ids (bump their epoch; open transactions abort).",
			Doc:     "Like Admin.fenceProducers: an InitProducerId for each transactional id bumps its producer epoch, so the producer using it fails its next transactional call with an epoch error and its open transaction is aborted. Under --dry-run nothing is sent.",
			Example: `fence_producers("stuck-producer")`,
			Run:     fenceProducers},
	)
}

// transactionStates are the states Kafka's transaction coordinator
// knows: a filter with another name would match nothing.
var transactionStates = []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// transactionalIDs is a transactional id or an array of them.
var transactionalIDs = List[string](NonEmptyStr().Checked("transactional id", nil).Sample("tx")).NonEmpty()

func listTransactions(c *Call) (any, error) {
	o := engine.ListTransactionsOptions{States: param[[]string](c, "states"), ProducerIDs: param[[]int64](c, "producer_ids"),
		Pattern: param[string](c, "pattern")}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListTransactions(c.Ctx(), o)
}

func describeTransactions(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeTransactions(c.Ctx(), param[[]string](c, "ids"))
}

func describeProducers(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeProducers(c.Ctx(), param[[]string](c, "topics"))
}

func abortTransaction(c *Call) (any, error) {
	s := engine.AbortSpec{Topic: param[string](c, "topic"), Partition: param[int32](c, "partition"),
		ProducerID: param[int64](c, "producer_id"), ProducerEpoch: -1, CoordinatorEpoch: -1}
	if c.Given("producer_epoch") {
		s.ProducerEpoch = int32(param[int16](c, "producer_epoch"))
	}
	if c.Given("coordinator_epoch") {
		s.CoordinatorEpoch = param[int32](c, "coordinator_epoch")
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
	o := engine.HangingOptions{Topics: param[[]string](c, "topics"), Brokers: param[[]int32](c, "brokers"),
		MaxAge: 15 * time.Minute}
	if c.Given("max_age_ms") {
		o.MaxAge = time.Duration(param[int64](c, "max_age_ms")) * time.Millisecond
	}
	if o.MaxAge == 0 {
		o.MaxAge = time.Nanosecond // 0 means "any age"
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.FindHangingTransactions(c.Ctx(), o, time.Now())
}

func fenceProducers(c *Call) (any, error) {
	ids := param[[]string](c, "transactional_ids")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	if !c.DryRun() {
		return cl.FenceProducers(c.Ctx(), ids)
	}
	var out []engine.FencedProducer
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		c.Plan("fence the producer of transactional id %s", id)
		out = append(out, engine.FencedProducer{TransactionalID: id, ProducerID: -1, ProducerEpoch: -1})
	}
	return out, nil
}
