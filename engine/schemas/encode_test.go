package schemas

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What Decode gives, Encode takes back: the same datum (Avro) or the same
// message (Protobuf), so a script can read a record, change a field and
// write it again.
func TestEncodeTakesBackWhatDecodeGives(t *testing.T) {
	r, _, _ := codecRegistry(t)
	avroBody := avroOrderBytes(t)
	c, err := r.CodecByID(ctx(t), 2)
	require.NoError(t, err)
	v, err := c.Decode(avroBody, nil)
	require.NoError(t, err)
	b, index, err := c.Encode(v)
	require.NoError(t, err)
	assert.Nil(t, index)
	back, err := c.Decode(b, nil)
	require.NoError(t, err)
	assert.Equal(t, v, back)
	// The same bytes but for the blocks' counts: hamba writes arrays and
	// maps with their byte sizes (a negative count), we do not; both are Avro.
	assert.Equal(t, avroBody[:60], b[:60], "the decimal is written in the fewest bytes, as Java does")

	pc, err := r.CodecByID(ctx(t), 4)
	require.NoError(t, err)
	pv, err := pc.Decode(protoOrderBytes(t, r), nil)
	require.NoError(t, err)
	pb, pindex, err := pc.Encode(pv)
	require.NoError(t, err)
	assert.Equal(t, []int{0}, pindex)
	again, err := pc.Decode(pb, pindex)
	require.NoError(t, err)
	assert.Equal(t, pv, again)

	jc, err := r.CodecByID(ctx(t), 5)
	require.NoError(t, err)
	jb, _, err := jc.Encode(map[string]any{"n": 3.0})
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":3}`, string(jb))

	framed := Frame(4, []int{1}, []byte{1})
	assert.Equal(t, []byte{0, 0, 0, 0, 4, 2, 2, 1}, framed)
}

// A value that does not fit its schema is a FieldError naming the field
// path and what is wrong.
func TestEncodeNamesTheFieldThatDoesNotFit(t *testing.T) {
	r, _, _ := codecRegistry(t)
	avroC, err := r.CodecByID(ctx(t), 2)
	require.NoError(t, err)
	good, err := avroC.Decode(avroOrderBytes(t), nil)
	require.NoError(t, err)
	with := func(path []string, v any) map[string]any {
		out := map[string]any{}
		for k, x := range good.(map[string]any) {
			out[k] = x
		}
		if len(path) == 2 {
			inner := map[string]any{}
			for k, x := range out[path[0]].(map[string]any) {
				inner[k] = x
			}
			inner[path[1]] = v
			out[path[0]] = inner
		} else {
			out[path[0]] = v
		}
		return out
	}
	protoC, err := r.CodecByID(ctx(t), 4)
	require.NoError(t, err)
	jsonC, err := r.CodecByID(ctx(t), 5)
	require.NoError(t, err)
	cases := []struct {
		name  string
		codec Codec
		v     any
		path  string
		msg   string
	}{
		{"decimal with too many digits", avroC, with([]string{"total", "amount"}, "1.234"), "total.amount", "more than 2 digits"},
		{"enum symbol", avroC, with([]string{"status"}, "LOST"), "status", "must be one of NEW, PAID"},
		{"missing field", avroC, map[string]any{"id": "x"}, "status", "missing"},
		{"unknown field", avroC, with([]string{"colour"}, "red"), "colour", "no such field"},
		{"array item", avroC, with([]string{"tags"}, []any{"a", 7.0}), "tags[2]", "must be a string"},
		{"timestamp", avroC, with([]string{"at"}, "yesterday"), "at", "RFC 3339"},
		{"not a record", avroC, "x", "", "must be a table"},
		{"proto enum", protoC, map[string]any{"status": "LOST"}, "status", "has no value"},
		{"proto int range", protoC, map[string]any{"lines": []any{map[string]any{"qty": 1e10}}}, "lines[1].qty", "out of int32's range"},
		{"proto unknown field", protoC, map[string]any{"total": map[string]any{"cents": 1.0}}, "total.cents", "no such field"},
		{"proto timestamp", protoC, map[string]any{"at": "soon"}, "at", "google.protobuf.Timestamp"},
		{"json schema", jsonC, map[string]any{"n": "three"}, "n", "want integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := c.codec.Encode(c.v)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.path, fe.Path)
			assert.Contains(t, fe.Msg, c.msg)
		})
	}
}

// A JSON Schema's $ref to anything but its references is refused, not
// fetched.
func TestJSONSchemaNeverFetchesAURL(t *testing.T) {
	_, err := compileJSON(sources{main: Schema{Type: TypeJSON, Text: `{"$ref":"http://127.0.0.1:1/evil.json"}`}})
	assert.ErrorContains(t, err, "schemas are never fetched from URLs")
}
