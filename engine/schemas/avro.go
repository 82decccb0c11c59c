package schemas

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hamba/avro/v2"
)

// Avro through hamba/avro: its parser (named types, references through a
// schema cache, logical types) and its binary reader; the walk over the
// schema is ours, so that the values come out as a script wants them (see
// avroCodec.Decode) and a record that lies about its lengths fails fast
// instead of allocating or looping.

type avroCodec struct {
	schema avro.Schema
}

func (*avroCodec) Type() string { return TypeAvro }

func compileAvro(src sources) (Codec, error) {
	cache := &avro.SchemaCache{}
	for _, d := range src.deps {
		if d.schema.Type != TypeAvro && d.schema.Type != "" {
			return nil, fmt.Errorf("reference %s is %s, not Avro", d.name, d.schema.Type)
		}
		if _, err := avro.ParseWithCache(d.schema.Text, "", cache); err != nil {
			return nil, fmt.Errorf("reference %s: %w", d.name, err)
		}
	}
	s, err := avro.ParseWithCache(src.main.Text, "", cache)
	if err != nil {
		return nil, err
	}
	return &avroCodec{schema: s}, nil
}

// maxAvroDepth bounds the nesting a record's walk goes through: a
// recursive schema (a linked list, a tree) is read as deep as its data
// goes, and data deeper than this is refused rather than exhausting the
// stack.
const maxAvroDepth = 256

var errAvroTooDeep = fmt.Errorf("nested deeper than %d levels", maxAvroDepth)

// Decode reads one Avro datum. Records and maps are tables, arrays
// arrays, a union its branch's value (as Confluent's deserializers give
// it), an enum its symbol, bytes and fixed their bytes. Logical types are
// read as they mean: decimal a string with the schema's scale ("12.30"),
// uuid its text, date "YYYY-MM-DD", timestamp-millis/micros (and local-)
// RFC 3339 in UTC with their precision, time-millis/micros "15:04:05.000".
func (c *avroCodec) Decode(body []byte, index []int) (any, error) {
	return c.decodeBuilt(body, index, nil)
}

// decodeBuilt is Decode with records and maps made by b (Go maps when nil).
func (c *avroCodec) decodeBuilt(body []byte, _ []int, b Builder) (any, error) {
	w := avroWalks.Get().(*avroWalk)
	w.build = b
	defer func() {
		w.r.Reset(nil)
		w.build = nil
		if cap(w.scratch) > 64<<10 {
			w.scratch = nil // a record's big string is not kept for the next
		}
		avroWalks.Put(w)
	}()
	w.r.Error, w.err = nil, nil
	w.r.Reset(body)
	w.size, w.budget = len(body), 1024+8*len(body)
	v := w.read(c.schema, 0)
	if w.err != nil {
		return nil, w.err
	}
	if w.r.Error != nil {
		return nil, truncation(w.r.Error)
	}
	if w.r.Peek(); w.r.Error == nil {
		return nil, errors.New("bytes are left after the datum (another schema's record?)")
	}
	return v, nil
}

// avroWalks are walks (a reader and a scratch buffer) reused across
// records, as a codec serves any number of goroutines: a new reader per
// record was a tenth of the bytes allocated decoding 10,000 records.
var avroWalks = sync.Pool{New: func() any { return &avroWalk{r: avro.NewReader(nil, 0)} }}

// truncation says a reader error plainly.
func truncation(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the bytes end before the datum does (truncated)")
	}
	return err
}

type avroWalk struct {
	r    *avro.Reader
	size int
	err  error
	// scratch holds a string's bytes on their way to the string (one
	// allocation a string, not two); kept with the walk in avroWalks.
	scratch []byte
	build   Builder // makes records and maps; nil: Go maps
	// budget bounds the values read: a block count or a string length is
	// the record's own claim, and an array of 2^60 nulls takes no bytes.
	budget int
}

func (w *avroWalk) fail(err error) any {
	if w.err == nil {
		w.err = err
	}
	return nil
}

func (w *avroWalk) bytes() []byte {
	n, ok := w.length()
	if !ok {
		return nil
	}
	b := make([]byte, n)
	w.r.Read(b)
	return b
}

func (w *avroWalk) string() string {
	b, _ := w.transient()
	return string(b)
}

// transient reads a string's or bytes' bytes into scratch, valid until
// the next read: for what is turned into something else at once.
func (w *avroWalk) transient() ([]byte, bool) {
	n, ok := w.length()
	if !ok {
		return nil, false
	}
	if cap(w.scratch) < n {
		w.scratch = make([]byte, n, max(n, 256))
	}
	b := w.scratch[:n]
	w.r.Read(b)
	return b, w.r.Error == nil
}

// length reads a string's or bytes' length, checked against the datum's.
func (w *avroWalk) length() (int, bool) {
	n := w.r.ReadLong()
	switch {
	case w.r.Error != nil:
		return 0, false
	case n < 0:
		w.fail(fmt.Errorf("a negative length %d", n))
		return 0, false
	case n > int64(w.size):
		w.fail(fmt.Errorf("a length of %d bytes in a datum of %d", n, w.size))
		return 0, false
	}
	return int(n), true
}

func (w *avroWalk) read(s avro.Schema, depth int) any {
	if w.err != nil || w.r.Error != nil {
		return nil
	}
	if depth > maxAvroDepth {
		return w.fail(errAvroTooDeep)
	}
	if w.budget--; w.budget < 0 {
		return w.fail(fmt.Errorf("the datum claims more values than its %d bytes can hold", w.size))
	}
	var logical avro.LogicalSchema
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		logical = ls.Logical()
	}
	switch s.Type() {
	case avro.Null:
		return nil
	case avro.Boolean:
		return w.r.ReadBool()
	case avro.Int:
		n := w.r.ReadInt()
		if logical != nil {
			switch logical.Type() {
			case avro.Date:
				return time.Unix(int64(n)*86400, 0).UTC().Format(time.DateOnly)
			case avro.TimeMillis:
				return clock(time.Duration(n) * time.Millisecond)
			}
		}
		return int64(n)
	case avro.Long:
		n := w.r.ReadLong()
		if logical != nil {
			switch logical.Type() {
			case avro.TimestampMillis, avro.LocalTimestampMillis:
				return time.UnixMilli(n).UTC().Format("2006-01-02T15:04:05.000Z07:00")
			case avro.TimestampMicros, avro.LocalTimestampMicros:
				return time.UnixMicro(n).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
			case avro.TimeMicros:
				return clock(time.Duration(n) * time.Microsecond)
			}
		}
		return n
	case avro.Float:
		return float64(w.r.ReadFloat())
	case avro.Double:
		return w.r.ReadDouble()
	case avro.String:
		return w.string()
	case avro.Bytes:
		if dec, ok := logical.(*avro.DecimalLogicalSchema); ok {
			if b, ok := w.transient(); ok {
				return decimal(b, dec.Scale())
			}
			return nil
		}
		return w.bytes()
	case avro.Fixed:
		fs := s.(*avro.FixedSchema)
		if fs.Size() > w.size {
			return w.fail(fmt.Errorf("a fixed of %d bytes in a datum of %d", fs.Size(), w.size))
		}
		b := make([]byte, fs.Size())
		w.r.Read(b)
		if dec, ok := logical.(*avro.DecimalLogicalSchema); ok {
			return decimal(b, dec.Scale())
		}
		return b
	case avro.Enum:
		symbols := s.(*avro.EnumSchema).Symbols()
		i := w.r.ReadInt()
		if i < 0 || int(i) >= len(symbols) {
			return w.fail(fmt.Errorf("enum %s has no symbol %d", s.(*avro.EnumSchema).FullName(), i))
		}
		return symbols[i]
	case avro.Record:
		fields := s.(*avro.RecordSchema).Fields()
		if w.build != nil {
			obj := w.build.Object(len(fields))
			for _, f := range fields {
				w.build.Set(obj, f.Name(), w.read(f.Type(), depth+1))
			}
			return obj
		}
		obj := make(map[string]any, len(fields))
		for _, f := range fields {
			obj[f.Name()] = w.read(f.Type(), depth+1)
		}
		return obj
	case avro.Ref:
		return w.read(s.(*avro.RefSchema).Schema(), depth)
	case avro.Array:
		items := s.(*avro.ArraySchema).Items()
		arr := []any{}
		w.blocks(func() { arr = append(arr, w.read(items, depth+1)) })
		return arr
	case avro.Map:
		values := s.(*avro.MapSchema).Values()
		if w.build != nil {
			obj := w.build.Object(0)
			w.blocks(func() {
				k := w.string()
				w.build.Set(obj, k, w.read(values, depth+1))
			})
			return obj
		}
		obj := map[string]any{}
		w.blocks(func() {
			k := w.string()
			obj[k] = w.read(values, depth+1)
		})
		return obj
	case avro.Union:
		types := s.(*avro.UnionSchema).Types()
		i := w.r.ReadLong()
		if w.r.Error != nil {
			return nil
		}
		if i < 0 || int(i) >= len(types) {
			return w.fail(fmt.Errorf("a union of %d types has no branch %d", len(types), i))
		}
		return w.read(types[i], depth)
	}
	return w.fail(fmt.Errorf("unexpected schema type %s", s.Type()))
}

// blocks reads an array's or map's blocks, each item with fn.
func (w *avroWalk) blocks(fn func()) {
	for w.err == nil && w.r.Error == nil {
		n, _ := w.r.ReadBlockHeader()
		if n <= 0 || w.r.Error != nil {
			return
		}
		if n > int64(w.budget) {
			w.fail(fmt.Errorf("a block of %d items in a datum of %d bytes", n, w.size))
			return
		}
		for range n {
			if fn(); w.err != nil || w.r.Error != nil {
				return
			}
		}
	}
}

// decimal is a two's complement big-endian unscaled value as a string with
// scale digits after the point. Values of up to 8 bytes (most amounts) go
// through int64: big.Rat's formatting was most of a record's decoding.
func decimal(b []byte, scale int) string {
	var digits string
	neg := len(b) > 0 && b[0]&0x80 != 0
	if len(b) <= 8 {
		var n int64
		if neg {
			n = -1
		}
		for _, x := range b {
			n = n<<8 | int64(x)
		}
		if n < 0 && n != math.MinInt64 {
			digits = strconv.FormatInt(-n, 10)
		} else if n >= 0 {
			digits = strconv.FormatInt(n, 10)
		} else {
			digits = strconv.FormatUint(uint64(math.MaxInt64)+1, 10)
		}
	} else {
		n := new(big.Int).SetBytes(b)
		if neg {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
		}
		digits = n.Abs(n).String()
	}
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg && strings.Trim(digits, "0.") != "" {
		return "-" + digits
	}
	return digits
}

// clock is a time of day as "15:04:05.000" (or with microseconds).
func clock(d time.Duration) string {
	t := time.Unix(0, 0).UTC().Add(d)
	if d%time.Millisecond != 0 {
		return t.Format("15:04:05.000000")
	}
	return t.Format("15:04:05.000")
}
