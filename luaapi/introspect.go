package luaapi

import (
	"errors"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// What tools outside the runtime ask of the declarations: `kadmin-lua
// check` walks a call's arguments as the dispatcher reads them, and
// `kadmin-lua meta` writes editor types from them. Both read the same
// Types the dispatcher reads arguments with, never a copy of their rules:
// these accessors expose a Type's parts, and ReadValue reads a value with
// the Type's own reader (the message a refused call would raise).

// ReadValue reads v with t as a call would, at the argument path at
// ("spec #2"), and returns the error the call would raise; nil when t
// accepts v. Values the runtime makes (kafka.json.null) are not known
// here: a tool passes only values written literally in a script.
func ReadValue(t Type, v lua.LValue, at string) error {
	_, err := t.read(newReader(lua.LNil), v, at)
	return err
}

// Accepts reports whether t reads values of v's Lua type at all (a
// string where a table of records goes is refused whatever it says).
func Accepts(t Type, v lua.LValue) bool { return t.accepts(v) }

// CheckCall reads a whole call's arguments against f's declaration, as
// the dispatcher does before anything is sent, and returns its error: the
// message names the argument ("spec #2: partitions must be ...") without
// the function's name in front.
func CheckCall(f *Func, vals []lua.LValue) error {
	_, err := parseArgs(f, vals, lua.LNil)
	return err
}

// Declared reports whether f declares its arguments (every built-in
// function does; a plugin's functions do not).
func (f *Func) Declared() bool { return f.declared() }

// AllOptions is every key of f's options table: its own, then the ones
// its kind brings (validate_only, partial). The caller must not change it.
func (f *Func) AllOptions() []Field { return f.options() }

// OptionsRecord is the type of f's options table (nil when it has none).
func (f *Func) OptionsRecord() *RecordType {
	if !f.hasOptionsTable() {
		return nil
	}
	return f.optionsRecord()
}

// OptionsPath names the options table in argument errors: "options", or
// "" for a function called with one table of named arguments.
func (f *Func) OptionsPath() string { return f.optionsPath() }

// Signature is the call's shape as help shows it: "(specs[, {validate_only=, partial=}])".
func (f *Func) Signature() string { return signature(f) }

// ResultShape is the declared shape of f's result; nil when Returns says
// no structure ("string", "nothing").
func (f *Func) ResultShape() *Shape { return f.resultShape() }

// MisspeltOptions is the error a call raises when keys, given as an
// optional argument, look like f's options table with one misspelt
// (lag{partal=true}); nil when they do not.
func MisspeltOptions(f *Func, keys []string) error {
	t := &lua.LTable{}
	for _, k := range keys {
		t.RawSetString(k, lua.LTrue)
	}
	return misspeltOptions(f, t)
}

// UnknownKeys is the error a record raises for a table with these
// string keys (the first unknown one, with the nearest name); nil when
// every key is a field of t.
func (t *RecordType) UnknownKeys(keys []string, at string) error {
	tbl := &lua.LTable{}
	for _, k := range keys {
		tbl.RawSetString(k, lua.LTrue)
	}
	return t.unknownKeys(tbl, at)
}

// Field is the field called name, or nil.
func (t *RecordType) Field(name string) *Field { return t.field(name) }

// HasBuild reports whether t checks rules across its fields when read
// (set or delete given, ...), which only a whole value can be held to.
func (t *RecordType) HasBuild() bool { return t.Build != nil }

// Enum is the values a string takes when it is one of a fixed set; nil
// otherwise.
func (s *StrType) Enum() []string { return s.enum }

// Elem is the type of the list's elements.
func (l *ListType) Elem() Type { return l.elem }

// Single reports whether a lone element is read as a one-element list.
func (l *ListType) Single() bool { return l.single }

// ItemPath names the n-th element (1-based) in errors: "spec #2", "names #2".
func (l *ListType) ItemPath(at string, n int) string { return l.itemAt(at, n, false) }

// KeyType and ValueType are the map's key and value types.
func (m *MapType) KeyType() Type   { return m.key }
func (m *MapType) ValueType() Type { return m.val }

// Alts are the alternatives, in the order they are tried.
func (a *AltType) Alts() []Type { return a.alts }

// LikeType is the declared type c reads values as (for completion and
// tools), or nil; Kinds the Lua types it accepts (nil: any).
func (c *CustomType) LikeType() Type          { return c.like }
func (c *CustomType) Kinds() []lua.LValueType { return c.kinds }

// SubPath extends an argument path with a key, as errors name it:
// "spec #2" + "partitions" is "spec #2: partitions".
func SubPath(at, key string) string { return subPath(at, key) }

// PluginType is the type of the table a plugin module returns
// (plugins_parse.go): `kadmin-lua check` reads a plugin's table with it.
func PluginType() *RecordType { return pluginTableType }

// ArgMessage is an argument error's message as a call raises it after the
// function's name ("spec #2: partitions must be ..."), without its code.
func ArgMessage(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// Suggest is the candidate name most likely misspelt as name, or "" (the
// rule of every "did you mean" the runtime gives).
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }
