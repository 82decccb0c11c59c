package schemas

import (
	"context"
	"errors"
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine/vocab"
)

// Decoding a record's key or value: from its framing (auto), with a
// format forced, or with a local schema file.

// Decode modes.
const (
	DecodeNone     = "none"     // the bytes as they are
	DecodeAuto     = "auto"     // framed bytes through their schema, the rest as they are
	DecodeAvro     = "avro"     // framed Avro, or an error
	DecodeProtobuf = "protobuf" // framed Protobuf, or an error
	DecodeJSON     = "json"     // framed JSON Schema, or an error
)

// DecodeModes are the modes, for argument checks and docs.
var DecodeModes = []string{DecodeAuto, DecodeAvro, DecodeProtobuf, DecodeJSON, DecodeNone}

// modeType is the schema type a forced mode wants.
var modeType = map[string]string{DecodeAvro: TypeAvro, DecodeProtobuf: TypeProtobuf, DecodeJSON: TypeJSON}

// Decoder decodes one side (keys or values) of records.
type Decoder struct {
	Mode string // a Decode* mode; DecodeNone when ""
	// Registry resolves framed records' schema ids; nil: framed records
	// fail with NO_SCHEMA_REGISTRY (RegistryErr when set).
	Registry    *Registry
	RegistryErr error
	// Local is a local schema file's codec: every record is read with it.
	// The records are its bare encoding, unless LocalFramed: then they are
	// framed for a registry and the framing is skipped (its id unused). No
	// guessing: bare Avro often starts with the framing's magic byte 0.
	Local       Codec
	LocalFramed bool
	// Subject is the subject SubjectOf prefers when a schema id is in
	// several: the topic name strategy's (TOPIC-value, TOPIC-key).
	Subject string
	// Builder, when set, makes the objects of the records its codecs can
	// build (Avro's records and maps); the rest are Go maps as Decode's.
	Builder  Builder
	subjects map[int]subjectPick // SubjectOf's answers (usage.go); a Decoder serves one goroutine
	// down is the registry's failure that may pass (down, slow, 5xx), as
	// the first record of the call met it after retrying to its deadline:
	// the call's later records get it at once instead of waiting as long
	// again each (the registry keeps no such failure: the next call asks).
	down *vocab.Error
}

// Decoded is one key or value read through its schema.
type Decoded struct {
	Value    any
	SchemaID int    // 0 for a local schema file
	Type     string // TypeAvro, TypeProtobuf or TypeJSON
}

// Active says whether d decodes anything.
func (d *Decoder) Active() bool {
	return d != nil && (d.Local != nil || (d.Mode != "" && d.Mode != DecodeNone))
}

// Decode reads b. It returns nil and no error for bytes it leaves as they
// are (a null, or bytes without framing under auto); an error is the
// record's, with resource naming where it is (the caller's row), and a
// new value the caller may change (a caller that names its records only
// when one fails passes "" and sets the error's Resource).
func (d *Decoder) Decode(ctx context.Context, b []byte, resource string) (*Decoded, *vocab.Error) {
	if !d.Active() || b == nil {
		return nil, nil
	}
	if d.Local != nil {
		if !d.LocalFramed {
			return d.run(d.Local, b, 0, false, resource)
		}
		if _, rest, ok := Framed(b); ok {
			return d.run(d.Local, rest, 0, true, resource)
		}
		return nil, vocab.Errorf(CodeNotFramed, resource, "framed=true: the bytes are not framed for a schema registry (a magic byte 0 and a 4-byte schema id)")
	}
	id, rest, ok := Framed(b)
	if !ok {
		if d.Mode == DecodeAuto {
			return nil, nil
		}
		return nil, vocab.Errorf(CodeNotFramed, resource, "decode=%q: the bytes are not framed for a schema registry (a magic byte 0 and a 4-byte schema id)", d.Mode)
	}
	if d.Registry == nil {
		if d.RegistryErr != nil {
			var e *vocab.Error
			if errors.As(d.RegistryErr, &e) {
				return nil, &vocab.Error{Code: e.Code, Message: fmt.Sprintf("schema id %d: %s", id, e.Message), Resource: resource}
			}
		}
		return nil, vocab.Errorf(CodeNoRegistry, resource, "the bytes name schema id %d and there is no schema registry to read it from", id)
	}
	if d.down != nil {
		return nil, &vocab.Error{Code: d.down.Code, Resource: resource, Retriable: d.down.Retriable,
			Message: fmt.Sprintf("schema id %d: %s (not asked again in this call)", id, d.down.Message)}
	}
	codec, err := d.Registry.CodecByID(ctx, id)
	if err != nil {
		e := AsError(err, resource)
		if mayPass(e) && e.Code != vocab.CodeCanceled {
			d.down = e
		}
		out := *e
		out.Resource = resource
		if out.Code == vocab.CodeNotFound || out.Code == "SCHEMA_NOT_FOUND" {
			out.Message = fmt.Sprintf("schema id %d is not in the registry: %s", id, e.Message)
		} else {
			out.Message = fmt.Sprintf("schema id %d: %s", id, e.Message)
		}
		return nil, &out
	}
	if want := modeType[d.Mode]; want != "" && codec.Type() != want {
		return nil, vocab.Errorf(CodeWrongFormat, resource, "decode=%q, but schema id %d is %s", d.Mode, id, codec.Type())
	}
	return d.run(codec, rest, id, true, resource)
}

// run decodes body with codec; a framed Protobuf body starts with its
// message index path.
func (d *Decoder) run(codec Codec, body []byte, id int, framed bool, resource string) (*Decoded, *vocab.Error) {
	var index []int
	if codec.Type() == TypeProtobuf && framed {
		var err error
		if index, body, err = splitIndex(body); err != nil {
			return nil, decodeErr(resource, id, codec, err)
		}
	}
	var v any
	var err error
	if bc, ok := codec.(builderCodec); ok && d.Builder != nil {
		v, err = bc.decodeBuilt(body, index, d.Builder)
	} else {
		v, err = codec.Decode(body, index)
	}
	if err != nil {
		return nil, decodeErr(resource, id, codec, err)
	}
	return &Decoded{Value: v, SchemaID: id, Type: codec.Type()}, nil
}

func decodeErr(resource string, id int, codec Codec, err error) *vocab.Error {
	if id == 0 {
		return vocab.Errorf(CodeDecode, resource, "not %s of the local schema: %v", codec.Type(), err)
	}
	return vocab.Errorf(CodeDecode, resource, "not %s of schema id %d: %v", codec.Type(), id, err)
}
