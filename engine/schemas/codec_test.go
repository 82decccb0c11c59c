package schemas

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Schemas registered as Confluent's serializers register them: Order
// references shop.Money in another subject.
const (
	avroMoney = `{"type":"record","name":"Money","namespace":"shop","fields":[
		{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
		{"name":"currency","type":"string"}]}`
	avroFullOrder = `{"type":"record","name":"Order","namespace":"shop","fields":[
		{"name":"id","type":{"type":"string","logicalType":"uuid"}},
		{"name":"note","type":["null","string"],"default":null},
		{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
		{"name":"total","type":"shop.Money"},
		{"name":"refund","type":["null","shop.Money"],"default":null},
		{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"at_us","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"day","type":{"type":"int","logicalType":"date"}},
		{"name":"tags","type":{"type":"array","items":"string"}},
		{"name":"attrs","type":{"type":"map","values":"long"}}]}`
	protoMoney = `syntax = "proto3";
package shop;
message Money { int64 units = 1; string currency = 2; }`
	protoOrder = `syntax = "proto3";
package shop;
import "money.proto";
import "google/protobuf/timestamp.proto";
message Order {
  enum Status { NEW = 0; PAID = 1; }
  message Line { string sku = 1; int32 qty = 2; }
  string id = 1;
  Status status = 2;
  Money total = 3;
  repeated Line lines = 4;
  google.protobuf.Timestamp at = 5;
  map<string, string> attrs = 6;
  Money refund = 7;
}
message Other { string x = 1; }`
)

// codecRegistry is an in-memory registry on loopback holding the schemas
// above, and a client of it counting its requests.
func codecRegistry(t *testing.T) (*Registry, *srfake.Registry, *atomic.Int64) {
	t.Helper()
	reg := srfake.New()
	var n atomic.Int64
	srv := httptest.NewServer(counted(reg.Handler(), &n))
	t.Cleanup(srv.Close)
	t.Cleanup(reg.Close)
	reg.SeedSchema("money", 1, 1, sr.Schema{Schema: avroMoney})
	reg.SeedSchema("orders-value", 1, 2, sr.Schema{Schema: avroFullOrder,
		References: []sr.SchemaReference{{Name: "shop.Money", Subject: "money", Version: 1}}})
	reg.SeedSchema("money.proto", 1, 3, sr.Schema{Schema: protoMoney, Type: sr.TypeProtobuf})
	reg.SeedSchema("porders-value", 1, 4, sr.Schema{Schema: protoOrder, Type: sr.TypeProtobuf,
		References: []sr.SchemaReference{{Name: "money.proto", Subject: "money.proto", Version: 1}}})
	reg.SeedSchema("events-value", 1, 5, sr.Schema{Schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`, Type: sr.TypeJSON})
	reg.SeedSchema("broken-value", 1, 6, sr.Schema{Schema: `syntax = "proto3"; message {`, Type: sr.TypeProtobuf})
	r, err := New(Config{URLs: []string{srv.URL}})
	require.NoError(t, err)
	return r, reg, &n
}

func framed(id int, index []int, body []byte) []byte {
	b, _ := header.AppendEncode(nil, id, index)
	return append(b, body...)
}

type avroMoneyT struct {
	Amount   *big.Rat `avro:"amount"`
	Currency string   `avro:"currency"`
}

type avroOrderT struct {
	ID     string           `avro:"id"`
	Note   *string          `avro:"note"`
	Status string           `avro:"status"`
	Total  avroMoneyT       `avro:"total"`
	Refund *avroMoneyT      `avro:"refund"`
	At     time.Time        `avro:"at"`
	AtUS   time.Time        `avro:"at_us"`
	Day    time.Time        `avro:"day"`
	Tags   []string         `avro:"tags"`
	Attrs  map[string]int64 `avro:"attrs"`
}

func avroOrderBytes(t *testing.T) []byte {
	t.Helper()
	cache := &avro.SchemaCache{}
	_, err := avro.ParseWithCache(avroMoney, "", cache)
	require.NoError(t, err)
	s, err := avro.ParseWithCache(avroFullOrder, "", cache)
	require.NoError(t, err)
	note := "leave at door"
	b, err := avro.Marshal(s, avroOrderT{ID: "0b6a1e1c-3a4b-4c5d-8e9f-0123456789ab", Note: &note, Status: "PAID",
		Total: avroMoneyT{Amount: big.NewRat(-1234, 100), Currency: "EUR"},
		At:    time.UnixMilli(1_700_000_000_123), AtUS: time.UnixMicro(1_700_000_000_123_456),
		Day: time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), Tags: []string{"a", "b"}, Attrs: map[string]int64{"n": 7}})
	require.NoError(t, err)
	return b
}

// Avro: logical types, a union, an enum, a named type from a reference,
// arrays and maps, decoded from the framing with the registry's schema.
func TestAvroRecordDecodesThroughTheRegistry(t *testing.T) {
	r, _, _ := codecRegistry(t)
	d := &Decoder{Mode: DecodeAuto, Registry: r}
	got, err := d.Decode(ctx(t), framed(2, nil, avroOrderBytes(t)), "orders[0]@0 value")
	require.Nil(t, err)
	assert.Equal(t, 2, got.SchemaID)
	assert.Equal(t, map[string]any{
		"id": "0b6a1e1c-3a4b-4c5d-8e9f-0123456789ab", "note": "leave at door", "status": "PAID",
		"total": map[string]any{"amount": "-12.34", "currency": "EUR"}, "refund": nil,
		"at": "2023-11-14T22:13:20.123Z", "at_us": "2023-11-14T22:13:20.123456Z", "day": "2024-01-31",
		"tags": []any{"a", "b"}, "attrs": map[string]any{"n": int64(7)},
	}, got.Value)
}

func protoOrderBytes(t *testing.T, r *Registry) []byte {
	t.Helper()
	c, err := r.CodecByID(ctx(t), 4)
	require.NoError(t, err)
	md := c.(*protoCodec).file.Messages().ByName("Order")
	m := dynamicpb.NewMessage(md)
	set := func(m *dynamicpb.Message, name string, v protoreflect.Value) {
		m.Set(m.Descriptor().Fields().ByName(protoreflect.Name(name)), v)
	}
	set(m, "id", protoreflect.ValueOfString("o-1"))
	set(m, "status", protoreflect.ValueOfEnum(1))
	total := dynamicpb.NewMessage(md.Fields().ByName("total").Message())
	set(total, "units", protoreflect.ValueOfInt64(1234))
	set(total, "currency", protoreflect.ValueOfString("EUR"))
	set(m, "total", protoreflect.ValueOfMessage(total))
	lines := m.Mutable(md.Fields().ByName("lines")).List()
	line := dynamicpb.NewMessage(md.Messages().ByName("Line"))
	set(line, "sku", protoreflect.ValueOfString("x"))
	lines.Append(protoreflect.ValueOfMessage(line))
	at, err := proto.Marshal(timestamppb.New(time.Unix(1_700_000_000, 0)))
	require.NoError(t, err)
	atm := dynamicpb.NewMessage(md.Fields().ByName("at").Message())
	require.NoError(t, proto.Unmarshal(at, atm))
	set(m, "at", protoreflect.ValueOfMessage(atm))
	m.Mutable(md.Fields().ByName("attrs")).Map().Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfString("v"))
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return b
}

// Protobuf: an import served from a reference, a well-known type, nested
// messages and enums, message indexes; the second message by its index.
func TestProtobufRecordDecodesThroughTheRegistry(t *testing.T) {
	r, _, _ := codecRegistry(t)
	d := &Decoder{Mode: DecodeProtobuf, Registry: r}
	got, err := d.Decode(ctx(t), framed(4, []int{0}, protoOrderBytes(t, r)), "porders[0]@0 value")
	require.Nil(t, err)
	assert.Equal(t, 4, got.SchemaID)
	assert.Equal(t, map[string]any{
		"id": "o-1", "status": "PAID", "total": map[string]any{"units": int64(1234), "currency": "EUR"},
		"lines": []any{map[string]any{"sku": "x", "qty": int64(0)}}, "at": "2023-11-14T22:13:20Z",
		"attrs": map[string]any{"k": "v"},
	}, got.Value)

	other, err := d.Decode(ctx(t), framed(4, []int{1}, []byte{0x0a, 0x01, 'y'}), "porders[0]@1 value")
	require.Nil(t, err)
	assert.Equal(t, map[string]any{"x": "y"}, other.Value)
}

func TestJSONSchemaRecordDecodes(t *testing.T) {
	r, _, _ := codecRegistry(t)
	got, err := (&Decoder{Mode: DecodeAuto, Registry: r}).Decode(ctx(t), framed(5, nil, []byte(`{"n":9007199254740993,"f":1.5}`)), "e")
	require.Nil(t, err)
	assert.Equal(t, map[string]any{"n": int64(9007199254740993), "f": 1.5}, got.Value)
}

// Bad records are errors of their own, each saying what is wrong; none
// panics or hangs, and the schemas are fetched once per id.
func TestBadRecordsAreClearErrors(t *testing.T) {
	r, reg, n := codecRegistry(t)
	reg.SeedSchema("nulls-value", 1, 7, sr.Schema{Schema: `{"type":"array","items":"null"}`})
	auto := &Decoder{Mode: DecodeAuto, Registry: r}
	good := framed(2, nil, avroOrderBytes(t))
	lyingArray := framed(7, nil, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}) // 2^62 nulls
	cases := []struct {
		name, code, message string
		dec                 *Decoder
		b                   []byte
	}{
		{"unknown id", "SCHEMA_NOT_FOUND", "schema id 99 is not in the registry", auto, framed(99, nil, []byte{1})},
		{"truncated", CodeDecode, "truncated", auto, good[:len(good)-3]},
		{"trailing bytes", CodeDecode, "bytes are left", auto, append(append([]byte{}, good...), 1, 2)},
		{"not a schema's bytes", CodeDecode, "not PROTOBUF of schema id 4", auto, framed(4, []int{0}, []byte{0xff, 0xff, 0xff})},
		{"bad message index", CodeDecode, "names no message", auto, framed(4, []int{5}, nil)},
		{"schema does not compile", CodeSchemaInvalid, "does not compile", auto, framed(6, []int{0}, nil)},
		{"forced and unframed", CodeNotFramed, "not framed", &Decoder{Mode: DecodeAvro, Registry: r}, []byte("plain")},
		{"forced other type", CodeWrongFormat, "schema id 2 is AVRO", &Decoder{Mode: DecodeProtobuf, Registry: r}, good},
		{"no registry", CodeNoRegistry, "schema id 2", &Decoder{Mode: DecodeAuto}, good},
		{"array claims more than it holds", CodeDecode, "a block of 4611686018427387903 items in a datum of 9 bytes", auto, lyingArray},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.dec.Decode(ctx(t), c.b, "topic[0]@1 value")
			require.Nil(t, got)
			require.NotNil(t, err)
			assert.Equal(t, c.code, err.Code)
			assert.Contains(t, err.Message, c.message)
			assert.Equal(t, "topic[0]@1 value", err.Resource)
		})
	}
	before := n.Load()
	for range 100 {
		_, err := auto.Decode(ctx(t), good, "x")
		require.Nil(t, err)
	}
	assert.Equal(t, before, n.Load(), "no request for a schema already read")

	plain, err2 := auto.Decode(ctx(t), []byte("not framed"), "x")
	assert.Nil(t, plain)
	assert.Nil(t, err2, "auto leaves unframed bytes as they are")
}

// A recursive schema reads as deep as its data goes, and data deeper than
// the bound is an error, not a crash.
func TestRecursiveAvroIsBounded(t *testing.T) {
	s := Schema{Type: TypeAvro, Text: `{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}`}
	c, err := CompileLocal(s, "", nil)
	require.NoError(t, err)
	v, err := c.Decode([]byte{2, 2, 0}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"next": map[string]any{"next": map[string]any{"next": nil}}}, v)
	deep := make([]byte, 10_000)
	for i := range deep {
		deep[i] = 2
	}
	_, err = c.Decode(deep, nil)
	assert.ErrorContains(t, err, "nested deeper than")
}

// Local schema files, no registry: a .proto with an import beside it and
// a message chosen by name, an .avsc read bare or framed.
func TestLocalSchemaFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "money.proto"), []byte(protoMoney), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "order.proto"), []byte(protoOrder), 0o600))
	s, err := LoadFile(filepath.Join(dir, "order.proto"), os.ReadFile)
	require.NoError(t, err)
	c, err := CompileLocal(s, "shop.Other", os.ReadFile)
	require.NoError(t, err)
	got, derr := (&Decoder{Local: c}).Decode(ctx(t), []byte{0x0a, 0x01, 'z'}, "x")
	require.Nil(t, derr)
	assert.Equal(t, map[string]any{"x": "z"}, got.Value)
	assert.Equal(t, 0, got.SchemaID)

	_, err = CompileLocal(s, "Missing", os.ReadFile)
	assert.ErrorContains(t, err, "has 0 messages named Missing")

	money := Schema{Type: TypeAvro, Text: avroMoney}
	mc, err := CompileLocal(money, "", nil)
	require.NoError(t, err)
	b, err := avro.Marshal(mc.(*avroCodec).schema, avroMoneyT{Amount: big.NewRat(5, 1), Currency: "USD"})
	require.NoError(t, err)
	want := map[string]any{"amount": "5.00", "currency": "USD"}
	bare, derr := (&Decoder{Local: mc}).Decode(ctx(t), b, "x")
	require.Nil(t, derr)
	assert.Equal(t, want, bare.Value)
	fr, derr := (&Decoder{Local: mc, LocalFramed: true}).Decode(ctx(t), framed(42, nil, b), "x")
	require.Nil(t, derr)
	assert.Equal(t, want, fr.Value)

	_, err = CompileLocal(Schema{Type: TypeAvro, Text: `{"type":"record"`, File: "bad.avsc"}, "", nil)
	assert.Equal(t, CodeSchemaInvalid, code(t, err))
}

// A schema registered as a serialized descriptor (base64 of a
// FileDescriptorProto, as Confluent's Python serializer registers it)
// decodes as its .proto text does.
func TestSerializedProtobufSchemaDecodes(t *testing.T) {
	r, reg, _ := codecRegistry(t)
	c, err := r.CodecByID(ctx(t), 4)
	require.NoError(t, err)
	file := c.(*protoCodec).file
	serialized := func(fd protoreflect.FileDescriptor) string {
		b, err := proto.Marshal(protodesc.ToFileDescriptorProto(fd))
		require.NoError(t, err)
		return base64.StdEncoding.EncodeToString(b)
	}
	money := file.Imports().Get(0).FileDescriptor
	require.Equal(t, "money.proto", money.Path())
	reg.SeedSchema("money-serialized", 1, 9, sr.Schema{Schema: serialized(money), Type: sr.TypeProtobuf})
	reg.SeedSchema("porders-serialized", 1, 8, sr.Schema{Schema: serialized(file), Type: sr.TypeProtobuf,
		References: []sr.SchemaReference{{Name: "money.proto", Subject: "money-serialized", Version: 1}}})
	body := protoOrderBytes(t, r)
	want, derr := (&Decoder{Mode: DecodeAuto, Registry: r}).Decode(ctx(t), Frame(4, []int{0}, body), "x")
	require.Nil(t, derr)
	got, derr := (&Decoder{Mode: DecodeAuto, Registry: r}).Decode(ctx(t), Frame(8, []int{0}, body), "x")
	require.Nil(t, derr)
	assert.Equal(t, want.Value, got.Value)
}

// A registry that is down or slow is an error of the record's row,
// bounded by the request timeout, and is not remembered by the registry:
// the next call asks again.
func TestRegistryDownIsARowError(t *testing.T) {
	down, err := New(Config{URLs: []string{"http://127.0.0.1:1"}, Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	d := &Decoder{Mode: DecodeAuto, Registry: down}
	for range 2 {
		c, cancel := context.WithTimeout(ctx(t), 200*time.Millisecond) // the run's --timeout
		got, derr := d.Decode(c, Frame(3, nil, []byte{2, 'x'}), "topic[0]@5 value")
		cancel()
		require.Nil(t, got)
		require.NotNil(t, derr)
		assert.Contains(t, []string{vocab.CodeNetwork, vocab.CodeTimeout}, derr.Code)
		assert.Contains(t, derr.Message, "schema id 3")
		assert.Equal(t, "topic[0]@5 value", derr.Resource)
	}
	down.mu.Lock()
	assert.Empty(t, down.byID, "a registry that is down is asked again")
	down.mu.Unlock()
}

// A registry that fails on the first record of a call (HTTP 500, after
// retrying to the request's deadline) is not asked again by the same call:
// every later record, of that id or another, gets the same error at once,
// so peek of ten records waits one timeout, not ten. The next call (a new
// Decoder) asks again.
func TestRegistryDownIsAskedOncePerCall(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(counted(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error_code":50001,"message":"store unavailable"}`))
	}), &n))
	t.Cleanup(srv.Close)
	down, err := New(Config{URLs: []string{srv.URL}, Timeout: 100 * time.Millisecond})
	require.NoError(t, err)
	d := &Decoder{Mode: DecodeAuto, Registry: down}
	var asked int64
	for i, id := range []int{3, 3, 4, 3, 4} {
		got, derr := d.Decode(context.Background(), Frame(id, nil, []byte{2, 'x'}), "topic[0]@5 value")
		require.Nil(t, got)
		require.NotNil(t, derr)
		assert.Equal(t, CodeRegistryUnavailable, derr.Code, "record %d", i)
		assert.Contains(t, derr.Message, fmt.Sprintf("schema id %d: HTTP 500: store unavailable", id))
		assert.Equal(t, "topic[0]@5 value", derr.Resource)
		if i == 0 {
			asked = n.Load()
			require.Positive(t, asked)
		}
	}
	assert.Equal(t, asked, n.Load(), "the later records did not ask again")
	next := &Decoder{Mode: DecodeAuto, Registry: down}
	_, derr := next.Decode(context.Background(), Frame(3, nil, []byte{2, 'x'}), "topic[0]@6 value")
	require.NotNil(t, derr)
	assert.Greater(t, n.Load(), asked, "the next call asks again")
}

// Decimals read exactly at every size and sign, as Java's BigDecimal
// writes them.
func TestAvroDecimalDigits(t *testing.T) {
	for _, c := range []struct {
		unscaled string
		scale    int
		want     string
	}{
		{"0", 2, "0.00"}, {"5", 2, "0.05"}, {"-5", 2, "-0.05"}, {"-1234", 2, "-12.34"}, {"1999", 2, "19.99"},
		{"123", 0, "123"}, {"-9223372036854775808", 3, "-9223372036854775.808"},
		{"123456789012345678901234567890", 10, "12345678901234567890.1234567890"},
		{"-123456789012345678901234567890", 4, "-12345678901234567890123456.7890"},
	} {
		n, _ := new(big.Int).SetString(c.unscaled, 10)
		b, err := decimalBytes(c.unscaled, 0, 0, "")
		require.NoError(t, err)
		assert.Equal(t, c.want, decimal(b, c.scale), "%s scale %d", c.unscaled, c.scale)
		assert.Equal(t, n.Sign() < 0, b[0]&0x80 != 0)
	}
}
