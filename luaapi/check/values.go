package check

import (
	"math"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// kindUnknown: nothing is known of a value's Lua type.
const kindUnknown lua.LValueType = -1

// value is what check knows of an expression's value without running it:
// the value itself when it is written literally (known), else its Lua
// type when the expression says it (a concatenation is a string), and for
// a table constructor its entries, each known or not.
type value struct {
	known lua.LValue     // the whole value; nil when any part is unknown
	kind  lua.LValueType // its Lua type, or kindUnknown
	tbl   *tableValue    // a table constructor's entries
	multi bool           // a call or ... last in a list: any number of values
	line  int
}

// tableValue is a table constructor's entries.
type tableValue struct {
	items []*value          // positional entries, in order
	keys  []string          // string keys, in order
	vals  map[string]*value // their values
	nums  map[float64]*value
	open  bool // entries check cannot see: [expr] = keys, a trailing call or ...
}

func unknown(line int) *value { return &value{kind: kindUnknown, line: line} }

// eval reads what an expression's value is, as far as the source says.
func (w *walker) eval(e ast.Expr) *value {
	line := lineOf(e, w.line)
	switch e := e.(type) {
	case *ast.NilExpr:
		return &value{known: lua.LNil, kind: lua.LTNil, line: line}
	case *ast.TrueExpr:
		return &value{known: lua.LTrue, kind: lua.LTBool, line: line}
	case *ast.FalseExpr:
		return &value{known: lua.LFalse, kind: lua.LTBool, line: line}
	case *ast.NumberExpr:
		n := lua.LVAsNumber(lua.LString(e.Value))
		return &value{known: n, kind: lua.LTNumber, line: line}
	case *ast.StringExpr:
		return &value{known: lua.LString(e.Value), kind: lua.LTString, line: line}
	case *ast.UnaryMinusOpExpr:
		v := w.eval(e.Expr)
		if n, ok := v.known.(lua.LNumber); ok {
			return &value{known: -n, kind: lua.LTNumber, line: line}
		}
		return &value{kind: lua.LTNumber, line: line}
	case *ast.ArithmeticOpExpr:
		return arith(e.Operator, w.eval(e.Lhs), w.eval(e.Rhs), line)
	case *ast.StringConcatOpExpr:
		l, r := w.eval(e.Lhs), w.eval(e.Rhs)
		if ls, ok := concatable(l.known); ok {
			if rs, ok := concatable(r.known); ok {
				return &value{known: lua.LString(ls + rs), kind: lua.LTString, line: line}
			}
		}
		return &value{kind: lua.LTString, line: line}
	case *ast.RelationalOpExpr, *ast.UnaryNotOpExpr:
		w.expr(e)
		return &value{kind: lua.LTBool, line: line}
	case *ast.UnaryLenOpExpr:
		w.expr(e)
		return &value{kind: lua.LTNumber, line: line}
	case *ast.FunctionExpr:
		w.function(e.ParList, e.Stmts, nil)
		return &value{kind: lua.LTFunction, line: line}
	case *ast.TableExpr:
		return w.table(e, line)
	case *ast.FuncCallExpr:
		w.expr(e)
		return &value{kind: kindUnknown, multi: true, line: line}
	case *ast.Comma3Expr:
		return &value{kind: kindUnknown, multi: true, line: line}
	case *ast.IdentExpr:
		w.expr(e)
		if l := w.lookup(e.Value); l != nil && l.kind != kindUnknown {
			return &value{kind: l.kind, line: line}
		}
	default:
		w.expr(e)
	}
	return unknown(line)
}

// table reads a table constructor; its value is known when every entry is.
func (w *walker) table(e *ast.TableExpr, line int) *value {
	t := &tableValue{vals: map[string]*value{}, nums: map[float64]*value{}}
	for i, f := range e.Fields {
		v := w.eval(f.Value)
		switch k := f.Key.(type) {
		case nil:
			if v.multi && i == len(e.Fields)-1 {
				t.open = true
				continue
			}
			t.items = append(t.items, v)
		case *ast.StringExpr:
			if _, dup := t.vals[k.Value]; !dup {
				t.keys = append(t.keys, k.Value)
			}
			t.vals[k.Value] = v
		case *ast.NumberExpr:
			t.nums[float64(lua.LVAsNumber(lua.LString(k.Value)))] = v
		default:
			w.expr(f.Key)
			t.open = true
		}
	}
	v := &value{kind: lua.LTTable, tbl: t, line: line}
	v.known = w.literalTable(t)
	return v
}

// literalTable builds the Lua table of a constructor whose every entry is
// known, nil otherwise.
func (w *walker) literalTable(t *tableValue) lua.LValue {
	if t.open {
		return nil
	}
	tbl := w.c.L.NewTable()
	for i, it := range t.items {
		if it.known == nil {
			return nil
		}
		tbl.RawSetInt(i+1, it.known)
	}
	for _, k := range t.keys {
		v := t.vals[k]
		if v.known == nil {
			return nil
		}
		tbl.RawSetString(k, v.known)
	}
	for k, v := range t.nums {
		if v.known == nil {
			return nil
		}
		tbl.RawSet(lua.LNumber(k), v.known)
	}
	return tbl
}

// allKnown reports whether every value is known and none stands for many.
func allKnown(vs []*value) bool {
	for _, v := range vs {
		if v.known == nil || v.multi {
			return false
		}
	}
	return true
}

func arith(op string, l, r *value, line int) *value {
	a, aok := l.known.(lua.LNumber)
	b, bok := r.known.(lua.LNumber)
	if !aok || !bok {
		return &value{kind: lua.LTNumber, line: line}
	}
	x, y := float64(a), float64(b)
	var n float64
	switch op {
	case "+":
		n = x + y
	case "-":
		n = x - y
	case "*":
		n = x * y
	case "/":
		n = x / y
	case "%":
		n = x - math.Floor(x/y)*y
	case "^":
		n = math.Pow(x, y)
	default:
		return &value{kind: lua.LTNumber, line: line}
	}
	return &value{known: lua.LNumber(n), kind: lua.LTNumber, line: line}
}

// concatable is v as .. joins it: strings and numbers.
func concatable(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return v.String(), true
	}
	return "", false
}

// placeholder is a value of Lua type k, for asking a Type whether it
// reads that type at all.
func (w *walker) placeholder(k lua.LValueType) lua.LValue {
	switch k {
	case lua.LTString:
		return lua.LString("")
	case lua.LTNumber:
		return lua.LNumber(0)
	case lua.LTBool:
		return lua.LFalse
	case lua.LTTable:
		return w.c.L.NewTable()
	case lua.LTFunction:
		return w.c.L.NewFunction(func(*lua.LState) int { return 0 })
	}
	return nil
}
