package luaapi

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// The declared shape of a result is an output.Shape: the printers walk it.
// These aliases keep luaapi's names for it.
type (
	Shape     = output.Shape
	ShapeKind = output.ShapeKind
	ShapeDoc  = output.ShapeDoc
	FieldDoc  = output.FieldDoc
)

// The kinds of values a result holds (output.ShapeKind).
const (
	KindAny    = output.KindAny
	KindString = output.KindString
	KindInt    = output.KindInt
	KindNumber = output.KindNumber
	KindBool   = output.KindBool
	KindTime   = output.KindTime
	// KindDuration and KindRate: milliseconds and per-second numbers.
	KindDuration = output.KindDuration
	KindRate     = output.KindRate
	KindError    = output.KindError
	KindJSON     = output.KindJSON
	KindList     = output.KindList
	KindMap      = output.KindMap
	KindRecord   = output.KindRecord
)

// ResultShape is the shape of what the function named name returns (a
// method name or dotted library name, as ArgKeys takes), or nil when its
// declaration says no structure ("string", "value") or name is unknown.
func ResultShape(name string) *Shape {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && Lookup(name) == nil {
		name = name[i+1:]
	}
	f := Lookup(name)
	if f == nil {
		return nil
	}
	return f.resultShape()
}

// resultShape is f's declared result, parsed once; nil when Returns says
// no structure. An admin function may return a scalar (register_schema's
// id: "int"), a shape of its own too. A mutating function's rows also say
// dry_run=true under a dry run (the dispatcher marks them), so its shape
// declares dry_run=bool?.
func (f *Func) resultShape() *Shape {
	f.shapeOnce.Do(func() {
		if !strings.HasPrefix(f.Returns, "{") && !(f.IsAdmin() && f.Returns == string(KindInt)) {
			return
		}
		s, err := output.ParseShape(f.Returns)
		if err != nil {
			return
		}
		if f.Mutating {
			row := s
			if s.Kind == KindList {
				row = s.Elem()
			}
			if row != nil && row.Kind == KindRecord && row.Field("dry_run") == nil {
				row.AddField("dry_run", &Shape{Kind: KindBool, Optional: true})
			}
		}
		f.shape = s
	})
	return f.shape
}

// A function's result carries its name in its metatable (__result), so
// that printing it later (`return lag()`, `t = lag()` then `t` in the REPL,
// kafka.pp(t)) finds its declared shape. Only the result itself is marked:
// a part of it (`lag()[1].partitions`) or a table built from it prints
// without a shape, as any table does (times as numbers, no nulls).
type resultMetaKey struct {
	f    *Func
	orig lua.LValue
}

// tagResult marks lv, f's converted result, with f's name. A record keeps
// what its own metatable says (columns, object): the mark goes on a copy,
// one per function and record type.
func (r *Runtime) tagResult(f *Func, lv lua.LValue) {
	t, ok := lv.(*lua.LTable)
	if !ok || f.resultShape() == nil {
		return
	}
	key := resultMetaKey{f, t.Metatable}
	mt := r.resultMetas[key]
	if mt == nil {
		mt = r.L.NewTable()
		if orig, ok := t.Metatable.(*lua.LTable); ok {
			orig.ForEach(func(k, v lua.LValue) { mt.RawSet(k, v) })
		}
		mt.RawSetString("__result", lua.LString(f.Name))
		if r.resultMetas == nil {
			r.resultMetas = map[resultMetaKey]*lua.LTable{}
		}
		r.resultMetas[key] = mt
	}
	t.Metatable = mt
}

// shapeOf is the declared shape of a value a function returned, or nil.
func shapeOf(v lua.LValue) *Shape {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil
	}
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok {
		return nil
	}
	name, ok := mt.RawGetString("__result").(lua.LString)
	if !ok {
		return nil
	}
	if f := Lookup(string(name)); f != nil {
		return f.resultShape()
	}
	return nil
}
