package luaapi

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// A Type says which Lua values an argument accepts and turns an accepted
// value into the Go value Run gets. Types are data: the dispatcher reads
// every argument through them before anything is sent, and help, the
// reference and completion describe arguments from the same values.
//
// The path `at` names where the value sits, for errors:
// "spec #2: replication_factor".
type Type interface {
	// Doc describes the accepted values: "int32 >= 0", "string or array of strings".
	Doc() string
	read(r *reader, v lua.LValue, at string) (any, error)
	// accepts reports whether v has a Lua type this Type reads (not whether
	// it is valid): used to pick between alternatives.
	accepts(v lua.LValue) bool
	// sample is a Lua expression of a value this Type accepts: the tests
	// build a valid call of every function from the declarations, then
	// put a bad value at each position in turn.
	sample() string
}

// Limits on one call's arguments: beyond them a value is refused before it
// is walked further (a script cannot make the converter grow without bound).
const (
	maxArgDepth    = 32
	maxArgElements = 1 << 20
	// maxKafkaString is the longest string Kafka's protocol carries in an
	// int16-length STRING field.
	maxKafkaString = math.MaxInt16
)

// reader walks one call's arguments: the tables on the current path (a
// table met again there is a cycle) and how many elements were read.
type reader struct {
	onPath []*lua.LTable // at most maxArgDepth: searched in place
	read_  int
	null   lua.LValue // kafka.json.null, where a Type accepts it
	first  [8]*lua.LTable
	// unnamed: the paths of list items, record fields and map entries are
	// not built (an error's path may lack them). parseArgs reads a call
	// so first and again with paths only when it fails: building every
	// path up front ("spec #2: partitions") was a third of the
	// allocations of reading 5,000 topic specs.
	unnamed bool
}

func newReader(null lua.LValue) *reader {
	r := &reader{null: null}
	r.onPath = r.first[:0]
	return r
}

// sub is subPath(at, key), or "" when the reader builds no paths.
func (r *reader) sub(at, key string) string {
	if r.unnamed {
		return ""
	}
	return subPath(at, key)
}

// enter marks t as on the path; leave must follow.
func (r *reader) enter(t *lua.LTable, at string) error {
	if slices.Contains(r.onPath, t) {
		return argErr(at, "is a cyclic table (it contains itself)")
	}
	if len(r.onPath) >= maxArgDepth {
		return argErr(at, "is nested more than %d tables deep", maxArgDepth)
	}
	r.read_ += t.Len() + 1
	if r.read_ > maxArgElements {
		return argErr(at, "is too large (more than %d elements in one call)", maxArgElements)
	}
	r.onPath = append(r.onPath, t)
	return nil
}

// leave takes t, the last table entered, off the path.
func (r *reader) leave(t *lua.LTable) {
	if n := len(r.onPath); n > 0 && r.onPath[n-1] == t {
		r.onPath = r.onPath[:n-1]
		return
	}
	if i := slices.Index(r.onPath, t); i >= 0 {
		r.onPath = slices.Delete(r.onPath, i, i+1)
	}
}

// subPath extends a path with a key: "spec #2" + "partitions".
func subPath(at, key string) string {
	if at == "" {
		return key
	}
	return at + ": " + key
}

func isTable(v lua.LValue) bool { _, ok := v.(*lua.LTable); return ok }

// ---- strings

// StrType reads a Lua string, with Kafka's STRING width as the default limit.
type StrType struct {
	nonEmpty bool
	max      int
	enum     []string // allowed values (compared case-insensitively, given back as declared)
	check    func(string) error
	doc      string
	example  string
	kind     NameKind // the cluster's names completion offers for it
}

// Str accepts any string up to Kafka's string width.
func Str() *StrType { return &StrType{max: maxKafkaString} }

// NonEmptyStr accepts a non-empty string.
func NonEmptyStr() *StrType { return &StrType{max: maxKafkaString, nonEmpty: true} }

// Enum accepts one of vals (case-insensitive) and gives back the declared spelling.
func Enum(vals ...string) *StrType {
	return &StrType{max: maxKafkaString, enum: vals, nonEmpty: true}
}

// Checked adds a validation and a doc to a copy of s.
func (s *StrType) Checked(doc string, check func(string) error) *StrType {
	c := *s
	c.doc, c.check = doc, check
	return &c
}

// Sample gives a copy of s whose sample value is example (a valid value
// when the check needs one).
func (s *StrType) Sample(example string) *StrType { c := *s; c.example = example; return &c }

func (s *StrType) sample() string {
	switch {
	case s.example != "":
		return strconv.Quote(s.example)
	case len(s.enum) > 0:
		return strconv.Quote(s.enum[0])
	}
	return `"sample"`
}

// Naming gives a copy of s that takes a name of kind k: the REPL
// completes it with the names the cluster has.
func (s *StrType) Naming(k NameKind) *StrType { c := *s; c.kind = k; return &c }

// MaxLen gives a copy of s with another length limit.
func (s *StrType) MaxLen(n int) *StrType { c := *s; c.max = n; return &c }

func (s *StrType) Doc() string {
	switch {
	case s.doc != "":
		return s.doc
	case len(s.enum) > 0:
		return "one of " + strings.Join(quoted(s.enum), ", ")
	case s.nonEmpty:
		return "non-empty string"
	}
	return "string"
}

func (s *StrType) accepts(v lua.LValue) bool { _, ok := v.(lua.LString); return ok }

func (s *StrType) read(_ *reader, v lua.LValue, at string) (any, error) {
	ls, ok := v.(lua.LString)
	if !ok {
		return nil, argErr(at, "must be a %s, got %s", s.what(), describe(v))
	}
	str := string(ls)
	switch {
	case s.nonEmpty && str == "":
		return nil, argErr(at, "must not be empty")
	case len(str) > s.max:
		return nil, argErr(at, "is %d bytes long; at most %d are allowed", len(str), s.max)
	}
	if len(s.enum) > 0 {
		for _, e := range s.enum {
			if strings.EqualFold(e, str) {
				return e, nil
			}
		}
		msg := fmt.Sprintf("must be %s, got %s", orList(quoted(s.enum)), describe(v))
		if near := suggest(str, s.enum); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return nil, argErr(at, "%s", msg)
	}
	if s.check != nil {
		if err := s.check(str); err != nil {
			return nil, argErr(at, "%v", err)
		}
	}
	return str, nil
}

func (s *StrType) what() string {
	if s.doc != "" {
		return s.doc
	}
	if s.nonEmpty {
		return "non-empty string"
	}
	return "string"
}

// ---- booleans

// BoolType reads true or false, nothing else: a "yes" or a 0 is refused
// rather than read one way here and another there.
type BoolType struct{}

// Bool is the boolean type.
func Bool() BoolType { return BoolType{} }

func (BoolType) sample() string            { return "false" }
func (BoolType) Doc() string               { return "boolean" }
func (BoolType) accepts(v lua.LValue) bool { _, ok := v.(lua.LBool); return ok }
func (BoolType) read(_ *reader, v lua.LValue, at string) (any, error) {
	if b, ok := v.(lua.LBool); ok {
		return bool(b), nil
	}
	return nil, argErr(at, "must be true or false, got %s", describe(v))
}

// ---- integers

// IntType reads an integer that fits the Kafka field it fills. A Lua
// number must be integral and finite; a string of decimal digits is read
// too (script arguments arrive as strings). The Go value has the field's
// width: int16, int32 or int64 (Bits 0 gives int).
type IntType struct {
	Bits     int
	Min, Max int64
	doc      string
	kind     NameKind // the cluster's ids completion offers for it (brokers)
}

func intOf(bits int, min int64) *IntType {
	maxv := int64(math.MaxInt64)
	switch bits {
	case 16:
		maxv = math.MaxInt16
	case 32:
		maxv = math.MaxInt32
	case 0:
		maxv = 1 << 53
	}
	return &IntType{Bits: bits, Min: min, Max: maxv}
}

// Int16 is an int16 field no smaller than min (a replication factor).
func Int16(min int64) *IntType { return intOf(16, min) }

// Int32 is an int32 field no smaller than min (a partition, a broker id).
func Int32(min int64) *IntType { return intOf(32, min) }

// Int64 is an int64 field no smaller than min (an offset, a timestamp).
func Int64(min int64) *IntType { return intOf(64, min) }

// Count is a plain int no smaller than min (milliseconds, counts), at most 2^53.
func Count(min int64) *IntType { return intOf(0, min) }

// Between gives a copy of t limited to [min, max].
func (t *IntType) Between(min, max int64) *IntType { c := *t; c.Min, c.Max = min, max; return &c }

// Named gives a copy of t described as doc ("broker id").
func (t *IntType) Named(doc string) *IntType { c := *t; c.doc = doc; return &c }

// Naming gives a copy of t that takes an id of kind k (a broker id): the
// REPL completes it with the ids the cluster has.
func (t *IntType) Naming(k NameKind) *IntType { c := *t; c.kind = k; return &c }

func (t *IntType) Doc() string {
	w := "integer"
	if t.Bits != 0 {
		w = fmt.Sprintf("int%d", t.Bits)
	}
	if t.doc != "" {
		w = t.doc + " (" + w + ")"
	}
	return w + " " + t.rangeText()
}

func (t *IntType) rangeText() string {
	top := intOf(t.Bits, 0).Max
	switch {
	case t.Max != top:
		return fmt.Sprintf("between %d and %d", t.Min, t.Max)
	case t.Min == 0:
		return ">= 0"
	}
	return fmt.Sprintf(">= %d", t.Min)
}

func (t *IntType) sample() string { return strconv.FormatInt(max(t.Min, min(t.Max, 1)), 10) }

func (t *IntType) accepts(v lua.LValue) bool {
	switch v.(type) {
	case lua.LNumber, lua.LString:
		return true
	}
	return false
}

func (t *IntType) read(_ *reader, v lua.LValue, at string) (any, error) {
	n, ok := exactInt(v)
	if !ok || n < t.Min || n > t.Max {
		what := "an integer"
		if t.doc != "" {
			what = aOrAn(t.doc)
		}
		return nil, argErr(at, "must be %s between %d and %d, got %s", what, t.Min, t.Max, describe(v))
	}
	switch t.Bits {
	case 16:
		return int16(n), nil
	case 32:
		return int32(n), nil
	case 64:
		return n, nil
	}
	return int(n), nil
}

// exactInt reads an integral, finite Lua number inside int64's range (or
// a decimal integer string). 2^63 is a float64 that int64 cannot hold:
// converting it would wrap to -2^63, so it is refused here.
func exactInt(v lua.LValue) (int64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		f := float64(v)
		if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
			return 0, false
		}
		return int64(f), true
	case lua.LString:
		n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// ---- floating point

// NumType reads a finite Lua number no smaller than Min (quota rates),
// and no larger than Max when it has one (a fraction).
type NumType struct {
	Min, Max float64
	hasMax   bool
}

// Number is a finite number >= min.
func Number(min float64) NumType { return NumType{Min: min} }

// NumberBetween is a finite number in [min, max].
func NumberBetween(min, max float64) NumType { return NumType{Min: min, Max: max, hasMax: true} }

func (t NumType) sample() string {
	s := max(t.Min, 1)
	if t.hasMax {
		s = t.Max
	}
	return strconv.FormatFloat(s, 'g', -1, 64)
}

func (t NumType) Doc() string {
	if t.hasMax {
		return fmt.Sprintf("number between %g and %g", t.Min, t.Max)
	}
	return fmt.Sprintf("number >= %g", t.Min)
}

func (t NumType) accepts(v lua.LValue) bool { _, ok := v.(lua.LNumber); return ok }
func (t NumType) read(_ *reader, v lua.LValue, at string) (any, error) {
	n, ok := v.(lua.LNumber)
	f := float64(n)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < t.Min || (t.hasMax && f > t.Max) {
		return nil, argErr(at, "must be a finite %s, got %s", t.Doc(), describe(v))
	}
	return f, nil
}

// ---- config values

// ConfigValueType reads a config value: a string, a number, a boolean or an
// array of strings (a list config, sent comma-separated). Numbers are sent
// as Kafka parses them: integers in decimal (at most 2^53 in magnitude,
// where a Lua number is still exact: pass a string for more), others in
// shortest decimal form; NaN and infinities are refused.
type ConfigValueType struct{}

func (ConfigValueType) sample() string { return `"1"` }
func (ConfigValueType) Doc() string    { return "string, number, boolean or array of strings" }
func (ConfigValueType) accepts(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber, lua.LBool, *lua.LTable:
		return true
	}
	return false
}

func (ConfigValueType) read(r *reader, v lua.LValue, at string) (any, error) {
	switch v := v.(type) {
	case lua.LString:
		if len(v) > maxKafkaString {
			return nil, argErr(at, "is %d bytes long; at most %d are allowed", len(v), maxKafkaString)
		}
		return string(v), nil
	case lua.LBool:
		return v.String(), nil
	case lua.LNumber:
		f := float64(v)
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return nil, argErr(at, "must be a finite number, got %s", describe(v))
		case f == math.Trunc(f) && math.Abs(f) > 1<<53:
			return nil, argErr(at, "is beyond 2^53, where Lua numbers are no longer exact: pass it as a string, got %s", describe(v))
		case f == math.Trunc(f):
			return strconv.FormatInt(int64(f), 10), nil
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case *lua.LTable:
		items, err := List[string](Str()).read(r, v, at)
		if err != nil {
			return nil, err
		}
		return strings.Join(items.([]string), ","), nil
	}
	return nil, argErr(at, "must be a string, number, boolean or array of strings, got %s", describe(v))
}

// ---- any value

// AnyType accepts any Lua value; the value itself is given to Run
// (kafka.pp, kafka.json.encode, kafka.log). It is not walked here: the
// converter that uses it (output/guard.go) refuses cycles and sizes with the
// value's own path (value.a[1]).
type AnyType struct{}

func (AnyType) sample() string          { return "1" }
func (AnyType) Doc() string             { return "any value" }
func (AnyType) accepts(lua.LValue) bool { return true }
func (AnyType) read(_ *reader, v lua.LValue, _ string) (any, error) {
	return v, nil
}

// FuncType accepts a Lua function (plugin entry points).
type FuncType struct{}

func (FuncType) sample() string            { return "function() end" }
func (FuncType) Doc() string               { return "function" }
func (FuncType) accepts(v lua.LValue) bool { _, ok := v.(*lua.LFunction); return ok }
func (FuncType) read(_ *reader, v lua.LValue, at string) (any, error) {
	if f, ok := v.(*lua.LFunction); ok {
		return f, nil
	}
	return nil, argErr(at, "must be a function, got %s", describe(v))
}

// ---- helpers shared by the types

func quoted(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strconv.Quote(v)
	}
	return out
}

// orList writes "a, b or c".
func orList(vals []string) string {
	if len(vals) <= 1 {
		return strings.Join(vals, "")
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
}
