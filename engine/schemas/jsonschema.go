package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON Schema: the record's body is JSON text (Confluent's JSON Schema
// serializer frames plain JSON); decoding parses it. The schema itself is
// checked to be JSON when compiled.

type jsonCodec struct {
	schema *jsonschema.Schema
}

func (*jsonCodec) Type() string { return TypeJSON }

// mainJSON is the URL the registry's schema is compiled at; its
// references are resources at their names.
const mainJSON = "kadmin-lua:registry-schema.json"

// noLoader refuses every URL a schema names that is not among its
// references: compiling never reaches the network or the file system.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not one of the schema's references (schemas are never fetched from URLs)", url)
}

func compileJSON(src sources) (Codec, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	add := func(url, text string) error {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return fmt.Errorf("%s is not JSON: %v", url, err)
		}
		return c.AddResource(url, doc)
	}
	for _, d := range src.deps {
		if d.schema.Type != TypeJSON {
			return nil, fmt.Errorf("reference %s is %s, not JSON Schema", d.name, d.schema.Type)
		}
		if err := add(d.name, d.schema.Text); err != nil {
			return nil, err
		}
	}
	if err := add(mainJSON, src.main.Text); err != nil {
		return nil, errors.New("the JSON Schema is not JSON")
	}
	sch, err := c.Compile(mainJSON)
	if err != nil {
		return nil, err
	}
	return &jsonCodec{schema: sch}, nil
}

// Encode validates v against the schema and writes it as JSON.
func (c *jsonCodec) Encode(v any) ([]byte, []int, error) {
	if err := c.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, nil, jsonFieldError(ve)
		}
		return nil, nil, err
	}
	b, err := json.Marshal(v)
	return b, nil, err
}

// jsonFieldError is the first deepest cause of a validation error, at its
// place in the value.
func jsonFieldError(ve *jsonschema.ValidationError) error {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	msg := ve.Error()
	if i := strings.LastIndex(msg, "': "); i >= 0 {
		msg = msg[i+3:]
	}
	return &FieldError{Path: strings.Join(ve.InstanceLocation, "."), Msg: strings.TrimSpace(msg)}
}

// Decode parses the body: objects are tables, integers int64 (or float64
// past int64), other numbers float64.
func (*jsonCodec) Decode(body []byte, _ []int) (any, error) {
	return parseJSON(body)
}

// parseJSON parses one JSON value, numbers kept exact where they are
// integers.
func parseJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("not JSON: more than one value")
	}
	return numbers(v), nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, err := x.Float64()
		if err != nil {
			return x.String() // past float64: kept as its text
		}
		return f
	}
	return v
}
