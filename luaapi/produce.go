package luaapi

import (
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "produce", Area: "records", Batch: true,
			Params: []Param{
				{Name: "topic", Type: topicName, Doc: "the topic to write to (it must exist)"},
				{Name: "records", Type: produceRecords, Doc: "a record or an array of records"},
			},
			Options: []Field{
				{Name: "acks", Type: Enum("all", "leader", "none"), Doc: `"all" (default: every in-sync replica), "leader" or "none"`},
				{Name: "idempotent", Type: Bool(), Doc: "idempotent writes (default: on with acks \"all\", off otherwise)"},
				{Name: "value_schema", Type: produceSchemaType, Doc: "encode every value with a registry subject's schema: {subject=, version=, message=} (see below)"},
				{Name: "key_schema", Type: produceSchemaType, Doc: "encode every key with a registry subject's schema: {subject=, version=, message=}"},
			},
			Returns: "{{index=int, topic=string, partition=int, offset=int, timestamp=time, error=error?}...}",
			Summary: "Write records (key, value, headers, partition, timestamp) to a topic and say where each landed.",
			Doc: `records is one record or an array of them: {key=, value=, headers={name = value, ...}, partition=, timestamp=}; every field is optional (a record with no value is a tombstone for compacted topics). key and value are strings (Lua strings are bytes: binary is fine), or tables with key_schema/value_schema. headers are written sorted by name. partition, when left out, is the partitioner's choice, as the Java producer's: the key's murmur2 hash, or one partition per batch for records without a key. timestamp is milliseconds since the epoch (default: now; the broker's own under message.timestamp.type=LogAppendTime).
A producer of its own is used, with the connection settings of the client: idempotent with acks=all by default, as the Java producer since Kafka 3.0. Each result has the record's index (its place in records), partition, offset (-1 if not written, or with acks "none", where nobody says) and timestamp, sorted by index.
A change like any other: audited (the intent line has each partition's end offset before and each record's key, partition, timestamp, header names, value size and SHA-256, not the value itself; the outcome line each record's partition and offset), refused under --dry-run (the topic and partitions are checked and the plan says what would be written), and the REPL asks first unless --yes. It cannot be undone: records cannot be un-produced, and undo does not delete them (delete_records up to the produced offsets would also delete what others wrote before). The topic must exist (no auto-creation) and an explicit partition must be one of its partitions: otherwise nothing is sent. It needs WRITE on the topic, and for idempotence on brokers before Kafka 2.8 IDEMPOTENT_WRITE on the cluster (idempotent=false does without).
` + produceSchemaDoc,
			Example: `local r = produce("orders", {
  {key = "order-1", value = '{"total": 42}', headers = {source = "kadmin-lua"}},
  {value = "ping", partition = 2},
})
for _, x in ipairs(r) do print(x.index, x.partition, x.offset) end
-- A table encoded with the registry's schema (the subject's latest), framed as Confluent's serializers do:
local a = produce("orders", {key = "o-1", value = {order_id = "o-1", customer = "acme", amount_cents = 1250, status = "NEW"}},
  {value_schema = {subject = "orders-value"}})
print(a[1].partition, a[1].offset)
return r[2].partition == 2`,
			Run: produceRun},
	)
}

// produceRecords reads produce's records.
var produceRecords = List[produceInput](Record(
	Field{Name: "key", Type: schemaValueType, Doc: "the record's key (bytes, or with key_schema a table)"},
	Field{Name: "value", Type: schemaValueType, Doc: "the record's value (bytes, or with value_schema a table); left out: null (a tombstone)"},
	Field{Name: "headers", Type: MapOf[string, string](NonEmptyStr(), Str()), Doc: "header name to value"},
	Field{Name: "partition", Type: partitionNum, Doc: "the partition (default: the partitioner's choice)"},
	Field{Name: "timestamp", Type: timestampMs, Doc: "ms since the epoch (default: now)"},
).Sample(`{key = "k", value = "v"}`).Then(func(rec Rec, _ string) (any, error) {
	r := produceInput{ProduceRecord: engine.ProduceRecord{Partition: -1}}
	if rec.Has("key") {
		r.key = get[lua.LValue](rec, "key")
	}
	if rec.Has("value") {
		r.value = get[lua.LValue](rec, "value")
	}
	if rec.Has("partition") {
		r.Partition = get[int32](rec, "partition")
	}
	if rec.Has("timestamp") {
		ts := get[int64](rec, "timestamp")
		r.Timestamp = &ts
	}
	hs := get[map[string]string](rec, "headers")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range hs {
			if !yield(k) {
				return
			}
		}
	}) {
		r.Headers = append(r.Headers, engine.Header{Key: k, Value: hs[k]})
	}
	return r, nil
})).Items("record").NonEmpty()

func produceOptions(c *Call) engine.ProduceOptions {
	o := engine.ProduceOptions{Acks: param[string](c, "acks")}
	if c.Given("idempotent") {
		b := param[bool](c, "idempotent")
		o.Idempotent = &b
	}
	return o
}

func produceRun(c *Call) (any, error) {
	topic, o := param[string](c, "topic"), produceOptions(c)
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	recs, err := encodeRecords(c, param[[]produceInput](c, "records"))
	if err != nil {
		return nil, err
	}
	if c.DryRun() {
		if _, err := cl.CheckProduce(c.Ctx(), topic, recs, o); err != nil {
			return nil, err
		}
		out := make([]engine.ProducedRecord, len(recs))
		for i, r := range recs {
			out[i] = engine.ProducedRecord{Index: i + 1, Topic: topic, Partition: r.Partition, Offset: -1}
		}
		c.Plan("write %d record(s) to %s", len(recs), topic)
		return out, nil
	}
	return cl.Produce(c.Ctx(), topic, recs, o)
}
