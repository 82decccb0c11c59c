package schemas

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

const protoEveryShape = `syntax = "proto3";
package shapes;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message All {
  enum Color { RED = 0; GREEN = 1; }
  message Inner { string s = 1; repeated int32 xs = 2; Inner next = 3; }
  int32 i32 = 1; sint32 s32 = 2; sfixed32 f32 = 3; uint32 u32 = 4; fixed32 x32 = 5;
  int64 i64 = 6; sint64 s64 = 7; sfixed64 f64 = 8; uint64 u64 = 9; fixed64 x64 = 10;
  float fl = 11; double db = 12; bool b = 13; string str = 14; bytes by = 15; Color color = 16;
  Inner inner = 17; repeated Inner inners = 18; repeated sint64 packed = 19;
  repeated string strs = 20; map<string, Inner> by_name = 21; map<int32, Color> colors = 22;
  optional int32 maybe = 23; oneof pick { string a = 24; Inner b_msg = 25; }
  google.protobuf.Timestamp at = 26; google.protobuf.Int64Value wrapped = 27;
  repeated Color colors_list = 28; map<bool, bytes> flags = 29;
}`

// slowProto is the reference: proto.Unmarshal into dynamicpb, then the
// reflective walk.
func slowProto(t *testing.T, md protoreflect.MessageDescriptor, body []byte) any {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	require.NoError(t, unmarshalProto(body, m))
	v, err := protoValue(m)
	require.NoError(t, err)
	return v
}

// The wire-format reader gives what dynamicpb gives, shape by shape, and
// reads them itself (no fallback).
func TestProtobufWireReaderAgreesWithDynamicpb(t *testing.T) {
	c, err := compileProtobuf(sources{main: Schema{Text: protoEveryShape, Type: TypeProtobuf}})
	require.NoError(t, err)
	md := c.(*protoCodec).file.Messages().ByName("All")
	for _, js := range []string{
		`{}`,
		`{"i32": -5, "s32": -6, "f32": -7, "u32": 4000000000, "x32": 9, "i64": "-9000000000", "s64": "-3", "f64": "-4",
		  "u64": "18446744073709551615", "x64": "12", "fl": 1.5, "db": -2.25, "b": true, "str": "héllo", "by": "AAH/",
		  "color": "GREEN"}`,
		`{"inner": {"s": "x", "xs": [1, -2, 3], "next": {"s": "deeper"}}, "inners": [{}, {"s": "y"}],
		  "packed": ["-1", "2", "-300"], "strs": ["a", "", "c"]}`,
		`{"by_name": {"k": {"s": "v"}, "empty": {}}, "colors": {"-1": "GREEN", "7": "RED"}, "flags": {"true": "AQ==", "false": ""}}`,
		`{"maybe": 0, "a": "chosen"}`,
		`{"b_msg": {"s": "m"}, "at": "2024-01-31T12:00:00.5Z", "wrapped": "42", "colors_list": ["GREEN", "RED", 5]}`,
	} {
		m := dynamicpb.NewMessage(md)
		require.NoError(t, protojson.Unmarshal([]byte(js), m), js)
		body, err := proto.Marshal(m)
		require.NoError(t, err)
		fast, err := wireMessage(md, body, 0, nil)
		require.NoError(t, err, js)
		assert.Equal(t, slowProto(t, md, body), fast, js)
		got, err := c.Decode(body, nil)
		require.NoError(t, err)
		assert.Equal(t, fast, got, js)
	}
}

// What the wire reader does not read itself goes to dynamicpb, and the
// record decodes as dynamicpb reads it.
func TestProtobufWireReaderLeavesTheRestToDynamicpb(t *testing.T) {
	c, err := compileProtobuf(sources{main: Schema{Text: protoEveryShape, Type: TypeProtobuf}})
	require.NoError(t, err)
	md := c.(*protoCodec).file.Messages().ByName("All")
	field := func(num protowire.Number, typ protowire.Type, v []byte) []byte {
		return append(protowire.AppendTag(nil, num, typ), v...)
	}
	msgBytes := func(b []byte) []byte { return protowire.AppendBytes(nil, b) }
	innerS := func(s string) []byte { return field(1, protowire.BytesType, protowire.AppendString(nil, s)) }
	cases := map[string][]byte{
		"a singular message twice (merged)": append(field(17, protowire.BytesType, msgBytes(innerS("one"))),
			field(17, protowire.BytesType, msgBytes(field(2, protowire.VarintType, protowire.AppendVarint(nil, 3))))...),
		"two members of a oneof (the last wins)": append(field(24, protowire.BytesType, protowire.AppendString(nil, "a")),
			field(25, protowire.BytesType, msgBytes(innerS("b")))...),
		"a field sent with another wire type (an unknown field)": field(1, protowire.Fixed64Type, protowire.AppendFixed64(nil, 7)),
		"an unknown field number":                                append(field(99, protowire.VarintType, protowire.AppendVarint(nil, 1)), field(1, protowire.VarintType, protowire.AppendVarint(nil, 2))...),
	}
	for name, body := range cases {
		got, err := c.Decode(body, nil)
		require.NoError(t, err, name)
		assert.Equal(t, slowProto(t, md, body), got, name)
	}
	_, err = wireMessage(md, cases["a singular message twice (merged)"], 0, nil)
	assert.ErrorIs(t, err, errWireFallback)

	// A string that is not UTF-8 is proto3's error, said as dynamicpb says it.
	_, err = c.Decode(field(14, protowire.BytesType, protowire.AppendBytes(nil, []byte{0xff, 0xfe})), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "UTF-8")
	// Truncated bytes too.
	_, err = c.Decode([]byte{0x72, 0x05, 'a'}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shapes.All")
}
