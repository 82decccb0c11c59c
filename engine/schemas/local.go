package schemas

import (
	"path/filepath"
	"strings"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Local schema files: a schema that is not in a registry, read from a
// file whose extension says its type (.avsc Avro, .proto Protobuf, .json
// JSON Schema).

// MaxSchemaFile bounds a local schema file.
const MaxSchemaFile = 4 << 20

// TypeOfFile is the schema type a file's extension says, or "".
func TypeOfFile(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".avsc":
		return TypeAvro
	case ".proto":
		return TypeProtobuf
	case ".json":
		return TypeJSON
	}
	return ""
}

// LoadFile reads a local schema file through read (which bounds it and
// applies the caller's rules on which files may be opened).
func LoadFile(path string, read func(string) ([]byte, error)) (Schema, error) {
	typ := TypeOfFile(path)
	if typ == "" {
		return Schema{}, vocab.Errorf(vocab.CodeInvalidArgument, path, "a schema file must end in .avsc (Avro), .proto (Protobuf) or .json (JSON Schema)")
	}
	b, err := read(path)
	if err != nil {
		return Schema{}, vocab.Errorf(vocab.CodeInvalidArgument, path, "reading the schema file: %v", err)
	}
	return Schema{Type: typ, Text: string(b), References: []Reference{}, File: path}, nil
}
