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
	assert.Contains(t, re.Message, `list_transactions: options: producer_ids: must be a producer id between 0 and 9223372036854775807, got "x"`)
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
	assert.Contains(t, re.Message, `abort_transaction: producer_id: is required`)
	re = e.runErr(`abort_transaction{topic = "tx", partition = 0, producer_id = 1, epoch = 2}`)
	assert.Contains(t, re.Message, `abort_transaction: unknown key "epoch"`)
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
	assert.Contains(t, re.Message, `find_hanging_transactions: options: max_age_ms: must be a maximum age in ms between 0 and 9223372036854, got -1`)
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

// Issue 7: producer ids are int64, epochs int16, states checked against
// the coordinator's names (a typo would filter everything out); nothing is
// sent when a call is refused.
func TestTransactionArgumentsRefusedBeforeSending(t *testing.T) {
	e, auditPath := auditedEnv(t)
	e.run(`create_topics{{name = "tx", partitions = 1}}`)
	openTxn(e, exactTxnID("tx-args"), "tx")
	before, err := e.adm.ListCommittedOffsets(e.ctx(), "tx")
	require.NoError(t, err)
	refusedBeforeSending(t, e, auditPath, map[string]string{
		`abort_transaction{topic = "tx", partition = 0, producer_id = 2^63}`:                       `abort_transaction: producer_id: must be a producer id between 0 and 9223372036854775807, got 9.223372036854776e+18`,
		`abort_transaction{topic = "tx", partition = 0, producer_id = 1, producer_epoch = 2^15}`:   `abort_transaction: producer_epoch: must be a producer epoch between -1 and 32767, got 32768`,
		`abort_transaction{topic = "tx", partition = 2^32, producer_id = 1}`:                       `abort_transaction: partition: must be a partition between 0 and 2147483647, got 4294967296`,
		`abort_transaction{topic = "tx", partition = 0, producer_id = 1, coordinator_epoch = 0/0}`: `abort_transaction: coordinator_epoch: must be a coordinator epoch between -1 and 2147483647, got NaN`,
		`abort_transaction{topic = "tx", partition = 0, producer_id = 1, producer_epch = 1}`:       `abort_transaction: unknown key "producer_epch" (did you mean "producer_epoch"?)`,
		`abort_transaction({topic = "tx", partition = 0, producer_id = 1}, {})`:                    `abort_transaction: takes at most 1 argument`,
		`list_transactions{states = {"Ongoin"}}`:                                                   `list_transactions: options: states #1: must be "Empty", "Ongoing",`,
		`list_transactions{producer_ids = {2^63}}`:                                                 `list_transactions: options: producer_ids #1: must be a producer id`,
		`find_hanging_transactions{brokers = {2^32 + 1}}`:                                          `find_hanging_transactions: options: brokers #1: must be a broker id between 0 and 2147483647, got 4294967297`,
		`find_hanging_transactions{max_age_ms = math.huge}`:                                        `find_hanging_transactions: options: max_age_ms: must be a maximum age in ms`,
		`fence_producers({"tx-args"}, {partial = "no"})`:                                           `fence_producers: options: partial: must be true or false, got "no"`,
		`fence_producers({})`:            `fence_producers: transactional_ids: must name at least one`,
		`describe_transactions({""})`:    `describe_transactions: ids #1: must not be empty`,
		`describe_producers({"tx"}, {})`: `describe_producers: takes at most 1 argument`,
	})
	after, err := e.adm.ListCommittedOffsets(e.ctx(), "tx")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the open transaction was not aborted")
	// The filter names are case-insensitive and given to Kafka as it spells them.
	e.run(`assert(#list_transactions{states = {"ongoing"}} == 1)`)
	re := e.runErr(`list_transactions{states = {"Ongoin"}}`)
	assert.Contains(t, re.Message, `(did you mean "Ongoing"?)`)
}
