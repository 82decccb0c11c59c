package luaapi

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	lua "github.com/yuin/gopher-lua"
)

// exactTxnID returns prefix-N whose kfake producer id (an FNV-64 hash of
// the transactional id) fits a Lua number exactly, as real Kafka's small
// producer ids do.
func exactTxnID(prefix string) string {
	for i := 0; ; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		h := fnv.New64()
		h.Write([]byte(id))
		if int64(h.Sum64())&math.MaxInt64 < 1<<53 {
			return id
		}
	}
}

// openTxn starts a transactional producer, writes one record to topic
// partition 0 and leaves the transaction open.
func openTxn(e *env, txnID, topic string) *kgo.Client {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...), kgo.TransactionalID(txnID),
		kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(e.t, err)
	e.t.Cleanup(cl.Close)
	require.NoError(e.t, cl.BeginTransaction())
	require.NoError(e.t, cl.ProduceSync(e.ctx(), &kgo.Record{Value: []byte("v"), Partition: 0}).FirstErr())
	return cl
}

func num(v lua.LValue) int64 { return int64(v.(lua.LNumber)) }

func TestTransactionsListDescribeAndProducers(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "tx", partitions = 2}}`)
	id := exactTxnID("tx")
	openTxn(e, id, "tx")
	e.run(`tx1 = "` + id + `"`)
	e.run(`
		local l = list_transactions()
		assert(#l == 1 and l[1].transactional_id == tx1, kafka.json.encode(l))
		assert(l[1].state == "Ongoing", l[1].state)
		pid = l[1].producer_id
		assert(#list_transactions{states = {"CompleteCommit"}} == 0)
		assert(#list_transactions{producer_ids = {pid}} == 1)
		assert(#list_transactions{producer_ids = {pid + 1}} == 0)

		local d = describe_transactions(tx1)[1]
		assert(d.producer_id == pid and d.state == "Ongoing")
		assert(#d.partitions == 1 and d.partitions[1].topic == "tx" and d.partitions[1].partition == 0)
		assert(d.start_timestamp > 0)

		local p = describe_producers("tx")
		assert(#p == 1, #p)
		assert(p[1].topic == "tx" and p[1].partition == 0 and p[1].producer_id == pid)
		assert(p[1].current_txn_start_offset == 0, p[1].current_txn_start_offset)
	`)
	// The independent client sees the same transaction.
	ds, err := e.adm.DescribeTransactions(e.ctx(), id)
	require.NoError(t, err)
	assert.Equal(t, num(e.run(`return pid`)), ds[id].ProducerID)

	re := e.runErr(`describe_transactions{tx1, "nope"}`)
	assert.Equal(t, "TRANSACTIONAL_ID_NOT_FOUND", re.Code)
	assert.Contains(t, re.Message, "describe_transactions: nope:")
	re = e.runErr(`describe_producers("missing")`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	re = e.runErr(`list_transactions{producer_ids = "x"}`)
	assert.Contains(t, re.Message, `list_transactions: options: producer_ids must be an array of integers, got "x"`)
	re = e.runErr(`describe_producers()`)
	assert.Contains(t, re.Message, `describe_producers: topics: is required`)
}

func TestAbortTransactionWritesMarker(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "tx", partitions = 1}}`)
	openTxn(e, exactTxnID("tx-abort"), "tx")
	lso, err := e.adm.ListCommittedOffsets(e.ctx(), "tx")
	require.NoError(t, err)
	o, _ := lso.Lookup("tx", 0)
	require.Equal(t, int64(0), o.Offset, "the open transaction holds the LSO")
	var sent *kmsg.WriteTxnMarkersRequest
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.WriteTxnMarkers}, Observe: true, Count: -1, When: func(r kmsg.Request) bool {
		sent = r.(*kmsg.WriteTxnMarkersRequest)
		return true
	}})
	defer h.Remove()
	e.run(`
		local p = describe_producers("tx")[1]
		local r = abort_transaction{topic = "tx", partition = 0, producer_id = p.producer_id}
		assert(r.producer_epoch == p.producer_epoch and r.coordinator_epoch == p.coordinator_epoch)
		assert(r.error == nil)
	`)
	require.NotNil(t, sent)
	require.Len(t, sent.Markers, 1)
	assert.False(t, sent.Markers[0].Committed)
	// The partition's last stable offset moved past the aborted
	// transaction (kfake's DescribeProducers follows the coordinator, which
	// still has it open, so the marker's effect is checked this way).
	lso, err = e.adm.ListCommittedOffsets(e.ctx(), "tx")
	require.NoError(t, err)
	o, _ = lso.Lookup("tx", 0)
	assert.Equal(t, int64(2), o.Offset, "record + abort marker are below the LSO")
	re := e.runErr(`abort_transaction{topic = "tx", partition = 0, producer_id = 12345}`)
	assert.Equal(t, "NOT_FOUND", re.Code)
	re = e.runErr(`abort_transaction{topic = "tx", partition = 0}`)
	assert.Contains(t, re.Message, `abort_transaction: argument #1: producer_id is required`)
	re = e.runErr(`abort_transaction{topic = "tx", partition = 0, producer_id = 1, epoch = 2}`)
	assert.Contains(t, re.Message, `abort_transaction: argument #1: unknown key "epoch"`)
}

func TestFenceProducersFencesTheOldProducer(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "tx", partitions = 1}}`)
	old := openTxn(e, "tx-fence", "tx")
	before, err := e.adm.DescribeTransactions(e.ctx(), "tx-fence")
	require.NoError(t, err)
	e.run(`
		local r = fence_producers("tx-fence")
		assert(#r == 1 and r[1].transactional_id == "tx-fence" and r[1].producer_epoch >= 0)
	`)
	after, err := e.adm.DescribeTransactions(e.ctx(), "tx-fence")
	require.NoError(t, err)
	assert.Greater(t, after["tx-fence"].ProducerEpoch, before["tx-fence"].ProducerEpoch)
	err = old.EndTransaction(context.Background(), kgo.TryCommit)
	assert.Error(t, err, "the fenced producer cannot commit")

	e.run(`kafka.dry_run(true); local r = fence_producers{"a", "b"}; assert(#r == 2 and r[1].dry_run)`)
	assert.Contains(t, e.stderr.String(), "dry-run: fence_producers: fence the producer of transactional id a")
}

func TestFindHangingTransactions(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "tx", partitions = 1}}`)
	openTxn(e, exactTxnID("tx-live"), "tx")
	// An ongoing transaction is not hanging, however old.
	assert.Equal(t, `[]`, e.json(`return find_hanging_transactions{max_age_ms = 0}`))
	// Make the coordinators forget the producer: now it hangs.
	e.cluster.ControlKey(int16(kmsg.ListTransactions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		return r.(*kmsg.ListTransactionsRequest).ResponseKind(), nil, true
	})
	out := e.json(`return find_hanging_transactions{max_age_ms = 0, topics = {"tx"}}`)
	assert.Contains(t, out, `"reason":"no transactional id of the coordinators uses this producer id"`)
	assert.Contains(t, out, `"topic":"tx"`)
	// Younger than the default 15 minutes: not a candidate.
	assert.Equal(t, `[]`, e.json(`return find_hanging_transactions()`))
	// Led by another broker only.
	leader := e.cluster.LeaderFor("tx", 0)
	assert.Equal(t, `[]`, e.json(fmt.Sprintf(`return find_hanging_transactions{max_age_ms = 0, brokers = {%d}}`, leader+100)))
	re := e.runErr(`find_hanging_transactions{max_age_ms = -1}`)
	assert.Contains(t, re.Message, `find_hanging_transactions: options: max_age_ms must be a non-negative integer, got -1`)
}

// Real Kafka answers InitProducerId with CONCURRENT_TRANSACTIONS while it
// aborts the open transaction of the producer being fenced (seen on 4.1.2,
// integration/single): fence_producers retries it.
func TestFenceProducersRetriesConcurrentTransactions(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "tx", partitions = 1}}`)
	openTxn(e, "tx-busy", "tx")
	e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.InitProducerID}, Err: kerr.ConcurrentTransactions, Count: 2})
	e.run(`
		local r = fence_producers("tx-busy")
		assert(#r == 1 and r[1].error == nil and r[1].producer_epoch >= 0)
	`)
	d, err := e.adm.DescribeTransactions(e.ctx(), "tx-busy")
	require.NoError(t, err)
	assert.Greater(t, d["tx-busy"].ProducerEpoch, int16(0))
}
