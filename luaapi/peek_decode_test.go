package luaapi

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

const testPaymentSchema = `{"type":"record","name":"Payment","fields":[
	{"name":"id","type":"string"},
	{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
	{"name":"note","type":["null","string"],"default":null}]}`

type testPayment struct {
	ID     string   `avro:"id"`
	Amount *big.Rat `avro:"amount"`
	Note   *string  `avro:"note"`
}

func paymentAvro(t *testing.T, p testPayment) []byte {
	t.Helper()
	b, err := avro.Marshal(avro.MustParse(testPaymentSchema), p)
	require.NoError(t, err)
	return b
}

func framedFor(id int, body []byte) []byte {
	var h sr.ConfluentHeader
	b, _ := h.AppendEncode(nil, id, nil)
	return append(b, body...)
}

// peek decode="auto": a framed Avro value is a table with its schema id,
// a plain value stays text, and records that cannot be decoded keep their
// bytes and say why in the row, the others decoding on.
func TestPeekDecodesRegistryRecords(t *testing.T) {
	e := newRegistryEnv(t, engine.Config{})
	e.reg.SeedSchema("payments-value", 1, 31, sr.Schema{Schema: testPaymentSchema})
	e.run(`create_topics{{name = "payments", partitions = 1}}`)
	note := "refund \x1b[2J"
	good := framedFor(31, paymentAvro(t, testPayment{ID: "p-1", Amount: big.NewRat(1999, 100), Note: &note}))
	peekRecords(t, e.env, "payments",
		&kgo.Record{Key: []byte("k1"), Value: good},
		&kgo.Record{Key: []byte("k2"), Value: []byte("plain text")},
		&kgo.Record{Key: []byte("k3"), Value: framedFor(77, []byte{2, 'x'})},
		&kgo.Record{Key: []byte("k4"), Value: good[:len(good)-4]},
		&kgo.Record{Key: []byte("k5"), Value: framedFor(31, paymentAvro(t, testPayment{ID: "p-2", Amount: big.NewRat(5, 1)}))},
	)
	e.run(`
		local rows = peek("payments", 0, "earliest", {decode = "auto"})
		assert(#rows == 5, #rows)
		local r = rows[1]
		assert(r.key == "k1" and r.key_schema_id == nil, "keys are not decoded by default here: decode is for both, k1 is not framed")
		assert(r.value_schema_id == 31, tostring(r.value_schema_id))
		assert(r.value_subject == "payments-value" and r.value_version == 1, tostring(r.value_subject))
		assert(r.key_subject == nil and r.key_version == nil)
		assert(r.value.id == "p-1" and r.value.amount == "19.99", r.value.amount)
		assert(r.value.note == "refund \\x1b[2J", "decoded text is escaped as peek's text is: " .. r.value.note)
		assert(r.error == nil)
		assert(rows[2].value == "plain text" and rows[2].value_schema_id == nil and rows[2].value_subject == nil and rows[2].error == nil)
		assert(rows[3].value_subject == nil and rows[3].value_version == nil, "not decoded: no subject")
		assert(rows[3].error.code == "SCHEMA_NOT_FOUND", rows[3].error.code)
		assert(rows[3].error.message:find("schema id 77 is not in the registry", 1, true), rows[3].error.message)
		assert(rows[3].error.resource == "payments[0]@2 value", rows[3].error.resource)
		assert(type(rows[3].value) == "string", "the raw bytes are still shown")
		assert(rows[4].error.code == "SCHEMA_DECODE_FAILED" and rows[4].error.message:find("truncated"), rows[4].error.message)
		assert(rows[5].value.id == "p-2" and rows[5].value.note == kafka.json.null and rows[5].value.amount == "5.00")
	`)
	// Forced: the plain record is an error, not text.
	e.run(`
		local rows = peek("payments", 0, 1, {count = 1, decode = {value = "avro"}})
		assert(rows[1].error.code == "NOT_SCHEMA_FRAMED", rows[1].error.code)
		assert(rows[1].value == "plain text")
	`)
	js := e.json(`return peek("payments", 0, 0, {count = 1, decode = "auto"})[1].value`)
	assert.JSONEq(t, `{"id":"p-1","amount":"19.99","note":"refund \\x1b[2J"}`, js)
	re := e.runErr(`peek("payments", 0, 0, {decode = "xml"})`)
	assert.Contains(t, re.Error(), "decode")
}

// A local schema file decodes without a registry; a file that is not a
// schema is an argument error naming the option.
func TestPeekDecodesWithALocalSchemaFile(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	avsc := filepath.Join(dir, "payment.avsc")
	require.NoError(t, os.WriteFile(avsc, []byte(testPaymentSchema), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.avsc"), []byte(`{"type":`), 0o600))
	e.run(`create_topics{{name = "local", partitions = 1}}`)
	peekRecords(t, e, "local", &kgo.Record{Value: paymentAvro(t, testPayment{ID: "p-9", Amount: big.NewRat(1, 4)})})
	got := e.run(`local r = peek("local", 0, 0, {value_schema = {file = "` + avsc + `"}})[1]
		return r.value.id .. " " .. r.value.amount .. " " .. tostring(r.value_schema_id) .. " " .. tostring(r.value_subject)`)
	assert.Equal(t, "p-9 0.25 nil nil", got.String())
	re := e.runErr(`peek("local", 0, 0, {value_schema = {file = "` + filepath.Join(dir, "bad.avsc") + `"}})`)
	assert.Contains(t, re.Error(), "SCHEMA_INVALID")
	re = e.runErr(`peek("local", 0, 0, {value_schema = {file = "x.txt"}})`)
	assert.Contains(t, re.Error(), "must end in .avsc")
}

// Avro records and maps are built straight as Lua tables (the codec's
// Builder); they read as the codec's Go values do: nested records, maps
// (an empty one an object), arrays of records, unions, nulls.
func TestPeekBuildsAvroAsTheCodecDecodes(t *testing.T) {
	const schema = `{"type":"record","name":"Basket","fields":[
		{"name":"owner","type":{"type":"record","name":"Owner","fields":[{"name":"name","type":"string"},{"name":"vip","type":"boolean"}]}},
		{"name":"counts","type":{"type":"map","values":"long"}},
		{"name":"empty","type":{"type":"map","values":"string"}},
		{"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[{"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}},
		{"name":"extra","type":["null",{"type":"map","values":"Owner"}],"default":null}]}`
	e := newRegistryEnv(t, engine.Config{})
	e.reg.SeedSchema("baskets-value", 1, 41, sr.Schema{Schema: schema})
	e.run(`create_topics{{name = "baskets", partitions = 1}}`)
	value := map[string]any{
		"owner":  map[string]any{"name": "ann \x1b", "vip": true},
		"counts": map[string]any{"a": int64(1), "b": int64(-300)},
		"empty":  map[string]any{},
		"items":  []any{map[string]any{"sku": "x", "qty": 2}, map[string]any{"sku": "y", "qty": 0}},
		"extra":  map[string]any{"map": map[string]any{"o": map[string]any{"name": "bob", "vip": false}}},
	}
	body, err := avro.Marshal(avro.MustParse(schema), value)
	require.NoError(t, err)
	value["extra"] = nil
	nullExtra, err := avro.Marshal(avro.MustParse(schema), value)
	require.NoError(t, err)
	peekRecords(t, e.env, "baskets", &kgo.Record{Value: framedFor(41, body)}, &kgo.Record{Value: framedFor(41, nullExtra)})

	rows := e.json(`local rows = peek("baskets", 0, 0, {decode = "auto"})
		return {rows[1].value, rows[2].value}`)
	assert.JSONEq(t, `[{"owner": {"name": "ann \\x1b", "vip": true}, "counts": {"a": 1, "b": -300}, "empty": {},
		"items": [{"sku": "x", "qty": 2}, {"sku": "y", "qty": 0}], "extra": {"o": {"name": "bob", "vip": false}}},
		{"owner": {"name": "ann \\x1b", "vip": true}, "counts": {"a": 1, "b": -300}, "empty": {},
		"items": [{"sku": "x", "qty": 2}, {"sku": "y", "qty": 0}], "extra": null}]`, rows)
}

// Protobuf messages read from the wire are built straight as Lua tables
// too; they read as the codec's Go values do (nested and repeated
// messages, maps of messages, enums, a oneof, unset fields, a well-known
// type), and a record left to dynamicpb (a message sent twice) as well.
func TestPeekBuildsProtobufAsTheCodecDecodes(t *testing.T) {
	const proto3 = `syntax = "proto3";
import "google/protobuf/timestamp.proto";
message Basket {
  enum Kind { PLAIN = 0; GIFT = 1; }
  message Item { string sku = 1; int32 qty = 2; repeated sint64 marks = 3; }
  string owner = 1; Kind kind = 2; Item first = 3; repeated Item items = 4; map<string, Item> by_sku = 5;
  map<int32, Kind> kinds = 6; oneof pick { string note = 7; Item gift = 8; } optional int64 maybe = 9;
  google.protobuf.Timestamp at = 10; repeated string tags = 11; double ratio = 12; bool open = 13;
}`
	codec, err := schemas.CompileLocal(schemas.Schema{Type: schemas.TypeProtobuf, Text: proto3}, "", nil)
	require.NoError(t, err)
	e := newRegistryEnv(t, engine.Config{})
	e.reg.SeedSchema("pbaskets-value", 1, 42, sr.Schema{Schema: proto3, Type: sr.TypeProtobuf})
	e.run(`create_topics{{name = "pbaskets", partitions = 1}}`)
	full, _, err := codec.Encode(map[string]any{"owner": "ann", "kind": "GIFT",
		"first":  map[string]any{"sku": "a", "qty": 2.0, "marks": []any{-1.0, 300.0}},
		"items":  []any{map[string]any{"sku": "b"}, map[string]any{}},
		"by_sku": map[string]any{"c": map[string]any{"qty": 5.0}, "d": map[string]any{}},
		"kinds":  map[string]any{"7": "GIFT", "-1": "PLAIN"}, "gift": map[string]any{"sku": "g"},
		"maybe": 0.0, "at": "2026-05-28T20:26:40.123Z", "tags": []any{"x", ""}, "ratio": 0.25, "open": true})
	require.NoError(t, err)
	sparse, _, err := codec.Encode(map[string]any{"note": "n"})
	require.NoError(t, err)
	again, _, err := codec.Encode(map[string]any{"first": map[string]any{"qty": 9.0}})
	require.NoError(t, err)
	merged := append(append([]byte{}, full...), again...) // first twice: merged, by dynamicpb
	bodies := [][]byte{full, sparse, merged}
	for _, body := range bodies {
		peekRecords(t, e.env, "pbaskets", &kgo.Record{Value: schemas.Frame(42, []int{0}, body)})
	}
	got := e.json(`local out = {}
		for _, r in ipairs(peek("pbaskets", 0, 0, {decode = "auto"})) do assert(r.error == nil, r.error); out[#out + 1] = r.value end
		return out`)
	var want []any
	for _, body := range bodies {
		v, err := codec.Decode(body, nil)
		require.NoError(t, err)
		want = append(want, v)
	}
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), got)
	assert.Contains(t, got, `"qty":9`, "the merged record: dynamicpb merged first's fields")
}
