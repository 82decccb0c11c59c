package schemas

import (
	"errors"
	"math"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The fast path of Protobuf decoding: the wire format read against the
// descriptors straight into the values a script gets, with no dynamicpb
// message in between (building one and walking it by reflection was most
// of decoding 10,000 records). It reads the common shapes: scalars,
// enums, strings, bytes, nested messages, repeated fields packed or not,
// maps. Anything else (a group, a singular message sent twice, which
// Protobuf merges, a wire type that does not match its field, a string
// that is not UTF-8, bytes that do not parse, depth past the limit) makes
// it give up, and the record is read again by proto.Unmarshal into
// dynamicpb: the reference, whose value or error is the answer.

// errWireFallback says the fast path leaves this record to dynamicpb.
var errWireFallback = errors.New("left to dynamicpb")

// wireSlot is one field's value while its message is read.
type wireSlot struct {
	v   any
	set bool
}

// wireMessage reads one message's bytes as md; its objects (this
// message's and nested ones) are made by build, or are Go maps when nil.
func wireMessage(md protoreflect.MessageDescriptor, b []byte, depth int, build Builder) (any, error) {
	if depth > maxProtoRecursion {
		return nil, errWireFallback
	}
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		// A well-known type reads as its JSON mapping, which is protojson's.
		msg := dynamicpb.NewMessage(md)
		if err := unmarshalProto(b, msg); err != nil {
			return nil, errWireFallback
		}
		return protoValue(msg)
	}
	fields := md.Fields()
	slots := make([]wireSlot, fields.Len())
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errWireFallback
		}
		b = b[n:]
		fd := fields.ByNumber(num)
		if fd == nil {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return nil, errWireFallback
			}
			b = b[n:]
			continue
		}
		slot := &slots[fd.Index()]
		switch {
		case fd.IsMap():
			if typ != protowire.BytesType {
				return nil, errWireFallback
			}
			entry, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, errWireFallback
			}
			b = b[n:]
			m, _ := slot.v.(map[string]any)
			if m == nil {
				m = map[string]any{}
				slot.v, slot.set = m, true
			}
			if err := wireMapEntry(fd, entry, m, depth, build); err != nil {
				return nil, err
			}
		case fd.IsList():
			list, _ := slot.v.([]any)
			var err error
			if list, n, err = wireListItems(fd, typ, b, list, depth, build); err != nil {
				return nil, err
			}
			b = b[n:]
			slot.v, slot.set = list, true
		default:
			if slot.set && fd.Message() != nil {
				return nil, errWireFallback // merged by Protobuf's rules
			}
			if otherOneofMemberSet(fd, slots) {
				return nil, errWireFallback // the last member sent clears the others
			}
			v, n, err := wireValue(fd, typ, b, depth, build)
			if err != nil {
				return nil, err
			}
			b = b[n:]
			slot.v, slot.set = v, true
		}
	}
	// What was not sent reads as protoValue reads an unset field.
	for i := range slots {
		if slots[i].set {
			continue
		}
		switch fd := fields.Get(i); {
		case fd.IsList():
			slots[i] = wireSlot{[]any{}, true}
		case fd.IsMap():
			slots[i] = wireSlot{map[string]any{}, true}
		case fd.HasPresence() || fd.Message() != nil:
			// unset: nil
		default:
			v, err := protoScalar(fd, fd.Default())
			if err != nil {
				return nil, err
			}
			slots[i] = wireSlot{v, true}
		}
	}
	if build != nil {
		obj := build.Object(len(slots))
		for i := range slots {
			if slots[i].set {
				build.Set(obj, string(fields.Get(i).Name()), slots[i].v)
			}
		}
		return obj, nil
	}
	out := make(map[string]any, len(slots))
	for i := range slots {
		if slots[i].set {
			out[string(fields.Get(i).Name())] = slots[i].v
		}
	}
	return out, nil
}

// otherOneofMemberSet says whether another member of fd's oneof was read.
func otherOneofMemberSet(fd protoreflect.FieldDescriptor, slots []wireSlot) bool {
	od := fd.ContainingOneof()
	if od == nil || od.IsSynthetic() {
		return false
	}
	members := od.Fields()
	for i := range members.Len() {
		if m := members.Get(i); m != fd && slots[m.Index()].set {
			return true
		}
	}
	return false
}

// wireListItems reads one occurrence of a repeated field: one item, or a
// packed run of scalars.
func wireListItems(fd protoreflect.FieldDescriptor, typ protowire.Type, b []byte, list []any, depth int, build Builder) ([]any, int, error) {
	if typ == protowire.BytesType && packable(fd.Kind()) {
		run, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, 0, errWireFallback
		}
		elem := scalarWireType(fd.Kind())
		for len(run) > 0 {
			v, m, err := wireValue(fd, elem, run, depth, build)
			if err != nil {
				return nil, 0, err
			}
			run = run[m:]
			list = append(list, v)
		}
		return list, n, nil
	}
	v, n, err := wireValue(fd, typ, b, depth, build)
	if err != nil {
		return nil, 0, err
	}
	return append(list, v), n, nil
}

// wireMapEntry reads one map entry (key field 1, value field 2; either
// may be left out, meaning its zero value) into m.
func wireMapEntry(fd protoreflect.FieldDescriptor, entry []byte, m map[string]any, depth int, build Builder) error {
	kd, vd := fd.MapKey(), fd.MapValue()
	key := kd.Default()
	var val any
	for len(entry) > 0 {
		num, typ, n := protowire.ConsumeTag(entry)
		if n < 0 {
			return errWireFallback
		}
		entry = entry[n:]
		switch num {
		case 1:
			if typ != scalarWireType(kd.Kind()) {
				return errWireFallback
			}
			v, n := wireScalar(kd, typ, entry)
			if n < 0 {
				return errWireFallback
			}
			key, entry = v, entry[n:]
		case 2:
			v, n, err := wireValue(vd, typ, entry, depth, build)
			if err != nil {
				return err
			}
			val, entry = v, entry[n:]
		default:
			if n = protowire.ConsumeFieldValue(num, typ, entry); n < 0 {
				return errWireFallback
			}
			entry = entry[n:]
		}
	}
	if val == nil {
		var err error
		if vd.Message() != nil {
			val, err = wireMessage(vd.Message(), nil, depth+1, build)
		} else {
			val, err = protoScalar(vd, vd.Default())
		}
		if err != nil {
			return err
		}
	}
	m[key.MapKey().String()] = val
	return nil
}

// wireValue reads one value of fd (an item of it when repeated): a
// nested message, or a scalar as protoScalar shows it.
func wireValue(fd protoreflect.FieldDescriptor, typ protowire.Type, b []byte, depth int, build Builder) (any, int, error) {
	switch fd.Kind() {
	case protoreflect.GroupKind:
		return nil, 0, errWireFallback
	case protoreflect.MessageKind:
		if typ != protowire.BytesType {
			return nil, 0, errWireFallback
		}
		sub, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, 0, errWireFallback
		}
		v, err := wireMessage(fd.Message(), sub, depth+1, build)
		return v, n, err
	}
	if typ != scalarWireType(fd.Kind()) {
		return nil, 0, errWireFallback
	}
	v, n := wireScalar(fd, typ, b)
	if n < 0 {
		return nil, 0, errWireFallback
	}
	x, err := protoScalar(fd, v)
	return x, n, err
}

// wireScalar reads one scalar of fd's kind as proto.Unmarshal stores it.
func wireScalar(fd protoreflect.FieldDescriptor, typ protowire.Type, b []byte) (protoreflect.Value, int) {
	var u uint64
	n := -1
	switch typ {
	case protowire.VarintType:
		u, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		var x uint32
		x, n = protowire.ConsumeFixed32(b)
		u = uint64(x)
	case protowire.Fixed64Type:
		u, n = protowire.ConsumeFixed64(b)
	case protowire.BytesType:
		s, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return protoreflect.Value{}, -1
		}
		if fd.Kind() == protoreflect.StringKind {
			if !utf8.Valid(s) {
				return protoreflect.Value{}, -1 // proto3 refuses it, proto2 keeps it: dynamicpb knows which
			}
			return protoreflect.ValueOfString(string(s)), m
		}
		return protoreflect.ValueOfBytes(append([]byte{}, s...)), m
	}
	if n < 0 {
		return protoreflect.Value{}, -1
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(u != 0), n
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(int32(u))), n
	case protoreflect.Int32Kind:
		return protoreflect.ValueOfInt32(int32(u)), n
	case protoreflect.Sint32Kind:
		return protoreflect.ValueOfInt32(int32(protowire.DecodeZigZag(u & math.MaxUint32))), n
	case protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(u)), n
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(u)), n
	case protoreflect.Int64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(u)), n
	case protoreflect.Sint64Kind:
		return protoreflect.ValueOfInt64(protowire.DecodeZigZag(u)), n
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(u), n
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(math.Float32frombits(uint32(u))), n
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(math.Float64frombits(u)), n
	}
	return protoreflect.Value{}, -1
}

// scalarWireType is the wire type a scalar of kind k is sent as.
func scalarWireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.VarintType
}

// packable says whether a repeated field of kind k may come packed.
func packable(k protoreflect.Kind) bool {
	t := scalarWireType(k)
	return t == protowire.VarintType || t == protowire.Fixed32Type || t == protowire.Fixed64Type
}
