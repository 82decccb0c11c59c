package schemas

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Codecs: a schema compiled once into what reads the records written with
// it. Decoded values are plain Go values shaped like JSON (map[string]any,
// []any, string, int64, float64, bool, nil; []byte for Avro bytes and
// fixed), so that the Lua layer turns them into tables without knowing the
// formats.

// Error codes of a record that could not be decoded (the row keeps its raw
// bytes and says why).
const (
	// CodeNotFramed: the bytes do not start with the registry's framing
	// (a magic byte 0 and a 4-byte schema id) where a format was forced.
	CodeNotFramed = "NOT_SCHEMA_FRAMED"
	// CodeDecode: the bytes are not what their schema says (truncated,
	// another format, a value out of the schema's range).
	CodeDecode = "SCHEMA_DECODE_FAILED"
	// CodeSchemaInvalid: the schema does not compile (bad syntax, a
	// reference that cannot be resolved, a recursion with no end).
	CodeSchemaInvalid = "SCHEMA_INVALID"
	// CodeWrongFormat: a format was forced and the record's schema is of
	// another type.
	CodeWrongFormat = "SCHEMA_TYPE_MISMATCH"
)

// Codec reads the bodies of one schema's records (the bytes after the
// framing).
type Codec interface {
	// Type is TypeAvro, TypeProtobuf or TypeJSON.
	Type() string
	// Decode reads body; index is the Protobuf message index path (nil
	// for the schema's first message, ignored by the other formats).
	Decode(body []byte, index []int) (any, error)
	// Encode writes v (a script's value: tables as map[string]any and
	// []any, numbers float64) as the schema's body, checking it first: a
	// value that does not fit is a *FieldError naming where. index is the
	// Protobuf message index path to frame it with.
	Encode(v any) (body []byte, index []int, err error)
}

// Builder makes a decoded record's objects in a caller's own form (the
// Lua layer's tables) as they are read, instead of Go maps it would copy
// after: building each record twice was a fifth of decoding it.
type Builder interface {
	// Object starts an object of about size keys.
	Object(size int) any
	// Set gives obj key's value: a value as Decode gives it, or what
	// Object made.
	Set(obj any, key string, v any)
}

// builderCodec is a codec that can build objects through a Builder.
type builderCodec interface {
	decodeBuilt(body []byte, index []int, b Builder) (any, error)
}

// maxReferenceDepth bounds the chain of references followed to compile a
// schema, and maxReferences their number: a cycle of references, or a
// registry answering with references without end, fails rather than
// loops.
const (
	maxReferenceDepth = 32
	maxReferences     = 256
)

// sources are a schema's text and the texts of everything it references
// (transitively), by the name it is imported by.
type sources struct {
	main  Schema
	deps  []namedSchema // dependencies before their dependents (Avro parses in this order)
	files func(path string) ([]byte, error)
}

type namedSchema struct {
	name   string
	schema Schema
}

// resolveReferences fetches s's references, depth first, each once.
func resolveReferences(ctx context.Context, s Schema, fetch func(context.Context, Reference) (Schema, error)) ([]namedSchema, error) {
	var out []namedSchema
	seen := map[string]bool{}
	var walk func(refs []Reference, depth int) error
	walk = func(refs []Reference, depth int) error {
		if depth > maxReferenceDepth {
			return fmt.Errorf("references nest deeper than %d", maxReferenceDepth)
		}
		for _, ref := range refs {
			key := ref.Subject + "\x00" + strconv.Itoa(ref.Version)
			if seen[key] {
				continue
			}
			seen[key] = true
			if len(seen) > maxReferences {
				return fmt.Errorf("more than %d references", maxReferences)
			}
			if fetch == nil {
				return fmt.Errorf("reference %s (subject %s version %d) needs a schema registry", ref.Name, ref.Subject, ref.Version)
			}
			dep, err := fetch(ctx, ref)
			if err != nil {
				return err
			}
			if err := walk(dep.References, depth+1); err != nil {
				return err
			}
			out = append(out, namedSchema{name: ref.Name, schema: dep})
		}
		return nil
	}
	return out, walk(s.References, 0)
}

// compile builds the codec of src.
func compile(src sources) (Codec, error) {
	switch src.main.Type {
	case TypeAvro, "":
		return compileAvro(src)
	case TypeProtobuf:
		return compileProtobuf(src)
	case TypeJSON:
		return compileJSON(src)
	}
	return nil, fmt.Errorf("unknown schema type %q", src.main.Type)
}

// CompileLocal builds the codec of a local schema file (LoadFile's
// schema): a .proto file's imports are read beside it through read;
// message picks a Protobuf message by its full name ("" for the file's
// first).
func CompileLocal(s Schema, message string, read func(string) ([]byte, error)) (Codec, error) {
	c, err := compile(sources{main: s, files: read})
	if err != nil {
		var e *vocab.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, vocab.Errorf(CodeSchemaInvalid, s.File, "the schema does not compile: %v", err)
	}
	return ForMessage(c, message, s.File)
}

// ForMessage is c reading and writing the Protobuf message named message
// (its full name, or its name when unique in the file); c itself for "".
// resource names the schema in errors.
func ForMessage(c Codec, message, resource string) (Codec, error) {
	if message == "" {
		return c, nil
	}
	pc, ok := c.(*protoCodec)
	if !ok {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, resource, "message= names a Protobuf message; the schema is %s", c.Type())
	}
	out, err := pc.withMessage(message)
	if err != nil {
		return nil, vocab.Errorf(vocab.CodeInvalidArgument, resource, "%v", err)
	}
	return out, nil
}

// CodecByID is schema id's codec, compiled once per registry client with
// the references it names; a schema that does not compile is
// SCHEMA_INVALID, kept as the answer for the id.
func (r *Registry) CodecByID(ctx context.Context, id int) (Codec, error) {
	e := r.entry(ctx, id, true)
	if e.err != nil {
		return nil, e.err
	}
	e.compileOnce.Do(func() {
		deps, err := resolveReferences(ctx, e.schema, func(ctx context.Context, ref Reference) (Schema, error) {
			s, err := r.SchemaAt(ctx, ref.Subject, ref.Version, true)
			return s.AsSchema(), err
		})
		if err == nil {
			e.codec, err = compile(sources{main: e.schema, deps: deps})
		}
		if err != nil {
			if ve, ok := err.(*vocab.Error); ok {
				e.codecErr = ve
			} else {
				e.codecErr = vocab.Errorf(CodeSchemaInvalid, "schema id "+strconv.Itoa(id), "the schema does not compile: %v", err)
			}
		}
	})
	if e.codecErr != nil {
		return nil, e.codecErr
	}
	return e.codec, nil
}

// Framing, as Confluent's serializers write it (sr.ConfluentHeader): a
// magic byte 0, the schema id (4 bytes, big endian), for Protobuf the
// message index path (zigzag varints), then the body.
var header sr.ConfluentHeader

// Framed splits b into its schema id and the rest; ok is false when b is
// not framed (too short, or no magic byte).
func Framed(b []byte) (id int, rest []byte, ok bool) {
	id, rest, err := header.DecodeID(b)
	return id, rest, err == nil
}

// maxIndexDepth bounds a Protobuf message index path: messages nest far
// less deep than this in any real schema.
const maxIndexDepth = 64

// splitIndex reads the message index path at the start of a Protobuf
// body.
func splitIndex(b []byte) ([]int, []byte, error) {
	if len(b) > 0 && b[0] == 0 {
		// The first message, as most records are: a single 0 (Confluent's
		// short form), with no slice allocated for it.
		return firstMessage, b[1:], nil
	}
	index, rest, err := header.DecodeIndex(b, maxIndexDepth)
	if err != nil {
		return nil, nil, fmt.Errorf("the message index path is malformed (%v)", err)
	}
	return index, rest, nil
}

// firstMessage is the index path of a schema's first message; read only.
var firstMessage = []int{0}

// Frame is body framed for the registry: the magic byte, id, and for
// Protobuf the message index path.
func Frame(id int, index []int, body []byte) []byte {
	b, _ := header.AppendEncode(make([]byte, 0, 6+len(body)), id, index)
	return append(b, body...)
}

// CodecOfSubject is the codec of subject's version (Latest: the newest)
// and the schema's id, to encode records with.
func (r *Registry) CodecOfSubject(ctx context.Context, subject string, version int) (Codec, int, error) {
	s, err := r.SchemaAt(ctx, subject, version, false)
	if err != nil {
		return nil, 0, err
	}
	c, err := r.CodecByID(ctx, s.ID)
	return c, s.ID, err
}
