package luaapi

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Go results become plain Lua tables. Struct fields are named by their json
// tags (the same names JSON output uses), so one tag serves both. Two
// metatables carry what a plain Lua table cannot: recordMeta remembers a
// struct's field order for table printing (__columns), and objectMeta marks a
// table that came from a Go map, so an empty one encodes as {} not [].
//
// Results can be big (lag() of 100,000 partitions), so the conversion is
// compiled: the first value of a Go type works out, by reflection, one
// encoder function per type, which reads fields at their offsets with typed
// loads; every later value of the type runs only those functions. A slice
// of structs becomes its records with two allocations in all
// (lua.NewRecordTables) plus the values that need boxing, and small
// integers and repeated strings (a topic's name on each of its partitions)
// are boxed once. Interfaces and maps, rare in results, go through
// reflect.Value.

// lazyFields are the slices made into Lua arrays on first use
// (lazySliceEncoder): big lists a script often only counts or skips. Only
// fields whose slices nothing writes once the engine returns them: the
// array reads them when the script first looks, maybe much later.
var lazyFields = map[reflect.Type]map[string]bool{
	// A million-partition describe_topics made every partition a table and
	// four arrays, most of its time (docs/benchmarks.md, DT).
	reflect.TypeFor[engine.TopicDescription](): {"Partitions": true},
}

var (
	errType  = reflect.TypeFor[*engine.Error]()
	timeType = reflect.TypeFor[time.Time]()
	lvType   = reflect.TypeFor[lua.LValue]()
)

type converter struct {
	L      *lua.LState
	object *lua.LTable
	mu     sync.Mutex
	encs   map[reflect.Type]*encoder
	// nums holds the boxed integers -1 .. len(nums)-2, made on first use:
	// partitions, small offsets and lags.
	nums *[1024]lua.LValue
}

// encoder converts the value of one Go type found at a pointer.
type encoder struct {
	fn  func(c *converter, p unsafe.Pointer) lua.LValue
	rec *recordType // for structs
}

// recordType is what a struct type converts with, worked out once per type.
type recordType struct {
	meta   *lua.LTable
	fields []recordField
}

type recordField struct {
	offset    uintptr
	key       lua.LValue // the json name, boxed once
	enc       *encoder
	omitEmpty bool
	isZero    func(p unsafe.Pointer) bool
	// elems converts the elements of a slice of scalars (a partition's
	// replicas), elemSize apart; nil for other fields. A slice of records
	// makes these arrays for all its records at once (sliceEncoder).
	elems    *encoder
	elemSize uintptr
}

func newConverter(L *lua.LState) *converter {
	obj := L.NewTable()
	obj.RawSetString("__kind", lua.LString("object"))
	return &converter{L: L, object: obj, encs: map[reflect.Type]*encoder{}}
}

func (c *converter) toLua(v any) lua.LValue {
	if v == nil {
		return lua.LNil
	}
	if lv, ok := v.(lua.LValue); ok {
		return lv
	}
	return c.value(reflect.ValueOf(v))
}

// value converts v; an addressable v is read in place, another is copied
// once so that the encoders can read it by pointer.
func (c *converter) value(v reflect.Value) lua.LValue {
	if !v.IsValid() {
		return lua.LNil
	}
	enc := c.encoderOf(v.Type())
	if v.CanAddr() {
		return enc.fn(c, v.Addr().UnsafePointer())
	}
	tmp := reflect.New(v.Type())
	tmp.Elem().Set(v)
	return enc.fn(c, tmp.UnsafePointer())
}

// num boxes an integer, from the cache when it is small.
func (c *converter) num(n int64) lua.LValue {
	if n >= -1 && n < 1023 {
		if c.nums == nil {
			c.nums = new([1024]lua.LValue)
		}
		lv := c.nums[n+1]
		if lv == nil {
			lv = lua.LNumber(n)
			c.nums[n+1] = lv
		}
		return lv
	}
	return lua.LNumber(n)
}

func (c *converter) encoderOf(t reflect.Type) *encoder {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compile(t)
}

// compile returns t's encoder, building it (and those of the types it
// contains) the first time. Called with c.mu held.
func (c *converter) compile(t reflect.Type) *encoder {
	if e, ok := c.encs[t]; ok {
		return e
	}
	e := &encoder{}
	c.encs[t] = e // before the parts: a type may contain itself
	e.fn = c.build(t, e)
	return e
}

func (c *converter) build(t reflect.Type, e *encoder) func(*converter, unsafe.Pointer) lua.LValue {
	switch t {
	case errType:
		return func(c *converter, p unsafe.Pointer) lua.LValue {
			if err := *(**engine.Error)(p); err != nil {
				return errorTable(c.L, "", err, nil)
			}
			return lua.LNil
		}
	case timeType:
		return func(_ *converter, p unsafe.Pointer) lua.LValue {
			if t := (*time.Time)(p); !t.IsZero() {
				return lua.LNumber(t.UnixMilli())
			}
			return lua.LNil
		}
	case lvType:
		return func(_ *converter, p unsafe.Pointer) lua.LValue {
			if lv := *(*lua.LValue)(p); lv != nil {
				return lv
			}
			return lua.LNil
		}
	}
	if t.Kind() == reflect.Pointer && t.Implements(lvType) { // *lua.LTable, *lua.LFunction, ...
		return func(_ *converter, p unsafe.Pointer) lua.LValue {
			if *(*unsafe.Pointer)(p) == nil {
				return lua.LNil
			}
			return reflect.NewAt(t, p).Elem().Interface().(lua.LValue)
		}
	}
	switch t.Kind() {
	case reflect.String:
		return stringEncoder()
	case reflect.Bool:
		return func(_ *converter, p unsafe.Pointer) lua.LValue { return lua.LBool(*(*bool)(p)) }
	case reflect.Int:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*int)(p))) }
	case reflect.Int8:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*int8)(p))) }
	case reflect.Int16:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*int16)(p))) }
	case reflect.Int32:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*int32)(p))) }
	case reflect.Int64:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(*(*int64)(p)) }
	case reflect.Uint8:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*uint8)(p))) }
	case reflect.Uint16:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*uint16)(p))) }
	case reflect.Uint32:
		return func(c *converter, p unsafe.Pointer) lua.LValue { return c.num(int64(*(*uint32)(p))) }
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return func(_ *converter, p unsafe.Pointer) lua.LValue {
			return lua.LNumber(reflect.NewAt(t, p).Elem().Uint())
		}
	case reflect.Float32:
		return func(_ *converter, p unsafe.Pointer) lua.LValue { return lua.LNumber(*(*float32)(p)) }
	case reflect.Float64:
		return func(_ *converter, p unsafe.Pointer) lua.LValue { return lua.LNumber(*(*float64)(p)) }
	case reflect.Pointer:
		elem := c.compile(t.Elem())
		return func(c *converter, p unsafe.Pointer) lua.LValue {
			if q := *(*unsafe.Pointer)(p); q != nil {
				return elem.fn(c, q)
			}
			return lua.LNil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(_ *converter, p unsafe.Pointer) lua.LValue { return lua.LString(*(*[]byte)(p)) }
		}
		return c.sliceEncoder(t)
	case reflect.Struct:
		e.rec = c.recordType(t)
		return func(c *converter, p unsafe.Pointer) lua.LValue {
			rec := e.rec
			tb := c.L.CreateTable(0, len(rec.fields))
			c.fill(tb, rec, p, nil)
			return tb
		}
	case reflect.Interface:
		return func(c *converter, p unsafe.Pointer) lua.LValue {
			v := reflect.NewAt(t, p).Elem()
			if v.IsNil() {
				return lua.LNil
			}
			x := v.Interface()
			if lv, ok := x.(lua.LValue); ok {
				return lv
			}
			return c.value(reflect.ValueOf(x))
		}
	case reflect.Map:
		return func(c *converter, p unsafe.Pointer) lua.LValue {
			v := reflect.NewAt(t, p).Elem()
			tb := c.L.CreateTable(0, v.Len())
			for iter := v.MapRange(); iter.Next(); {
				tb.RawSet(c.value(iter.Key()), c.value(iter.Value()))
			}
			tb.Metatable = c.object
			return tb
		}
	case reflect.Array:
		return func(c *converter, p unsafe.Pointer) lua.LValue {
			v := reflect.NewAt(t, p).Elem()
			tb := c.L.CreateTable(v.Len(), 0)
			for i := range v.Len() {
				tb.RawSetInt(i+1, c.value(v.Index(i)))
			}
			return tb
		}
	}
	return func(_ *converter, p unsafe.Pointer) lua.LValue {
		return lua.LString(reflect.NewAt(t, p).Elem().String())
	}
}

// stringEncoder boxes a string field, reusing the box while the field
// keeps the same value from one record to the next.
func stringEncoder() func(*converter, unsafe.Pointer) lua.LValue {
	var last string
	var lastLV lua.LValue
	return func(_ *converter, p unsafe.Pointer) lua.LValue {
		s := *(*string)(p)
		if lastLV == nil || s != last {
			last, lastLV = s, lua.LString(s)
		}
		return lastLV
	}
}

// sliceEncoder converts a slice to an array; a slice of structs gets its
// records made together.
func (c *converter) sliceEncoder(t reflect.Type) func(*converter, unsafe.Pointer) lua.LValue {
	fill := c.sliceFiller(t)
	return func(c *converter, p unsafe.Pointer) lua.LValue {
		tb := c.L.CreateTable(len(*(*[]byte)(p)), 0)
		fill(c, tb, p)
		return tb
	}
}

// lazySliceEncoder converts a slice of t to an array made on first use
// (lua.NewLazyArray): for the fields lazyFields names, whose slices the
// engine never touches once handed over.
func (c *converter) lazySliceEncoder(t reflect.Type) func(*converter, unsafe.Pointer) lua.LValue {
	fill := c.sliceFiller(t)
	return func(c *converter, p unsafe.Pointer) lua.LValue {
		s := *(*[]byte)(p) // the slice header, which keeps its elements alive
		if len(s) == 0 {
			return c.L.CreateTable(0, 0)
		}
		return lua.NewLazyArray(len(s), func(tb *lua.LTable) { fill(c, tb, unsafe.Pointer(&s)) })
	}
}

// sliceFiller sets a slice's elements, at p, in an empty table.
func (c *converter) sliceFiller(t reflect.Type) func(*converter, *lua.LTable, unsafe.Pointer) {
	elem := c.compile(t.Elem())
	size := t.Elem().Size()
	records := t.Elem().Kind() == reflect.Struct && t.Elem() != timeType
	return func(c *converter, tb *lua.LTable, p unsafe.Pointer) {
		data, n := unsafe.SliceData(*(*[]byte)(p)), len(*(*[]byte)(p))
		if n == 0 {
			return
		}
		base := unsafe.Pointer(data)
		if records {
			rec := elem.rec
			rows := lua.NewRecordTables(n, len(rec.fields))
			arrays := c.recordArrays(rec, base, size, n)
			for i := range rows {
				c.fill(&rows[i], rec, unsafe.Add(base, uintptr(i)*size), arrays)
				tb.RawSetInt(i+1, &rows[i])
			}
			return
		}
		for i := range n {
			tb.RawSetInt(i+1, elem.fn(c, unsafe.Add(base, uintptr(i)*size)))
		}
	}
}

// fill sets the record's fields in tb from the struct at p. arrays, when
// not nil, are the tables made for the arrays of scalars of the records
// being filled, in order (recordArrays).
func (c *converter) fill(tb *lua.LTable, rec *recordType, p unsafe.Pointer, arrays []arraySlab) {
	for i := range rec.fields {
		f := &rec.fields[i]
		fp := unsafe.Add(p, f.offset)
		if f.omitEmpty && f.isZero(fp) {
			continue
		}
		if arrays != nil && arrays[i].tables != nil {
			arr := &arrays[i].tables[arrays[i].next]
			arrays[i].next++
			data, n := unsafe.Pointer(unsafe.SliceData(*(*[]byte)(fp))), len(*(*[]byte)(fp))
			for j := range n {
				arr.RawSetInt(j+1, f.elems.fn(c, unsafe.Add(data, uintptr(j)*f.elemSize)))
			}
			tb.RawSetH(f.key, arr)
			continue
		}
		tb.RawSetH(f.key, f.enc.fn(c, fp))
	}
	tb.Metatable = rec.meta
}

// arraySlab is the tables made for one field's arrays of scalars, over
// records filled in order: next is the next record's.
type arraySlab struct {
	tables []lua.LTable
	next   int
}

// recordArrays makes the tables of the arrays of scalars of n records of
// type rec, size apart from base: for each such field, one allocation for
// all the records' tables and one for their elements (a page of 20,000
// partitions' replicas, ISR, offline replicas and ELR were 100,000
// allocations); none for a field a record leaves out (omitempty). nil when
// rec has no such field.
func (c *converter) recordArrays(rec *recordType, base unsafe.Pointer, size uintptr, n int) []arraySlab {
	var arrays []arraySlab
	var lens []int
	for i := range rec.fields {
		f := &rec.fields[i]
		if f.elems == nil {
			continue
		}
		if arrays == nil {
			arrays, lens = make([]arraySlab, len(rec.fields)), make([]int, 0, n)
		}
		lens = lens[:0]
		for r := range n {
			fp := unsafe.Add(base, uintptr(r)*size+f.offset)
			if !f.omitEmpty || !f.isZero(fp) {
				lens = append(lens, len(*(*[]byte)(fp)))
			}
		}
		if len(lens) > 0 {
			arrays[i].tables = lua.NewArrayTables(lens)
		}
	}
	return arrays
}

// recordType works out a struct type's fields. Called with c.mu held.
func (c *converter) recordType(typ reflect.Type) *recordType {
	rt := &recordType{meta: c.L.NewTable()}
	cols := c.L.NewTable()
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		if name, omitEmpty, ok := jsonName(sf); ok {
			cols.Append(lua.LString(name))
			enc := c.compile(sf.Type)
			if sf.Type.Kind() == reflect.String {
				enc = &encoder{fn: stringEncoder()} // a box cache of its own
			}
			f := recordField{offset: sf.Offset, key: lua.LString(name),
				enc: enc, omitEmpty: omitEmpty, isZero: zeroCheck(sf.Type)}
			if scalarSlice(sf.Type) {
				f.elems, f.elemSize = c.compile(sf.Type.Elem()), sf.Type.Elem().Size()
			}
			if lazyFields[typ][sf.Name] {
				f.enc = &encoder{fn: c.lazySliceEncoder(sf.Type)}
			}
			rt.fields = append(rt.fields, f)
		}
	}
	// Set in key order: a small table keeps its insertion order, so the
	// JSON and YAML writers find the keys already sorted.
	slices.SortFunc(rt.fields, func(a, b recordField) int { return strings.Compare(a.key.String(), b.key.String()) })
	rt.meta.RawSetString("__columns", cols)
	rt.meta.RawSetString("__kind", lua.LString("object"))
	return rt
}

// scalarSlice reports whether t is a slice of numbers, strings or
// booleans (a []byte is a string, not an array).
func scalarSlice(t reflect.Type) bool {
	if t.Kind() != reflect.Slice || t.Elem().Implements(lvType) {
		return false
	}
	switch t.Elem().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint16, reflect.Uint32,
		reflect.Float32, reflect.Float64, reflect.String, reflect.Bool:
		return true
	}
	return false
}

// zeroCheck reports whether the value of type t at p is its zero value
// (what reflect.Value.IsZero says), typed for the common kinds.
func zeroCheck(t reflect.Type) func(unsafe.Pointer) bool {
	switch t.Kind() {
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Bool:
		return func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.Int32:
		return func(p unsafe.Pointer) bool { return *(*int32)(p) == 0 }
	case reflect.Int64:
		return func(p unsafe.Pointer) bool { return *(*int64)(p) == 0 }
	case reflect.Pointer, reflect.Map:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return unsafe.SliceData(*(*[]byte)(p)) == nil }
	}
	return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
}

func jsonName(sf reflect.StructField) (name string, omitEmpty, ok bool) {
	if !sf.IsExported() {
		return "", false, false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	parts := strings.Split(tag, ",")
	name = parts[0]
	if name == "" {
		name = strings.ToLower(sf.Name)
	}
	for _, p := range parts[1:] {
		if p == "omitempty" {
			omitEmpty = true
		}
	}
	return name, omitEmpty, true
}
