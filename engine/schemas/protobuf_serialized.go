package schemas

import (
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	// The well-known types a serialized schema may import, registered in
	// protoregistry.GlobalFiles.
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// A Protobuf schema in its serialized form: base64 of a
// FileDescriptorProto, as Confluent's Python serializer registers it and
// as a registry answers with ?format=serialized. Such a schema is not
// .proto text; its descriptors are built directly.

// serializedDescriptor reads text as a base64 FileDescriptorProto.
func serializedDescriptor(text string) (*descriptorpb.FileDescriptorProto, bool) {
	t := strings.TrimSpace(text)
	if t == "" || strings.ContainsAny(t, " \n;{") {
		return nil, false // .proto text
	}
	b, err := base64.StdEncoding.DecodeString(t)
	if err != nil {
		return nil, false
	}
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := proto.Unmarshal(b, fdp); err != nil || fdp.GetName() == "" && len(fdp.MessageType) == 0 {
		return nil, false
	}
	return fdp, true
}

// compileSerialized builds the codec of a serialized schema whose
// references are serialized too (or well-known types).
func compileSerialized(src sources, main *descriptorpb.FileDescriptorProto) (Codec, error) {
	files := new(protoregistry.Files)
	r := chainResolver{files, protoregistry.GlobalFiles}
	for _, d := range src.deps {
		fdp, ok := serializedDescriptor(d.schema.Text)
		if !ok {
			return nil, fmt.Errorf("reference %s is .proto text and the schema is a serialized descriptor: mixing them is not supported", d.name)
		}
		fdp.Name = proto.String(d.name)
		if _, err := r.FindFileByPath(d.name); err == nil {
			continue // a well-known type, or given twice
		}
		fd, err := protodesc.NewFile(fdp, r)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %v", d.name, err)
		}
		if err := files.RegisterFile(fd); err != nil {
			return nil, fmt.Errorf("reference %s: %v", d.name, err)
		}
	}
	if main.GetName() == "" {
		main.Name = proto.String(mainProto)
	}
	fd, err := protodesc.NewFile(main, r)
	if err != nil {
		return nil, err
	}
	if fd.Messages().Len() == 0 {
		return nil, fmt.Errorf("the schema has no message")
	}
	return &protoCodec{file: fd}, nil
}

// chainResolver finds files and descriptors in the schema's own files,
// then among the well-known types.
type chainResolver struct {
	own, global *protoregistry.Files
}

func (c chainResolver) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	if fd, err := c.own.FindFileByPath(path); err == nil {
		return fd, nil
	}
	return c.global.FindFileByPath(path)
}

func (c chainResolver) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := c.own.FindDescriptorByName(name); err == nil {
		return d, nil
	}
	return c.global.FindDescriptorByName(name)
}
