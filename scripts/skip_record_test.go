package scripts_test

import (
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/internal/testbomb"
)

// A consumer stuck on a decompression bomb (8 MiB of zeros in 8 KiB of
// gzip, past a bound of 1 MiB per batch: 64 MiB by default) behind a
// record without a timestamp: skip-record shows the first
// as "no timestamp" (not 1969) and the bomb by its offsets and
// DECOMPRESS_LIMIT, without decompressing it whole, and skips both.
func TestSkipRecordPastABombAndAMissingTimestamp(t *testing.T) {
	e := newEnv(t)
	e.decompress = engine.DecompressLimits{Batch: 1 << 20}
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "poison")
	require.NoError(t, err)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...))
	require.NoError(t, err)
	defer kc.Close()
	off, err := testbomb.Produce(e.ctx(), kc, "poison", 0, 5, -1)
	require.NoError(t, err)
	require.EqualValues(t, 0, off)
	off, err = testbomb.Produce(e.ctx(), kc, "poison", 0, 8<<20, 1_780_000_000_000)
	require.NoError(t, err)
	require.EqualValues(t, 1, off)
	_, err = e.adm.CommitOffsets(e.ctx(), "stuck", kadm.Offsets{"poison": {0: {Topic: "poison", Partition: 0, At: 0, LeaderEpoch: -1}}})
	require.NoError(t, err)

	r := e.ok(true, "skip-record.lua", "stuck", "poison", "0", "--count", "2")
	require.Len(t, r.rows, 2)
	assert.Equal(t, -1.0, r.rows[0]["timestamp"])
	assert.Contains(t, r.stderr, "dry-run: stuck: would skip poison[0] offset 0: key null, 5 bytes, 0 headers, CreateTime no timestamp (-1)")
	assert.Equal(t, 1.0, r.rows[1]["offset"])
	assert.Contains(t, r.rows[1]["error"], "DECOMPRESS_LIMIT: poison[0]: the record batch at offsets 1 to 1 decompresses to more than 1.0 MiB")
	assert.Contains(t, r.stderr, "dry-run: stuck: would skip poison[0] offset 1, not read: DECOMPRESS_LIMIT: poison[0]")

	e.ok(false, "skip-record.lua", "stuck", "poison", "0", "--count", "2")
	assert.Equal(t, map[int32]int64{0: 2}, e.committed("stuck", "poison"))
}

// The NON_EMPTY_GROUP error tells to use --force "in the runbooks":
// skip-record has it (it was refused as an unknown flag), and under
// --dry-run it says it would remove the live member first and commits
// nothing.
func TestSkipRecordForce(t *testing.T) {
	e := newEnv(t)
	before := e.committed("orders-processor", "orders")
	r := e.run(false, "skip-record.lua", "orders-processor", "orders", "1")
	require.NotNil(t, r.err)
	assert.Equal(t, "NON_EMPTY_GROUP", r.err.Code)
	assert.Contains(t, r.err.Message, "--force in the runbooks")

	r = e.ok(true, "skip-record.lua", "orders-processor", "orders", "1", "--force")
	require.Len(t, r.rows, 1)
	assert.Contains(t, r.stderr, "remove the 1 live member(s) of group orders-processor first (force=true)")
	assert.Contains(t, r.stderr, "dry-run: orders-processor: would move orders[1]")
	assert.Equal(t, before, e.committed("orders-processor", "orders"))
}

// A consumer stuck on an Avro record: with --decode auto, skip-record
// shows the record's value decoded with the registry's schema (and its
// id), and a record whose schema id is unknown as its bytes and why; it
// skips both.
func TestSkipRecordShowsAStuckAvroRecordDecoded(t *testing.T) {
	e := newEnv(t)
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, nil, "orders-avro")
	require.NoError(t, err)
	type order struct {
		OrderID     string `avro:"order_id"`
		Customer    string `avro:"customer"`
		AmountCents int64  `avro:"amount_cents"`
		Status      string `avro:"status"`
	}
	body, err := avro.Marshal(avro.MustParse(demo.OrderSchema), order{OrderID: "o-1", Customer: "acme", AmountCents: 1250, Status: "NEW"})
	require.NoError(t, err)
	var h sr.ConfluentHeader
	good, _ := h.AppendEncode(nil, 1, nil)
	unknown, _ := h.AppendEncode(nil, 404, nil)
	kc, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...), kgo.DefaultProduceTopic("orders-avro"))
	require.NoError(t, err)
	defer kc.Close()
	require.NoError(t, kc.ProduceSync(e.ctx(), &kgo.Record{Key: []byte("o-1"), Value: append(good, body...)},
		&kgo.Record{Key: []byte("o-2"), Value: append(unknown, 2, 'x')}).FirstErr())
	_, err = e.adm.CommitOffsets(e.ctx(), "orders-avro-reader", kadm.Offsets{"orders-avro": {0: {Topic: "orders-avro", Partition: 0, At: 0, LeaderEpoch: -1}}})
	require.NoError(t, err)

	r := e.ok(true, "skip-record.lua", "orders-avro-reader", "orders-avro", "0", "--count", "2", "--decode", "auto")
	require.Len(t, r.rows, 2)
	assert.Equal(t, map[string]any{"order_id": "o-1", "customer": "acme", "amount_cents": 1250.0, "status": "NEW"}, r.rows[0]["value"])
	assert.Equal(t, 1.0, r.rows[0]["value_schema_id"])
	assert.Equal(t, demo.SubjectOrders, r.rows[0]["value_subject"], "the one subject holding id 1")
	assert.Equal(t, 1.0, r.rows[0]["value_version"])
	assert.Nil(t, r.rows[1]["value_subject"])
	assert.Contains(t, r.stderr, `would skip orders-avro[0] offset 0: key "o-1"`)
	assert.Contains(t, r.stderr, `value (schema id 1, `+demo.SubjectOrders+` version 1): {"amount_cents":1250,"customer":"acme","order_id":"o-1","status":"NEW"}`)
	assert.Contains(t, r.rows[1]["error"], "SCHEMA_NOT_FOUND")
	assert.Contains(t, r.stderr, `value (not decoded: SCHEMA_NOT_FOUND: schema id 404 is not in the registry: schema not found): \x00\x00\x00\x01\x94\x02x`)
	assert.Equal(t, map[int32]int64{0: 0}, e.committed("orders-avro-reader", "orders-avro"), "dry-run commits nothing")

	e.ok(false, "skip-record.lua", "orders-avro-reader", "orders-avro", "0", "--count", "2", "--decode", "auto")
	assert.Equal(t, map[int32]int64{0: 2}, e.committed("orders-avro-reader", "orders-avro"))
	e.usage("skip-record.lua", "--decode must be auto, avro, protobuf or json", "g", "t", "0", "--decode", "xml")
}
