package luaapi

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// Decoding peeked records through their schemas (engine/schemas): the
// options that ask for it, and the decoded values as Lua tables.

// decodeModeType is decode=: one mode for keys and values, or
// {key=, value=}.
var decodeModeType = OneOf(
	Enum(schemas.DecodeModes...),
	Record(
		Field{Name: "key", Type: Enum(schemas.DecodeModes...), Doc: "how keys are decoded (default none)"},
		Field{Name: "value", Type: Enum(schemas.DecodeModes...), Doc: "how values are decoded (default none)"},
	).Then(func(rec Rec, _ string) (any, error) {
		return decodeModes{key: get[string](rec, "key"), value: get[string](rec, "value")}, nil
	}).Sample(`{value = "auto"}`),
).Described(`"auto", "avro", "protobuf", "json" or "none", or {key=, value=}`)

type decodeModes struct{ key, value string }

// localSchemaType is key_schema= / value_schema=: a local schema file.
var localSchemaType = Record(
	Field{Name: "file", Type: NonEmptyStr(), Required: true, Doc: "a local schema file: .avsc (Avro), .proto (Protobuf) or .json (JSON Schema)"},
	Field{Name: "message", Type: NonEmptyStr(), Doc: "for a .proto file: the message the records are (package.Message; default: the file's first, or the framing's message index)"},
	Field{Name: "framed", Type: Bool(), Doc: "the records are framed for a registry (magic byte, schema id, Protobuf message indexes): the framing is skipped; default: they are the bare encoding"},
).Then(func(rec Rec, at string) (any, error) {
	s, err := schemas.LoadFile(get[string](rec, "file"), readSchemaFile)
	if err != nil {
		return nil, err
	}
	codec, err := schemas.CompileLocal(s, get[string](rec, "message"), readSchemaFile)
	if err != nil {
		return nil, err
	}
	return &schemas.Decoder{Local: codec, LocalFramed: get[bool](rec, "framed")}, nil
}).Sample(`{file = "orders.avsc"}`)

const peekDecodeDoc = `decode decodes keys and values written for a Schema Registry: "auto" reads each key and value framed for the registry (a magic byte 0, the 4-byte schema id; for Protobuf the message indexes) with its schema (fetched once per id and run) and leaves the rest as format says; "avro", "protobuf" or "json" (JSON Schema) require that format; {key=, value=} decides per side (a string decode is for both). value_schema={file=} (key_schema too) reads every record with a local schema file (.avsc, .proto, .json), no registry needed; the records are the bare encoding unless framed=true. Asking to decode values implies values=true.
A decoded value is a table (records and maps as tables, arrays as arrays, a null as kafka.json.null) in the row's value (or key), with the schema id in value_schema_id (key_schema_id) and, where the registry can tell, the subject and version holding that id in value_subject and value_version (key_subject, key_version): the topic name strategy's subject (TOPIC-value, TOPIC-key) when it holds the id, else the one subject that does (its highest version holding the id, soft-deleted versions included); none when several subjects hold the id and none is the topic's, or the registry cannot say (asked once per id and call); Avro unions are their branch's value, enums their symbol, decimal a string with its scale, date "YYYY-MM-DD", timestamps RFC 3339 in UTC, uuid its text; Protobuf fields are named as in the .proto file, enums by name, unset proto3 scalars their zero value, well-known types in their JSON mapping; bytes are shown as format says. A record that cannot be decoded (an unknown schema id, bytes that are not what the framing says, a truncated record, a schema that does not compile, a registry that is down) keeps its bytes as format shows them and gets an error in the row (SCHEMA_NOT_FOUND, SCHEMA_DECODE_FAILED, NOT_SCHEMA_FRAMED, SCHEMA_INVALID, ...); the other rows decode on. A registry that is down, slow or failing is waited for once per call (up to --timeout): the later rows get its error at once.`

// peekDecoders builds the key and value decoders the options ask for.
func peekDecoders(c *Call) (key, value *schemas.Decoder, err error) {
	var modes decodeModes
	switch m := param[any](c, "decode").(type) {
	case string:
		modes = decodeModes{key: m, value: m}
	case decodeModes:
		modes = m
	}
	// A local schema's decoder is copied: the call sets its own subject,
	// builder and caches on it.
	key, value = &schemas.Decoder{Mode: modes.key}, &schemas.Decoder{Mode: modes.value}
	if d, ok := param[any](c, "key_schema").(*schemas.Decoder); ok {
		*key = *d
	}
	if d, ok := param[any](c, "value_schema").(*schemas.Decoder); ok {
		*value = *d
	}
	topic := param[string](c, "topic")
	key.Subject, value.Subject = topic+"-key", topic+"-value"
	for _, d := range []*schemas.Decoder{key, value} {
		if d.Local == nil && d.Active() {
			cl, cerr := c.Client()
			if cerr != nil {
				return nil, nil, cerr
			}
			d.Registry, d.RegistryErr = cl.Registry()
		}
	}
	return key, value, nil
}

// sideDecoded is a decoded key or value and what the registry says of it.
type sideDecoded struct {
	value   lua.LValue
	id      *int    // the schema id; nil for a local schema file
	subject *string // the subject and version the registry holds the id in, when it can tell
	version *int
}

// peekDecoding is what one peek call's decoding keeps across its records.
type peekDecoding struct {
	c    *Call
	show func([]byte) string
	// keys are decoded objects' keys as Lua strings, escaped and boxed
	// once: a schema's field names come again in every record, and each
	// was escaped and boxed again for each (an allocation a key a record).
	// Bounded, for Avro and Protobuf maps whose keys are the records' data.
	keys map[string]lua.LValue
	// subjects are SubjectOf's answers as a row shows them, per decoder
	// (key, value) and schema id: shared by the rows, not made for each.
	subjects map[subjectOf]subjectShown
}

type subjectOf struct {
	d  *schemas.Decoder
	id int
}

type subjectShown struct {
	subject *string
	version *int
}

const maxDecodedKeys = 4096

func newPeekDecoding(c *Call, show func([]byte) string) *peekDecoding {
	return &peekDecoding{c: c, show: show, keys: map[string]lua.LValue{}, subjects: map[subjectOf]subjectShown{}}
}

func (p *peekDecoding) key(s string) lua.LValue {
	if v, ok := p.keys[s]; ok {
		return v
	}
	v := lua.LValue(lua.LString(TerminalText(s)))
	if len(p.keys) < maxDecodedKeys {
		p.keys[s] = v
	}
	return v
}

// side decodes one key or value for the row; false: leave it as format
// shows it (and the row's error says why when it failed). The record's
// name is formatted only for an error: formatting it for every row was a
// tenth of decoding 10,000 records.
func (p *peekDecoding) side(d *schemas.Decoder, b []byte, at rowAt, row *peekRow) (sideDecoded, bool) {
	dec, err := d.Decode(p.c.Ctx(), b, "")
	if err != nil {
		err.Resource = rowResource(at.topic, at.partition, at.offset, at.side)
		if row.Err == nil {
			row.Err = err
		}
		return sideDecoded{}, false
	}
	if dec == nil {
		return sideDecoded{}, false
	}
	out := sideDecoded{value: p.lua(dec.Value)}
	if dec.SchemaID > 0 {
		out.id = &dec.SchemaID
		shown, ok := p.subjects[subjectOf{d, dec.SchemaID}]
		if !ok {
			if sv, ok := d.SubjectOf(p.c.Ctx(), dec.SchemaID); ok {
				subject := TerminalText(sv.Subject)
				shown = subjectShown{&subject, &sv.Version}
			}
			p.subjects[subjectOf{d, dec.SchemaID}] = shown
		}
		out.subject, out.version = shown.subject, shown.version
	}
	return out, true
}

// Object and Set build decoded records' objects straight as Lua tables
// (schemas.Builder), for the codecs that can.
func (p *peekDecoding) Object(size int) any {
	t := p.c.rt.L.CreateTable(0, size)
	t.Metatable = p.c.rt.conv.object
	return t
}

func (p *peekDecoding) Set(obj any, key string, v any) {
	obj.(*lua.LTable).RawSetH(p.key(key), p.lua(v))
}

// lua turns a decoded value into Lua: strings escaped as peek's text is,
// bytes shown as format says, null as null, maps as objects.
func (p *peekDecoding) lua(v any) lua.LValue {
	rt := p.c.rt
	switch x := v.(type) {
	case nil:
		return rt.null()
	case *lua.LTable: // built by Object
		return x
	case string:
		return lua.LString(TerminalText(x))
	case []byte:
		return lua.LString(p.show(x))
	case bool:
		return lua.LBool(x)
	case int64:
		return lua.LNumber(x)
	case float64:
		return lua.LNumber(x)
	case map[string]any:
		t := rt.L.CreateTable(0, len(x))
		for k, e := range x {
			t.RawSetH(p.key(k), p.lua(e))
		}
		t.Metatable = rt.conv.object
		return t
	case []any:
		t := rt.L.CreateTable(len(x), 0)
		for i, e := range x {
			t.RawSetInt(i+1, p.lua(e))
		}
		return t
	}
	return lua.LString(TerminalText(fmt.Sprint(v)))
}

// rowAt is where a decoded key or value is: its row's record and side.
type rowAt struct {
	topic     string
	partition int32
	offset    int64
	side      string
}

// rowResource names a row's record in its errors.
func rowResource(topic string, partition int32, offset int64, side string) string {
	return fmt.Sprintf("%s[%d]@%d %s", topic, partition, offset, side)
}
