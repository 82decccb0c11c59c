package schemas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Protobuf: the registry's schema text (a .proto file) compiled with
// bufbuild/protocompile, its references served as the files it imports
// (the well-known types built in), records read into dynamicpb messages.

type protoCodec struct {
	file protoreflect.FileDescriptor
	// fixed is the message every record is read as (a local file's
	// message=); nil: the record's message index path says.
	fixed protoreflect.MessageDescriptor
}

func (*protoCodec) Type() string { return TypeProtobuf }

// mainProto is the name the registry's schema is compiled under: a name
// no reference would import.
const mainProto = "kadmin-lua/registry-schema.proto"

// maxProtoRecursion bounds how deep a record's messages nest: a recursive
// message is read as deep as its data goes, up to this.
const maxProtoRecursion = 256

func compileProtobuf(src sources) (Codec, error) {
	if fdp, ok := serializedDescriptor(src.main.Text); ok && src.main.File == "" {
		return compileSerialized(src, fdp)
	}
	var resolver protocompile.Resolver
	name := mainProto
	if src.main.File != "" {
		// A local file: its imports are read beside it.
		dir := filepath.Dir(src.main.File)
		name = filepath.Base(src.main.File)
		resolver = &protocompile.SourceResolver{ImportPaths: []string{dir}, Accessor: func(path string) (io.ReadCloser, error) {
			if path == filepath.Join(dir, name) {
				return io.NopCloser(strings.NewReader(src.main.Text)), nil
			}
			b, err := src.files(path)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}}
	} else {
		files := map[string]string{name: src.main.Text}
		for _, d := range src.deps {
			if d.schema.Type != TypeProtobuf {
				return nil, fmt.Errorf("reference %s is %s, not Protobuf", d.name, d.schema.Type)
			}
			files[d.name] = d.schema.Text
		}
		resolver = &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(files)}
	}
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(resolver)}
	fds, err := comp.Compile(context.Background(), name)
	if err != nil {
		return nil, err
	}
	if fds[0].Messages().Len() == 0 {
		return nil, fmt.Errorf("the schema has no message")
	}
	return &protoCodec{file: fds[0]}, nil
}

// withMessage is c reading every record as the message named full (or
// its short name when that is unique in the file).
func (c *protoCodec) withMessage(full string) (*protoCodec, error) {
	var found []protoreflect.MessageDescriptor
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			if string(m.FullName()) == full || string(m.Name()) == full {
				found = append(found, m)
			}
			walk(m.Messages())
		}
	}
	walk(c.file.Messages())
	if len(found) != 1 {
		return nil, fmt.Errorf("%s has %d messages named %s (want one; give its full name, package.Message)", c.file.Path(), len(found), full)
	}
	return &protoCodec{file: c.file, fixed: found[0]}, nil
}

// message is the message an index path names: the first number a
// top-level message, each next one a message nested in it.
func (c *protoCodec) message(index []int) (protoreflect.MessageDescriptor, error) {
	if c.fixed != nil {
		return c.fixed, nil
	}
	if len(index) == 0 {
		index = []int{0}
	}
	ms := c.file.Messages()
	var md protoreflect.MessageDescriptor
	for _, i := range index {
		if i < 0 || i >= ms.Len() {
			return nil, fmt.Errorf("the message index path %v names no message of the schema", index)
		}
		md = ms.Get(i)
		ms = md.Messages()
	}
	return md, nil
}

// Decode reads one message. Fields are named as in the .proto file;
// scalars are numbers, strings and booleans (proto3's unset scalars as
// their zero value, as a Go or Java consumer's getters give them), enums
// their value's name, bytes their bytes, repeated fields arrays, maps
// tables, unset messages and oneofs nil; the well-known types
// (google.protobuf.Timestamp, Duration, wrappers, Struct, Any, ...) their
// JSON mapping (a Timestamp is "2024-01-31T12:00:00Z").
func (c *protoCodec) Decode(body []byte, index []int) (any, error) {
	return c.decodeBuilt(body, index, nil)
}

// decodeBuilt is Decode with the messages the wire reader reads made by b
// (Go maps when nil; what goes to dynamicpb is Go maps).
func (c *protoCodec) decodeBuilt(body []byte, index []int, b Builder) (any, error) {
	md, err := c.message(index)
	if err != nil {
		return nil, err
	}
	if v, err := wireMessage(md, body, 0, b); !errors.Is(err, errWireFallback) {
		return v, err
	}
	msg := dynamicpb.NewMessage(md)
	if err := unmarshalProto(body, msg); err != nil {
		return nil, fmt.Errorf("%s: %v", md.FullName(), err)
	}
	return protoValue(msg)
}

// unmarshalProto reads body into msg. AllowPartial: a proto2 message
// missing a required field is shown as it is (what a script is asked to
// look at), and proto3 skips the walk that checks it.
func unmarshalProto(body []byte, msg *dynamicpb.Message) error {
	return proto.UnmarshalOptions{RecursionLimit: maxProtoRecursion, AllowPartial: true}.Unmarshal(body, msg)
}

func protoValue(m protoreflect.Message) (any, error) {
	md := m.Descriptor()
	if md.ParentFile() != nil && strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		b, err := protojson.Marshal(m.Interface())
		if err != nil {
			return nil, err
		}
		return parseJSON(b)
	}
	fields := md.Fields()
	out := make(map[string]any, fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) && !fd.IsList() && !fd.IsMap() && (fd.HasPresence() || fd.Message() != nil) {
			continue // an unset message, oneof member or optional: nil; an empty list or map is one
		}
		v, err := protoField(fd, m.Get(fd))
		if err != nil {
			return nil, err
		}
		out[string(fd.Name())] = v
	}
	return out, nil
}

func protoField(fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	switch {
	case fd.IsList():
		l := v.List()
		arr := make([]any, l.Len())
		for i := range l.Len() {
			x, err := protoScalar(fd, l.Get(i))
			if err != nil {
				return nil, err
			}
			arr[i] = x
		}
		return arr, nil
	case fd.IsMap():
		out := map[string]any{}
		var err error
		v.Map().Range(func(k protoreflect.MapKey, x protoreflect.Value) bool {
			var y any
			if y, err = protoScalar(fd.MapValue(), x); err == nil {
				out[k.String()] = y
			}
			return err == nil
		})
		return out, err
	}
	return protoScalar(fd, v)
}

func protoScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return v.Bool(), nil
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name()), nil
		}
		return int64(v.Enum()), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int(), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if u := v.Uint(); u <= math.MaxInt64 {
			return int64(u), nil
		}
		return float64(v.Uint()), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float(), nil
	case protoreflect.StringKind:
		return v.String(), nil
	case protoreflect.BytesKind:
		return v.Bytes(), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoValue(v.Message())
	}
	return nil, fmt.Errorf("field %s: unexpected kind %s", fd.FullName(), fd.Kind())
}
