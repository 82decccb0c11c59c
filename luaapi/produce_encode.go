package luaapi

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// produce with schemas: records given as tables, encoded with a registry
// subject's schema and framed for it, every record checked before any is
// sent.

// produceInput is one record as produce reads it: key and value still Lua
// values (strings, or tables to encode).
type produceInput struct {
	engine.ProduceRecord
	key, value lua.LValue
}

// schemaValueType is a key or value: bytes, or a table (or any value its
// schema takes) to encode with key_schema / value_schema.
var schemaValueType = Custom("a string, or with a schema a table", `"v"`, func(_ *reader, v lua.LValue, at string) (any, error) {
	if s, ok := v.(lua.LString); ok && len(s) > maxKafkaString {
		return nil, argErr(at, "is %d bytes, more than %d", len(s), maxKafkaString)
	}
	return v, nil
}, lua.LTString, lua.LTTable, lua.LTNumber, lua.LTBool, lua.LTUserData).Like(Str())

// producedSchema is key_schema= / value_schema=.
type producedSchema struct {
	subject, message string
	version          int
}

var produceSchemaType = Record(
	Field{Name: "subject", Type: subjectName, Required: true, Doc: "the subject whose schema encodes the records"},
	Field{Name: "version", Type: schemaVersion, Doc: `its version (default "latest")`},
	Field{Name: "message", Type: NonEmptyStr(), Doc: "for Protobuf: the message (default: the schema's first)"},
).Then(func(rec Rec, _ string) (any, error) {
	ps := producedSchema{subject: get[string](rec, "subject"), message: get[string](rec, "message"), version: schemas.Latest}
	if rec.Has("version") {
		ps.version = get[int](rec, "version")
	}
	return ps, nil
}).Sample(`{subject = "orders-value"}`)

const produceSchemaDoc = `With value_schema={subject=S} (key_schema too) each value is a table (or any value the schema takes) encoded with the subject's latest schema (or version=), framed for the registry as Confluent's serializers frame it (magic byte, schema id, Protobuf message indexes): Avro (decimals as strings or numbers, timestamps as RFC 3339 or numbers, dates as YYYY-MM-DD, unions by the first branch the value fits), Protobuf (fields by name, enums by name or number, well-known types in their JSON form) or JSON Schema (validated, written as JSON). Every record is checked before anything is sent, under --dry-run too: one that does not fit refuses the whole call with INVALID_ARGUMENT naming the record and the field path (record #3: value.total.amount: ...). peek's decoded values are accepted back as they are, but for what peek escapes for the terminal: a bytes field (shown as format says) and a string holding controls or bytes that are not UTF-8 (shown as \x1b, \xff) would be written as that text, so give those as Lua strings of their real bytes. A value left out stays a tombstone.`

// encodeRecords turns the inputs into records, encoding tables with the
// schemas the options name; the first record that does not fit fails
// the call.
func encodeRecords(c *Call, in []produceInput) ([]engine.ProduceRecord, error) {
	keyCodec, keyID, err := produceCodec(c, "key_schema")
	if err != nil {
		return nil, err
	}
	valueCodec, valueID, err := produceCodec(c, "value_schema")
	if err != nil {
		return nil, err
	}
	out := make([]engine.ProduceRecord, len(in))
	for i, r := range in {
		rec := r.ProduceRecord
		if rec.Key, err = encodeSide(c, r.key, keyCodec, keyID, fmt.Sprintf("record #%d: key", i+1), "key_schema"); err != nil {
			return nil, err
		}
		if rec.Value, err = encodeSide(c, r.value, valueCodec, valueID, fmt.Sprintf("record #%d: value", i+1), "value_schema"); err != nil {
			return nil, err
		}
		out[i] = rec
	}
	return out, nil
}

// produceCodec is the codec and id of the schema option opt names; nil
// when not given.
func produceCodec(c *Call, opt string) (schemas.Codec, int, error) {
	if !c.Given(opt) {
		return nil, 0, nil
	}
	ps := param[producedSchema](c, opt)
	cl, err := c.Client()
	if err != nil {
		return nil, 0, err
	}
	reg, err := cl.Registry()
	if err != nil {
		return nil, 0, err
	}
	codec, id, err := reg.CodecOfSubject(c.Ctx(), ps.subject, ps.version)
	if err != nil {
		return nil, 0, err
	}
	codec, err = schemas.ForMessage(codec, ps.message, ps.subject)
	return codec, id, err
}

// encodeSide is one key or value as bytes: nil stays nil (a null), a
// string without a schema is its bytes, anything with a schema is encoded.
func encodeSide(c *Call, v lua.LValue, codec schemas.Codec, id int, at, opt string) (*string, error) {
	if v == nil || v == lua.LNil {
		return nil, nil
	}
	if codec == nil {
		if s, ok := v.(lua.LString); ok {
			b := string(s)
			return &b, nil
		}
		return nil, argErr(at, "must be a string, got %s (another value needs %s= to be encoded)", describe(v), opt)
	}
	gv, err := scriptValue(c.rt, v, output.NewGuard(at).Small(), lua.LNil, at)
	if err != nil {
		return nil, err
	}
	body, index, err := codec.Encode(gv)
	if err != nil {
		var fe *schemas.FieldError
		if errors.As(err, &fe) && fe.Path != "" {
			return nil, argErr(at+"."+fe.Path, "%s", fe.Msg)
		} else if fe != nil {
			return nil, argErr(at, "%s", fe.Msg)
		}
		return nil, argErr(at, "does not fit the schema: %v", err)
	}
	b := string(schemas.Frame(id, index, body))
	return &b, nil
}

// scriptValue is a Lua value as the codecs take it: kafka.json.null and
// nil are nil, numbers float64, sequences []any, other tables
// map[string]any; cycles and depth are bounded by the guard.
func scriptValue(rt *Runtime, v lua.LValue, g *output.Guard, key lua.LValue, at string) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		return float64(x), nil
	case lua.LString:
		return string(x), nil
	case *lua.LUserData:
		if v == rt.null() {
			return nil, nil
		}
	case *lua.LTable:
		if err := g.Count(key, 0); err != nil {
			return nil, err
		}
		if err := g.Enter(key, x); err != nil {
			return nil, err
		}
		defer g.Leave(x)
		if output.IsArray(x) {
			out := make([]any, x.Len())
			for i := range out {
				e, err := scriptValue(rt, x.RawGetInt(i+1), g, lua.LNumber(i+1), fmt.Sprintf("%s[%d]", at, i+1))
				if err != nil {
					return nil, err
				}
				out[i] = e
			}
			return out, nil
		}
		out := map[string]any{}
		for _, k := range output.TableKeys(x) {
			ks, ok := k.(lua.LString)
			if !ok {
				return nil, argErr(at, "has a key %s: a record's field names are strings", describe(k))
			}
			e, err := scriptValue(rt, x.RawGet(k), g, k, at+"."+string(ks))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return nil, argErr(at, "is %s: not a value a schema can encode", describe(v))
}
