package luaapi

import (
	"fmt"
	"io"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
)

// The arguments of the registry functions that are schemas or versions.

const schemaArgDoc = `the schema: its text (Avro, the registry's default type), {type="AVRO"|"PROTOBUF"|"JSON", schema=TEXT, references={{name=, subject=, version=}...}}, or {file="x.avsc"|"x.proto"|"x.json"} (the type from the extension)`

// schemaVersion is "latest" or a version number; Latest for "latest".
var schemaVersion = OneOf(
	Custom(`"latest"`, `"latest"`, func(_ *reader, v lua.LValue, at string) (any, error) {
		if s := strings.ToLower(strings.TrimSpace(string(v.(lua.LString)))); s == "latest" {
			return schemas.Latest, nil
		}
		return nil, argErr(at, `must be a version number or "latest", got %s`, describe(v))
	}, lua.LTString).Like(Enum("latest")),
	Custom("a version number (>= 1)", "1", func(r *reader, v lua.LValue, at string) (any, error) {
		n, err := Int32(1).Named("schema version").read(r, v, at)
		if err != nil {
			return nil, err
		}
		return int(n.(int32)), nil
	}, lua.LTNumber).Like(Int32(1)),
).Described(`a version number or "latest"`)

var schemaReference = Record(
	Field{Name: "name", Type: NonEmptyStr(), Required: true, Doc: "the name the schema imports it by (an Avro type's full name, a .proto file name, a JSON $ref)"},
	Field{Name: "subject", Type: subjectName, Required: true, Doc: "the subject that holds it"},
	Field{Name: "version", Type: schemaVersionNumber, Required: true, Doc: "its version"},
).Then(func(rec Rec, _ string) (any, error) {
	return schemas.Reference{Name: get[string](rec, "name"), Subject: get[string](rec, "subject"), Version: int(get[int32](rec, "version"))}, nil
})

// maxSchemaText bounds a schema given as text: the registry sets no
// limit by default, and 512 KiB is far more than any real schema (a
// larger one is a mistake: a file read whole, a value for a schema).
const maxSchemaText = 512 << 10

// schemaArg is a schema: its text (Avro), a table with its type and
// references, or a local file.
var schemaArg = OneOf(
	Custom("schema text (Avro)", `[[{"type":"string"}]]`, func(_ *reader, v lua.LValue, at string) (any, error) {
		text := string(v.(lua.LString))
		if strings.TrimSpace(text) == "" {
			return nil, argErr(at, "must not be empty")
		}
		if len(text) > maxSchemaText {
			return nil, argErr(at, "is %d bytes, more than %d", len(text), maxSchemaText)
		}
		return schemas.Schema{Type: schemas.TypeAvro, Text: text, References: []schemas.Reference{}}, nil
	}, lua.LTString),
	Record(
		Field{Name: "type", Type: Enum(schemas.Types...), Doc: "AVRO (default), PROTOBUF or JSON"},
		Field{Name: "schema", Type: NonEmptyStr().MaxLen(maxSchemaText), Doc: "the schema's text"},
		Field{Name: "references", Type: List[schemas.Reference](schemaReference), Doc: "the subjects' versions it imports"},
		Field{Name: "file", Type: NonEmptyStr(), Doc: "a local schema file: .avsc, .proto or .json"},
	).Then(func(rec Rec, at string) (any, error) {
		switch {
		case rec.Has("file") && rec.Has("schema"):
			return nil, argErr(at, "give schema or file, not both")
		case rec.Has("file"):
			s, err := schemas.LoadFile(get[string](rec, "file"), readSchemaFile)
			if err != nil {
				return nil, err
			}
			if rec.Has("type") && get[string](rec, "type") != s.Type {
				return nil, argErr(at, "type %s, but the file %s is %s (by its extension)", get[string](rec, "type"), s.File, s.Type)
			}
			s.References = get[[]schemas.Reference](rec, "references")
			if s.References == nil {
				s.References = []schemas.Reference{}
			}
			return s, nil
		case !rec.Has("schema"):
			return nil, argErr(at, "must have schema= (the text) or file=")
		}
		s := schemas.Schema{Type: schemas.TypeAvro, Text: get[string](rec, "schema"), References: get[[]schemas.Reference](rec, "references")}
		if rec.Has("type") {
			s.Type = get[string](rec, "type")
		}
		if s.References == nil {
			s.References = []schemas.Reference{}
		}
		return s, nil
	}).Sample(`{type = "AVRO", schema = [[{"type":"string"}]]}`),
).Described(`schema text, {type=, schema=, references=} or {file=}`)

// readSchemaFile reads a local schema file as scripts open files (never
// procfs), bounded.
func readSchemaFile(path string) ([]byte, error) {
	f, err := openScriptFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, schemas.MaxSchemaFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > schemas.MaxSchemaFile {
		return nil, fmt.Errorf("larger than %d MiB", schemas.MaxSchemaFile>>20)
	}
	return b, nil
}
