package meta

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// A class is a table shape the definitions name: an options table, a
// record argument, a result row.
type class struct {
	name   string
	doc    string
	fields []classField
}

type classField struct {
	name     string
	typ      string
	optional bool
	doc      string
}

// typer turns declared types and result shapes into LuaLS type
// expressions, naming each record it meets as a class after the path that
// leads to it (kadmin.create_topics.specs.assignment).
type typer struct {
	classes []*class
	named   map[any]string    // a declared type already written -> its class
	byName  map[string]*class // the classes by name: a function is written as a global and as a method
	// wordClasses are the classes a Returns word names ("expectation").
	wordClasses map[string]string
}

func newTyper() *typer { return &typer{named: map[any]string{}, byName: map[string]*class{}} }

// declare adds c unless a class of its name exists; false when it did.
func (ty *typer) declare(c *class) bool {
	if ty.byName[c.name] != nil {
		return false
	}
	ty.byName[c.name] = c
	ty.classes = append(ty.classes, c)
	return true
}

// argType is the LuaLS type of values t reads.
func (ty *typer) argType(t luaapi.Type, path string) string {
	switch t := t.(type) {
	case *luaapi.StrType:
		if e := t.Enum(); len(e) > 0 {
			lits := make([]string, len(e))
			for i, v := range e {
				lits[i] = strconv.Quote(v)
			}
			return strings.Join(lits, "|")
		}
		return "string"
	case *luaapi.IntType:
		// Script arguments arrive as strings: a string of digits is read too.
		return "integer|string"
	case luaapi.NumType:
		return "number"
	case luaapi.BoolType:
		return "boolean"
	case luaapi.ConfigValueType:
		return "string|number|boolean|string[]"
	case luaapi.FuncType:
		return "function"
	case luaapi.AnyType:
		return "any"
	case *luaapi.ListType:
		elem := ty.argType(t.Elem(), path)
		if t.Single() {
			return union(elem, arrayOf(elem))
		}
		return arrayOf(elem)
	case *luaapi.MapType:
		return fmt.Sprintf("table<%s, %s>", ty.argType(t.KeyType(), path+".key"), ty.argType(t.ValueType(), path))
	case *luaapi.AltType:
		var parts []string
		for _, a := range t.Alts() {
			parts = append(parts, ty.argType(a, path))
		}
		return union(parts...)
	case *luaapi.RecordType:
		return ty.recordClass(t, path, t.Doc())
	case *luaapi.CustomType:
		if like := t.LikeType(); like != nil {
			return ty.argType(like, path)
		}
		return kindsType(t.Kinds())
	}
	return "any"
}

// recordClass declares the record's class (once per declared record) and
// returns its name.
func (ty *typer) recordClass(t *luaapi.RecordType, path, doc string) string {
	if name, ok := ty.named[t]; ok {
		return name
	}
	c := &class{name: path, doc: doc}
	ty.named[t] = path
	if !ty.declare(c) {
		return path
	}
	for _, f := range t.Fields {
		c.fields = append(c.fields, classField{name: f.Name, typ: ty.argType(f.Type, path+"."+f.Name),
			optional: !f.Required, doc: fieldDoc(f.Doc, f.Type.Doc())})
	}
	return path
}

// optionsClass declares f's options table as a class.
func (ty *typer) optionsClass(f *luaapi.Func, path string) string {
	doc := "Options of " + f.Name + "."
	if f.TableCall && len(f.Params) == 0 {
		doc = "The arguments of " + f.Name + ", named."
	}
	c := &class{name: path, doc: doc}
	if !ty.declare(c) {
		return path
	}
	for _, o := range f.AllOptions() {
		c.fields = append(c.fields, classField{name: o.Name, typ: ty.argType(o.Type, path+"."+o.Name),
			optional: !o.Required, doc: fieldDoc(o.Doc, o.Type.Doc())})
	}
	return path
}

// resultType is the LuaLS type of a declared result shape.
func (ty *typer) resultType(s *luaapi.Shape, path string) string {
	if s == nil {
		return "any"
	}
	switch s.Kind {
	case luaapi.KindString:
		return "string"
	case luaapi.KindInt, luaapi.KindTime:
		return "integer"
	case luaapi.KindNumber:
		return "number"
	case luaapi.KindBool:
		return "boolean"
	case luaapi.KindError:
		return errorClass
	case luaapi.KindList:
		return arrayOf(ty.resultType(s.Elem(), path))
	case luaapi.KindMap:
		return fmt.Sprintf("table<string, %s>", ty.resultType(s.Elem(), path))
	case luaapi.KindRecord:
		c := &class{name: path}
		if !ty.declare(c) {
			return path
		}
		for _, k := range s.Keys() {
			fs := s.Field(k)
			c.fields = append(c.fields, classField{name: k, typ: ty.resultType(fs, path+"."+k), optional: fs.Optional})
		}
		return path
	}
	return "any" // json, any
}

// kindsType is the type of the Lua kinds a custom type reads.
func kindsType(kinds []lua.LValueType) string {
	if len(kinds) == 0 {
		return "any"
	}
	var parts []string
	for _, k := range kinds {
		switch k {
		case lua.LTString:
			parts = append(parts, "string")
		case lua.LTNumber:
			parts = append(parts, "number")
		case lua.LTBool:
			parts = append(parts, "boolean")
		case lua.LTTable:
			parts = append(parts, "table")
		case lua.LTFunction:
			parts = append(parts, "function")
		default:
			parts = append(parts, "any")
		}
	}
	return union(parts...)
}

// union joins type expressions with |, each once, in order.
func union(parts ...string) string {
	var out []string
	for _, p := range parts {
		for _, q := range splitUnion(p) {
			if !slices.Contains(out, q) {
				out = append(out, q)
			}
		}
	}
	if slices.Contains(out, "any") {
		return "any"
	}
	return strings.Join(out, "|")
}

// splitUnion splits a|b at the top level (not inside table<...> or (...)).
func splitUnion(t string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range t {
		switch r {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, t[start:i])
				start = i + 1
			}
		}
	}
	return append(out, t[start:])
}

// arrayOf is an array of t: t[] or (a|b)[].
func arrayOf(t string) string {
	if len(splitUnion(t)) > 1 {
		return "(" + t + ")[]"
	}
	return t + "[]"
}

// fieldDoc is a field's description: its doc, then the accepted values
// where they say more than the type (ranges, widths).
func fieldDoc(doc, typeDoc string) string {
	doc = oneLine(doc)
	switch {
	case doc == "":
		return typeDoc
	case typeDoc == "" || strings.Contains(doc, typeDoc):
		return doc
	}
	return doc + " (" + typeDoc + ")"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
