package schemas

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/hamba/avro/v2"
)

// Encoding a value given as a script's table with an Avro schema: the
// values Decode gives are accepted back (a decimal as its string, a
// timestamp as RFC 3339, a date as YYYY-MM-DD), and numbers where the
// logical type is a number underneath (ms, µs, days). Every mismatch names
// its field path.

// FieldError is a value that does not fit its schema, at Path ("total.amount",
// "lines[2].sku"; "" for the value itself).
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func fieldErr(path, format string, args ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Encode writes v as the schema's binary encoding.
func (c *avroCodec) Encode(v any) ([]byte, []int, error) {
	w := avro.NewWriter(nil, 256)
	if err := encodeAvro(w, c.schema, v, "", 0); err != nil {
		return nil, nil, err
	}
	return w.Buffer(), nil, nil
}

func encodeAvro(w *avro.Writer, s avro.Schema, v any, path string, depth int) error {
	if depth > maxAvroDepth {
		return fieldErr(path, "nested deeper than %d levels", maxAvroDepth)
	}
	var logical avro.LogicalSchema
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		logical = ls.Logical()
	}
	switch s.Type() {
	case avro.Null:
		if v != nil {
			return fieldErr(path, "must be null, got %s", kind(v))
		}
		return nil
	case avro.Boolean:
		b, ok := v.(bool)
		if !ok {
			return fieldErr(path, "must be a boolean, got %s", kind(v))
		}
		w.WriteBool(b)
		return nil
	case avro.Int:
		n, err := avroIntValue(v, logical, path)
		if err != nil {
			return err
		}
		if n < math.MinInt32 || n > math.MaxInt32 {
			return fieldErr(path, "%d is out of an Avro int's range", n)
		}
		w.WriteInt(int32(n))
		return nil
	case avro.Long:
		n, err := avroLongValue(v, logical, path)
		if err != nil {
			return err
		}
		w.WriteLong(n)
		return nil
	case avro.Float, avro.Double:
		f, ok := number(v)
		if !ok {
			return fieldErr(path, "must be a number, got %s", kind(v))
		}
		if s.Type() == avro.Float {
			w.WriteFloat(float32(f))
		} else {
			w.WriteDouble(f)
		}
		return nil
	case avro.String:
		str, ok := v.(string)
		if !ok {
			return fieldErr(path, "must be a string, got %s", kind(v))
		}
		w.WriteString(str)
		return nil
	case avro.Bytes:
		if dec, ok := logical.(*avro.DecimalLogicalSchema); ok {
			b, err := decimalBytes(v, dec.Scale(), 0, path)
			if err != nil {
				return err
			}
			w.WriteBytes(b)
			return nil
		}
		str, ok := v.(string)
		if !ok {
			return fieldErr(path, "must be a string (bytes), got %s", kind(v))
		}
		w.WriteBytes([]byte(str))
		return nil
	case avro.Fixed:
		fs := s.(*avro.FixedSchema)
		var b []byte
		if dec, ok := logical.(*avro.DecimalLogicalSchema); ok {
			var err error
			if b, err = decimalBytes(v, dec.Scale(), fs.Size(), path); err != nil {
				return err
			}
		} else if str, ok := v.(string); ok && len(str) == fs.Size() {
			b = []byte(str)
		} else {
			return fieldErr(path, "must be a string of %d bytes (fixed %s), got %s", fs.Size(), fs.FullName(), kind(v))
		}
		_, _ = w.Write(b)
		return nil
	case avro.Enum:
		es := s.(*avro.EnumSchema)
		str, _ := v.(string)
		i := slices.Index(es.Symbols(), str)
		if i < 0 {
			return fieldErr(path, "must be one of %s (enum %s), got %s", strings.Join(es.Symbols(), ", "), es.FullName(), shown(v))
		}
		w.WriteInt(int32(i))
		return nil
	case avro.Record:
		return encodeAvroRecord(w, s.(*avro.RecordSchema), v, path, depth)
	case avro.Ref:
		return encodeAvro(w, s.(*avro.RefSchema).Schema(), v, path, depth)
	case avro.Array:
		arr, ok := asArray(v)
		if !ok {
			return fieldErr(path, "must be an array, got %s", kind(v))
		}
		if len(arr) > 0 {
			w.WriteBlockHeader(int64(len(arr)), 0)
			for i, e := range arr {
				if err := encodeAvro(w, s.(*avro.ArraySchema).Items(), e, fmt.Sprintf("%s[%d]", path, i+1), depth+1); err != nil {
					return err
				}
			}
		}
		w.WriteBlockHeader(0, 0)
		return nil
	case avro.Map:
		m, ok := asObject(v)
		if !ok {
			return fieldErr(path, "must be a table of names to values (map), got %s", kind(v))
		}
		if len(m) > 0 {
			w.WriteBlockHeader(int64(len(m)), 0)
			for _, k := range slices.Sorted(mapKeys(m)) {
				w.WriteString(k)
				if err := encodeAvro(w, s.(*avro.MapSchema).Values(), m[k], child(path, k), depth+1); err != nil {
					return err
				}
			}
		}
		w.WriteBlockHeader(0, 0)
		return nil
	case avro.Union:
		return encodeAvroUnion(w, s.(*avro.UnionSchema), v, path, depth)
	}
	return fieldErr(path, "unexpected schema type %s", s.Type())
}

func encodeAvroRecord(w *avro.Writer, rs *avro.RecordSchema, v any, path string, depth int) error {
	m, ok := asObject(v)
	if !ok {
		return fieldErr(path, "must be a table (record %s), got %s", rs.FullName(), kind(v))
	}
	known := map[string]bool{}
	for _, f := range rs.Fields() {
		known[f.Name()] = true
		fv, given := m[f.Name()]
		if !given && f.HasDefault() {
			fv = f.Default()
		} else if !given && !acceptsNull(f.Type()) {
			return fieldErr(child(path, f.Name()), "missing (record %s has no default for it)", rs.FullName())
		}
		if err := encodeAvro(w, f.Type(), fv, child(path, f.Name()), depth+1); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(mapKeys(m)) {
		if !known[k] {
			return fieldErr(child(path, k), "record %s has no such field", rs.FullName())
		}
	}
	return nil
}

// acceptsNull: a missing field of this type is written as null.
func acceptsNull(s avro.Schema) bool {
	if s.Type() == avro.Null {
		return true
	}
	if u, ok := s.(*avro.UnionSchema); ok {
		return u.Nullable() || slices.ContainsFunc(u.Types(), func(t avro.Schema) bool { return t.Type() == avro.Null })
	}
	return false
}

// encodeAvroUnion writes the first branch v fits (null for nil).
func encodeAvroUnion(w *avro.Writer, us *avro.UnionSchema, v any, path string, depth int) error {
	var first error
	for i, t := range us.Types() {
		if (v == nil) != (t.Type() == avro.Null) {
			continue
		}
		try := avro.NewWriter(nil, 64)
		if err := encodeAvro(try, t, v, path, depth+1); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		w.WriteLong(int64(i))
		_, _ = w.Write(try.Buffer())
		return nil
	}
	if first != nil && len(us.Types()) <= 2 {
		return first // one branch besides null: its own reason says more
	}
	return fieldErr(path, "fits none of the union's types (%s), got %s", unionNames(us), kind(v))
}

func unionNames(us *avro.UnionSchema) string {
	var names []string
	for _, t := range us.Types() {
		if n, ok := t.(avro.NamedSchema); ok {
			names = append(names, n.FullName())
		} else {
			names = append(names, string(t.Type()))
		}
	}
	return strings.Join(names, ", ")
}

func avroIntValue(v any, logical avro.LogicalSchema, path string) (int64, error) {
	if s, ok := v.(string); ok && logical != nil {
		switch logical.Type() {
		case avro.Date:
			t, err := time.Parse(time.DateOnly, s)
			if err != nil {
				return 0, fieldErr(path, "must be a date YYYY-MM-DD or days since 1970-01-01, got %q", s)
			}
			return t.Unix() / 86400, nil
		case avro.TimeMillis:
			d, err := clockValue(s)
			if err != nil {
				return 0, fieldErr(path, "must be a time of day 15:04:05.000 or ms since midnight, got %q", s)
			}
			return d.Milliseconds(), nil
		}
	}
	return integer(v, path)
}

func avroLongValue(v any, logical avro.LogicalSchema, path string) (int64, error) {
	if s, ok := v.(string); ok && logical != nil {
		switch logical.Type() {
		case avro.TimestampMillis, avro.LocalTimestampMillis, avro.TimestampMicros, avro.LocalTimestampMicros:
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return 0, fieldErr(path, "must be an RFC 3339 time or a number since the epoch, got %q", s)
			}
			if logical.Type() == avro.TimestampMillis || logical.Type() == avro.LocalTimestampMillis {
				return t.UnixMilli(), nil
			}
			return t.UnixMicro(), nil
		case avro.TimeMicros:
			d, err := clockValue(s)
			if err != nil {
				return 0, fieldErr(path, "must be a time of day 15:04:05.000000 or µs since midnight, got %q", s)
			}
			return d.Microseconds(), nil
		}
	}
	return integer(v, path)
}

func clockValue(s string) (time.Duration, error) {
	t, err := time.Parse("15:04:05.999999", s)
	if err != nil {
		return 0, err
	}
	return t.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)), nil
}

// decimalBytes is v (a string or a number) as a decimal of scale: two's
// complement big-endian, size bytes when fixed (size > 0).
func decimalBytes(v any, scale, size int, path string) ([]byte, error) {
	r := new(big.Rat)
	switch x := v.(type) {
	case string:
		if _, ok := r.SetString(x); !ok {
			return nil, fieldErr(path, "must be a decimal number, got %q", x)
		}
	default:
		f, ok := number(v)
		if !ok {
			return nil, fieldErr(path, "must be a decimal (a string such as \"12.30\", or a number), got %s", kind(v))
		}
		r.SetFloat64(f)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, fieldErr(path, "%s has more than %d digits after the point", shown(v), scale)
	}
	n := r.Num()
	// The fewest bytes with room for the sign, as Java's BigDecimal writes.
	bits := n.BitLen() + 1
	if n.Sign() < 0 {
		bits = new(big.Int).Sub(new(big.Int).Neg(n), big.NewInt(1)).BitLen() + 1
	}
	nbytes := (bits + 7) / 8
	if size > 0 {
		if nbytes > size {
			return nil, fieldErr(path, "%s does not fit in %d bytes", shown(v), size)
		}
		nbytes = size
	}
	out := make([]byte, nbytes)
	if n.Sign() >= 0 {
		n.FillBytes(out)
	} else {
		// Two's complement: 2^(8*nbytes) + n.
		t := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), uint(8*nbytes)), n)
		t.FillBytes(out)
	}
	return out, nil
}

// Script values: numbers come as float64 (Lua's), or int64.

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

func integer(v any, path string) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<63-1024 {
			return int64(x), nil
		}
		return 0, fieldErr(path, "must be an integer, got %v", x)
	}
	return 0, fieldErr(path, "must be an integer, got %s", kind(v))
}

func asObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case []any:
		return map[string]any{}, len(x) == 0 // {} is an empty table either way
	}
	return nil, false
}

func asArray(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case map[string]any:
		return nil, len(x) == 0
	}
	return nil, false
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// kind names a script value's type in messages.
func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case bool:
		return "a boolean"
	case string:
		return fmt.Sprintf("a string %s", shown(x))
	case float64, int64, int:
		return fmt.Sprintf("a number %v", x)
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// shown quotes a value for a message, cut short.
func shown(v any) string {
	s := fmt.Sprintf("%q", fmt.Sprint(v))
	if len(s) > 60 {
		s = s[:57] + `..."`
	}
	return s
}
