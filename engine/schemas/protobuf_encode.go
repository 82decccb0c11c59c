package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Encoding a script's table as a Protobuf message: the values Decode
// gives are accepted back (fields by their .proto or JSON names, enums by
// name or number, the well-known types in their JSON mapping).

// Encode writes v as the codec's message (its fixed message, or the
// file's first) and says its message index path.
func (c *protoCodec) Encode(v any) ([]byte, []int, error) {
	md, err := c.message(nil)
	if err != nil {
		return nil, nil, err
	}
	msg := dynamicpb.NewMessage(md)
	if err := fillMessage(msg, v, "", 0); err != nil {
		return nil, nil, err
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, nil, err
	}
	return b, indexOf(md), nil
}

// indexOf is md's message index path in its file.
func indexOf(md protoreflect.MessageDescriptor) []int {
	var path []int
	for d := protoreflect.Descriptor(md); ; {
		m, ok := d.(protoreflect.MessageDescriptor)
		if !ok {
			break
		}
		path = append(path, m.Index())
		d = m.Parent()
	}
	slices.Reverse(path)
	return path
}

func fillMessage(m protoreflect.Message, v any, path string, depth int) error {
	md := m.Descriptor()
	if depth > maxProtoRecursion {
		return fieldErr(path, "nested deeper than %d levels", maxProtoRecursion)
	}
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		b, err := json.Marshal(v)
		if err == nil {
			err = protojson.Unmarshal(b, m.Interface())
		}
		if err != nil {
			return fieldErr(path, "is not a %s in its JSON form: %v", md.FullName(), err)
		}
		return nil
	}
	obj, ok := asObject(v)
	if !ok {
		return fieldErr(path, "must be a table (message %s), got %s", md.FullName(), kind(v))
	}
	for _, k := range slices.Sorted(mapKeys(obj)) {
		fd := md.Fields().ByName(protoreflect.Name(k))
		if fd == nil {
			fd = md.Fields().ByJSONName(k)
		}
		if fd == nil {
			return fieldErr(child(path, k), "message %s has no such field", md.FullName())
		}
		x := obj[k]
		if x == nil {
			continue
		}
		p := child(path, k)
		switch {
		case fd.IsList():
			arr, ok := asArray(x)
			if !ok {
				return fieldErr(p, "must be an array (repeated), got %s", kind(x))
			}
			l := m.Mutable(fd).List()
			for i, e := range arr {
				ev, err := protoValueOf(fd, l.NewElement, e, fmt.Sprintf("%s[%d]", p, i+1), depth)
				if err != nil {
					return err
				}
				l.Append(ev)
			}
		case fd.IsMap():
			obj, ok := asObject(x)
			if !ok {
				return fieldErr(p, "must be a table (map), got %s", kind(x))
			}
			mp := m.Mutable(fd).Map()
			for _, mk := range slices.Sorted(mapKeys(obj)) {
				key, err := protoMapKey(fd.MapKey(), mk, child(p, mk))
				if err != nil {
					return err
				}
				ev, err := protoValueOf(fd.MapValue(), mp.NewValue, obj[mk], child(p, mk), depth)
				if err != nil {
					return err
				}
				mp.Set(key, ev)
			}
		default:
			ev, err := protoValueOf(fd, func() protoreflect.Value { return m.NewField(fd) }, x, p, depth)
			if err != nil {
				return err
			}
			m.Set(fd, ev)
		}
	}
	return nil
}

func protoValueOf(fd protoreflect.FieldDescriptor, fresh func() protoreflect.Value, v any, path string, depth int) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if b, ok := v.(bool); ok {
			return protoreflect.ValueOfBool(b), nil
		}
		return protoreflect.Value{}, fieldErr(path, "must be a boolean, got %s", kind(v))
	case protoreflect.EnumKind:
		if s, ok := v.(string); ok {
			if ev := fd.Enum().Values().ByName(protoreflect.Name(s)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
			return protoreflect.Value{}, fieldErr(path, "enum %s has no value %s", fd.Enum().FullName(), shown(s))
		}
		n, err := integer(v, path)
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return protoreflect.Value{}, fieldErr(path, "must be a name or number of enum %s, got %s", fd.Enum().FullName(), kind(v))
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		n, err := integer(v, path)
		if err == nil && (n < math.MinInt32 || n > math.MaxInt32) {
			err = fieldErr(path, "%d is out of int32's range", n)
		}
		return protoreflect.ValueOfInt32(int32(n)), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		n, err := integer(v, path)
		return protoreflect.ValueOfInt64(n), err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := integer(v, path)
		if err == nil && (n < 0 || n > math.MaxUint32) {
			err = fieldErr(path, "%d is out of uint32's range", n)
		}
		return protoreflect.ValueOfUint32(uint32(n)), err
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := integer(v, path)
		if err == nil && n < 0 {
			err = fieldErr(path, "%d is negative, for an unsigned field", n)
		}
		return protoreflect.ValueOfUint64(uint64(n)), err
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f, ok := number(v)
		if !ok {
			return protoreflect.Value{}, fieldErr(path, "must be a number, got %s", kind(v))
		}
		if fd.Kind() == protoreflect.FloatKind {
			return protoreflect.ValueOfFloat32(float32(f)), nil
		}
		return protoreflect.ValueOfFloat64(f), nil
	case protoreflect.StringKind:
		if s, ok := v.(string); ok {
			return protoreflect.ValueOfString(s), nil
		}
		return protoreflect.Value{}, fieldErr(path, "must be a string, got %s", kind(v))
	case protoreflect.BytesKind:
		if s, ok := v.(string); ok {
			return protoreflect.ValueOfBytes([]byte(s)), nil
		}
		return protoreflect.Value{}, fieldErr(path, "must be a string (bytes), got %s", kind(v))
	case protoreflect.MessageKind, protoreflect.GroupKind:
		nv := fresh()
		if err := fillMessage(nv.Message(), v, path, depth+1); err != nil {
			return protoreflect.Value{}, err
		}
		return nv, nil
	}
	return protoreflect.Value{}, fieldErr(path, "unexpected kind %s", fd.Kind())
}

func protoMapKey(fd protoreflect.FieldDescriptor, k, path string) (protoreflect.MapKey, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(k).MapKey(), nil
	case protoreflect.BoolKind:
		b, err := strconv.ParseBool(k)
		if err != nil {
			return protoreflect.MapKey{}, fieldErr(path, "map key must be true or false")
		}
		return protoreflect.ValueOfBool(b).MapKey(), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n, err := strconv.ParseUint(k, 10, 64)
		if err != nil || (fd.Kind() != protoreflect.Uint64Kind && fd.Kind() != protoreflect.Fixed64Kind && n > math.MaxUint32) {
			return protoreflect.MapKey{}, fieldErr(path, "map key must be an unsigned integer of %s", fd.Kind())
		}
		if fd.Kind() == protoreflect.Uint64Kind || fd.Kind() == protoreflect.Fixed64Kind {
			return protoreflect.ValueOfUint64(n).MapKey(), nil
		}
		return protoreflect.ValueOfUint32(uint32(n)).MapKey(), nil
	}
	n, err := strconv.ParseInt(k, 10, 64)
	if err != nil {
		return protoreflect.MapKey{}, fieldErr(path, "map key must be an integer")
	}
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(n).MapKey(), nil
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return protoreflect.MapKey{}, fieldErr(path, "map key %d is out of int32's range", n)
	}
	return protoreflect.ValueOfInt32(int32(n)).MapKey(), nil
}
