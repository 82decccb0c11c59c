package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSON Schema: the record's body is JSON text (Confluent's JSON Schema
// serializer frames plain JSON); decoding parses it. The schema itself is
// checked to be JSON when compiled.

type jsonCodec struct{}

func (*jsonCodec) Type() string { return TypeJSON }

func compileJSON(src sources) (Codec, error) {
	if !json.Valid([]byte(src.main.Text)) {
		return nil, errors.New("the JSON Schema is not JSON")
	}
	return &jsonCodec{}, nil
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
