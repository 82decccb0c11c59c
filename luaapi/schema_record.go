package luaapi

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Field is one key of a record or of an options table.
type Field struct {
	Name     string
	Type     Type
	Required bool
	Doc      string
}

// Rec is a record read by a RecordType: each present key's Go value.
type Rec map[string]any

// Has reports whether the key was given.
func (r Rec) Has(key string) bool { _, ok := r[key]; return ok }

// get returns key's value as T, or T's zero value when absent. A value of
// another type is a declaration bug: the test over every function finds it.
func get[T any](r Rec, key string) T {
	v, ok := r[key]
	if !ok {
		var zero T
		return zero
	}
	return v.(T)
}

// RecordType reads a table with known string keys. Unknown keys are
// refused with the nearest known name; Build, when set, turns the Rec into
// the Go value Run gets and may refuse combinations the fields alone allow.
type RecordType struct {
	Fields  []Field
	Build   func(rec Rec, at string) (any, error)
	doc     string
	example string
	names   []string // Names(), made by Record
}

// Record declares a record type.
func Record(fields ...Field) *RecordType {
	t := &RecordType{Fields: fields}
	t.names = t.Names()
	return t
}

// Then gives a copy of t with a Build step.
func (t *RecordType) Then(build func(rec Rec, at string) (any, error)) *RecordType {
	c := *t
	c.Build = build
	return &c
}

// Described gives a copy of t with its own short description.
func (t *RecordType) Described(doc string) *RecordType { c := *t; c.doc = doc; return &c }

// Names lists the record's keys. The caller must not change the list.
func (t *RecordType) Names() []string {
	if len(t.names) == len(t.Fields) && t.names != nil {
		return t.names
	}
	out := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		out[i] = f.Name
	}
	return out
}

func (t *RecordType) field(name string) *Field {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}

func (t *RecordType) Doc() string {
	if t.doc != "" {
		return t.doc
	}
	var parts []string
	for _, f := range t.Fields {
		if f.Required {
			parts = append(parts, f.Name+"=")
		} else {
			parts = append(parts, "["+f.Name+"=]")
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// sample sets the required fields (samples given with Sample win).
func (t *RecordType) sample() string {
	if t.example != "" {
		return t.example
	}
	var parts []string
	for _, f := range t.Fields {
		if f.Required {
			parts = append(parts, f.Name+" = "+f.Type.sample())
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Sample gives a copy of t with a valid Lua value for the tests, when the
// required fields alone are not one (set or delete must be given, ...).
func (t *RecordType) Sample(lua string) *RecordType { c := *t; c.example = lua; return &c }

func (t *RecordType) accepts(v lua.LValue) bool { return isTable(v) }

func (t *RecordType) read(r *reader, v lua.LValue, at string) (any, error) {
	tbl, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr(at, "must be a table %s, got %s", t.Doc(), describe(v))
	}
	rec, err := t.readFields(r, tbl, at)
	if err != nil {
		return nil, err
	}
	if t.Build != nil {
		return t.Build(rec, at)
	}
	return rec, nil
}

// readFields checks every key of tbl against the fields and reads the
// values, in the declared order (errors are stable).
func (t *RecordType) readFields(r *reader, tbl *lua.LTable, at string) (Rec, error) {
	if err := r.enter(tbl, at); err != nil {
		return nil, err
	}
	defer r.leave(tbl)
	if err := t.unknownKeys(tbl, at); err != nil {
		return nil, err
	}
	var rec Rec // made at the first key given: options are mostly left out
	for _, f := range t.Fields {
		v := tbl.RawGetString(f.Name)
		if v == lua.LNil {
			if f.Required {
				return nil, argErr(subPath(at, f.Name), "is required")
			}
			continue
		}
		x, err := f.Type.read(r, v, r.sub(at, f.Name))
		if err != nil {
			return nil, err
		}
		if rec == nil {
			rec = Rec{}
		}
		rec[f.Name] = x
	}
	return rec, nil
}

func (t *RecordType) unknownKeys(tbl *lua.LTable, at string) error {
	known := true
	for k, _ := tbl.Next(lua.LNil); k != lua.LNil && known; k, _ = tbl.Next(k) {
		ks, isStr := k.(lua.LString)
		known = isStr && t.field(string(ks)) != nil
	}
	if known {
		return nil
	}
	names := t.Names()
	for _, k := range sortedTableKeys(tbl) {
		ks, isStr := k.(lua.LString)
		if isStr && slices.Contains(names, string(ks)) {
			continue
		}
		return unknownKey(at, k, names)
	}
	return nil
}

// unknownKey is the error for a key no declaration has: it names the
// nearest allowed key, and lists them all.
func unknownKey(at string, k lua.LValue, allowed []string) error {
	msg := fmt.Sprintf("unknown key %s", describe(k))
	if ks, ok := k.(lua.LString); ok {
		if near := suggest(string(ks), allowed); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	if len(allowed) == 0 {
		return argErr(at, "%s (no keys are allowed)", msg)
	}
	return argErr(at, "%s (allowed: %s)", msg, strings.Join(allowed, ", "))
}

// ---- types with their own rules

// CustomType reads values by a function, for shapes the other types do
// not express (a quota entity accepting kafka.json.null, ...).
type CustomType struct {
	doc     string
	docFn   func() string // instead of doc, when set
	example string
	kinds   []lua.LValueType
	fn      func(r *reader, v lua.LValue, at string) (any, error)
	like    Type // the declared type fn reads values as, for completion
}

// Custom declares a type read by fn for values of the given Lua kinds;
// example is a Lua expression of a valid value (for the tests).
func Custom(doc, example string, fn func(r *reader, v lua.LValue, at string) (any, error), kinds ...lua.LValueType) *CustomType {
	return &CustomType{doc: doc, example: example, kinds: kinds, fn: fn}
}

// Like gives a copy of c that completion reads as t: the type fn reads
// values with (or one shaped as they are), whose keys, names and values
// the REPL offers inside a call.
func (c *CustomType) Like(t Type) *CustomType { x := *c; x.like = t; return &x }

func (c *CustomType) sample() string { return c.example }

func (c *CustomType) Doc() string {
	if c.docFn != nil {
		return c.docFn()
	}
	return c.doc
}
func (c *CustomType) accepts(v lua.LValue) bool {
	return len(c.kinds) == 0 || slices.Contains(c.kinds, v.Type())
}

// read leaves cycle and size checks to fn's own use of the other types
// (which enter each table they read).
func (c *CustomType) read(r *reader, v lua.LValue, at string) (any, error) { return c.fn(r, v, at) }
