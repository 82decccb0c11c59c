package luaapi

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Go results become plain Lua tables. Struct fields are named by their json
// tags (the same names JSON output uses), so one tag serves both. Two
// metatables carry what a plain Lua table cannot: recordMeta remembers a
// struct's field order for table printing (__columns), and objectMeta marks a
// table that came from a Go map, so an empty one encodes as {} not [].

var (
	errType  = reflect.TypeOf((*engine.Error)(nil))
	timeType = reflect.TypeOf(time.Time{})
)

type converter struct {
	L       *lua.LState
	object  *lua.LTable
	mu      sync.Mutex
	records map[reflect.Type]*recordType
}

// recordType is what a struct type converts with, worked out once per type.
type recordType struct {
	meta   *lua.LTable
	fields []recordField
}

type recordField struct {
	index     int
	name      lua.LString
	omitEmpty bool
}

func newConverter(L *lua.LState) *converter {
	obj := L.NewTable()
	obj.RawSetString("__kind", lua.LString("object"))
	return &converter{L: L, object: obj, records: map[reflect.Type]*recordType{}}
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

func (c *converter) value(v reflect.Value) lua.LValue {
	if !v.IsValid() {
		return lua.LNil
	}
	if v.Type() == errType {
		if v.IsNil() {
			return lua.LNil
		}
		return errorTable(c.L, "", v.Interface().(*engine.Error), nil)
	}
	if v.Type() == timeType {
		t := v.Interface().(time.Time)
		if t.IsZero() {
			return lua.LNil
		}
		return lua.LNumber(t.UnixMilli())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return lua.LNil
		}
		return c.value(v.Elem())
	case reflect.String:
		return lua.LString(v.String())
	case reflect.Bool:
		return lua.LBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(v.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(v.Float())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return lua.LString(v.Bytes())
		}
		t := c.L.CreateTable(v.Len(), 0)
		for i := 0; i < v.Len(); i++ {
			t.RawSetInt(i+1, c.value(v.Index(i)))
		}
		return t
	case reflect.Map:
		t := c.L.CreateTable(0, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			t.RawSet(c.value(iter.Key()), c.value(iter.Value()))
		}
		t.Metatable = c.object
		return t
	case reflect.Struct:
		return c.record(v)
	}
	return lua.LString(v.String())
}

func (c *converter) record(v reflect.Value) lua.LValue {
	rt := c.recordType(v.Type())
	t := c.L.CreateTable(0, len(rt.fields))
	for _, f := range rt.fields {
		fv := v.Field(f.index)
		if f.omitEmpty && fv.IsZero() {
			continue
		}
		t.RawSetH(f.name, c.value(fv))
	}
	t.Metatable = rt.meta
	return t
}

func (c *converter) recordType(typ reflect.Type) *recordType {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rt, ok := c.records[typ]; ok {
		return rt
	}
	rt := &recordType{meta: c.L.NewTable()}
	cols := c.L.NewTable()
	for i := 0; i < typ.NumField(); i++ {
		if name, omitEmpty, ok := jsonName(typ.Field(i)); ok {
			cols.Append(lua.LString(name))
			rt.fields = append(rt.fields, recordField{index: i, name: lua.LString(name), omitEmpty: omitEmpty})
		}
	}
	rt.meta.RawSetString("__columns", cols)
	rt.meta.RawSetString("__kind", lua.LString("object"))
	c.records[typ] = rt
	return rt
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

// fromLua turns a Lua value into plain Go (for the audit log, confirm
// prompts and messages): tables become []any when they are sequences, else
// map[string]any; functions and userdata become their type names. It never
// fails: a part that cannot be converted (a cyclic table, nesting too deep,
// too much in all) becomes a marker string such as "<cyclic table (it
// contains itself)>", so the audit line or message is still written.
// goValue is the strict form.
func fromLua(v lua.LValue) any {
	out, _ := toGo(newGuard("value").small(), lua.LNil, v, true)
	return out
}

// goValue is fromLua that fails, naming where and why, instead of writing
// markers. root names the value in the message ("cfg.a: cyclic table").
func goValue(v lua.LValue, root string) (any, error) {
	return toGo(newGuard(root).small(), lua.LNil, v, false)
}

// toGo converts v, found under key. Lenient, a part that cannot be
// converted becomes a marker string in its place.
func toGo(g *valueGuard, key, v lua.LValue, lenient bool) (any, error) {
	out, err := toGoValue(g, key, v, lenient)
	var ve *valueError
	if lenient && errors.As(err, &ve) {
		return "<" + ve.Reason + ">", nil
	}
	return out, err
}

func toGoValue(g *valueGuard, key, v lua.LValue, lenient bool) (any, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, g.count(key, 0)
	case lua.LBool:
		return bool(v), g.count(key, 0)
	case lua.LNumber:
		return float64(v), g.count(key, 0)
	case lua.LString:
		return string(v), g.str(key, string(v))
	case *lua.LTable:
		if err := g.count(key, 0); err != nil {
			return nil, err
		}
		if err := g.enter(key, v); err != nil {
			return nil, err
		}
		defer g.leave(v)
		if isArray(v) {
			out := make([]any, 0, v.Len())
			for i := 1; i <= v.Len(); i++ {
				e, err := toGo(g, lua.LNumber(i), v.RawGetInt(i), lenient)
				if err != nil {
					return nil, err
				}
				out = append(out, e)
			}
			return out, nil
		}
		out := map[string]any{}
		for _, k := range tableKeys(v) { // sorted: the first error is always the same
			ks := lua.LVAsString(k) + keySuffix(k)
			g.bytes += len(ks) // checked with the value
			e, err := toGo(g, k, v.RawGet(k), lenient)
			if err != nil {
				return nil, err
			}
			out[ks] = e
		}
		return out, nil
	}
	return v.Type().String(), g.count(key, 0)
}

func keySuffix(k lua.LValue) string {
	switch k.(type) {
	case lua.LString, lua.LNumber:
		return ""
	}
	return k.Type().String()
}

// isArray: a table whose keys are exactly 1..n, and which is not marked as
// an object. An empty unmarked table is an array (prints as []).
func isArray(t *lua.LTable) bool {
	if isObject(t) {
		return false
	}
	n := t.Len()
	count := 0
	array := true
	t.ForEach(func(k, _ lua.LValue) {
		count++
		if num, ok := k.(lua.LNumber); !ok || int(num) < 1 || int(num) > n || float64(int(num)) != float64(num) {
			array = false
		}
	})
	return array && count == n
}

func isObject(t *lua.LTable) bool {
	mt, ok := t.Metatable.(*lua.LTable)
	return ok && mt.RawGetString("__kind") == lua.LString("object")
}

// columns returns a record table's preferred column order, if it has one.
func columns(t *lua.LTable) []string {
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok {
		return nil
	}
	cols, ok := mt.RawGetString("__columns").(*lua.LTable)
	if !ok {
		return nil
	}
	var out []string
	for i := 1; i <= cols.Len(); i++ {
		out = append(out, lua.LVAsString(cols.RawGetInt(i)))
	}
	return out
}
