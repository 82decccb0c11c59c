package check

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// callee is the declared function a call reaches, and how it was named.
type callee struct {
	fn     *luaapi.Func
	name   string // as written: "create_topics", "c:create_topics", "kafka.json.encode"
	anchor string // the token to point at
	method bool   // called on a client (the client is not an argument)
	sure   bool   // the receiver is evidently a client (or no receiver): arguments are checked
}

// call checks a call: what it calls, its arguments against the
// declaration, and whether it changes the cluster.
func (w *walker) call(e *ast.FuncCallExpr) {
	line := lineOf(e, w.line)
	var args []*value
	cl := w.callee(e)
	if e.Func != nil {
		w.expr(e.Func)
	} else {
		w.expr(e.Receiver)
		if l := w.receiverLocal(e.Receiver); l != nil && l.client {
			w.clientMethod(e)
		} else if w.isExpectation(e.Receiver) {
			w.expectation(e)
		}
	}
	for i, a := range e.Args {
		v := w.eval(a)
		if i < len(e.Args)-1 {
			v.multi = false
		}
		args = append(args, v)
	}
	// pcall(f, ...) and xpcall-free wrappers call f with the rest.
	if cl == nil && e.Func != nil && len(e.Args) > 0 {
		if id, ok := e.Func.(*ast.IdentExpr); ok && id.Value == "pcall" && w.lookup("pcall") == nil {
			if inner := w.calleeOf(e.Args[0]); inner != nil {
				cl, args = inner, args[1:]
			}
		}
	}
	if cl == nil {
		return
	}
	if cl.fn.Mutating {
		w.r.Changes = append(w.r.Changes, Change{Line: line, Col: w.pos.col(line, cl.anchor, false),
			Function: cl.fn.Name, Destructive: cl.fn.Destructive})
	}
	if cl.sure && cl.fn.Declared() {
		w.checkArgs(cl, args, line)
	}
}

// callee is the declared function e calls, or nil.
func (w *walker) callee(e *ast.FuncCallExpr) *callee {
	if e.Func != nil {
		return w.calleeOf(e.Func)
	}
	if w.isExpectation(e.Receiver) {
		return testCallee(w.test["expectation"][e.Method], e.Method, true)
	}
	f := luaapi.Lookup(e.Method)
	if f == nil || !f.IsAdmin() {
		return nil
	}
	l := w.receiverLocal(e.Receiver)
	sure := l != nil && l.client
	if p := w.builtinPath(e.Receiver); strings.Join(p, ".") == "kafka.default" {
		sure = true
	}
	return &callee{fn: f, name: e.Method, anchor: e.Method, method: true, sure: sure}
}

// calleeOf is the declared function an expression names: a global admin
// function, a library function (kafka.json.encode), or a local naming one.
func (w *walker) calleeOf(e ast.Expr) *callee {
	path := w.builtinPath(e)
	if path == nil {
		return nil
	}
	name := strings.Join(path, ".")
	f := luaapi.Lookup(name)
	if f == nil {
		return testCallee(w.test.at(path), path[len(path)-1], false)
	}
	return &callee{fn: f, name: name, anchor: path[len(path)-1], sure: true}
}

// receiverLocal is what a method call's receiver is, when check knows.
func (w *walker) receiverLocal(e ast.Expr) *local {
	switch r := e.(type) {
	case *ast.IdentExpr:
		return w.lookup(r.Value)
	case *ast.FuncCallExpr:
		return w.resultOf(r)
	}
	if strings.Join(w.builtinPath(e), ".") == "kafka.default" {
		return &local{kind: lua.LTTable, client: true}
	}
	if w.isExpectation(e) { // expect(x).never
		return &local{kind: lua.LTTable, expectation: true}
	}
	return nil
}

// callResult checks a call assigned to a variable and says what the
// variable then holds: a client, the args library, parsed arguments.
func (w *walker) callResult(e *ast.FuncCallExpr) *local {
	l := w.resultOf(e)
	if l == nil {
		return nil
	}
	if l.parsed == nil {
		w.call(e)
	}
	return l
}

// resultOf is what a call returns, when check follows it.
func (w *walker) resultOf(e *ast.FuncCallExpr) *local {
	if e.Func != nil {
		switch path := strings.Join(w.builtinPath(e.Func), "."); path {
		case "kafka.connect":
			return &local{kind: lua.LTTable, client: true}
		case "expect":
			if w.test.global(path) {
				return &local{kind: lua.LTTable, expectation: true}
			}
		case "require":
			if len(e.Args) == 1 {
				if s, ok := e.Args[0].(*ast.StringExpr); ok {
					switch s.Value {
					case "kafka":
						return &local{kind: lua.LTTable, path: []string{"kafka"}}
					case "lib.args":
						return &local{kind: lua.LTTable, args: &argsModule{}}
					}
				}
			}
		}
		if a, ok := e.Func.(*ast.AttrGetExpr); ok {
			if k, ok := a.Key.(*ast.StringExpr); ok && k.Value == "parse" {
				if l := w.receiverLocal(a.Object); l != nil && l.args != nil {
					return w.argsParse(e)
				}
			}
		}
	}
	return nil
}

// checkArgs holds a call's arguments to its declaration: the whole call
// through the dispatcher's own reading when every argument is written
// literally, else each argument check can see.
func (w *walker) checkArgs(cl *callee, args []*value, line int) {
	f := cl.fn
	report := func(err error) {
		w.find(line, cl.anchor, "call", "%s", argMessage(cl.name, err))
	}
	if allKnown(args) {
		vals := make([]lua.LValue, len(args))
		for i, a := range args {
			vals[i] = a.known
		}
		if err := luaapi.CheckCall(f, vals); err != nil {
			report(err)
		}
		return
	}
	if f.Variadic {
		return
	}
	n := len(args)
	for n > 0 && args[n-1].known == lua.LNil {
		n--
	}
	args = args[:n]
	multi := n > 0 && args[n-1].multi
	opts := f.OptionsRecord()
	optsAt := len(f.Params)
	if n > 0 && n <= len(f.Params) && f.Params[n-1].Optional && !isAny(f.Params[n-1].Type) && opts != nil && isOptionsTable(opts, args[n-1]) {
		optsAt = n - 1
	}
	limit := len(f.Params)
	if opts != nil {
		limit++
	}
	if n > limit && optsAt == len(f.Params) && !multi {
		if limit == 0 {
			w.find(line, cl.anchor, "call", "%s: takes no arguments, got %d", cl.name, n)
		} else {
			w.find(line, cl.anchor, "call", "%s: takes at most %d argument%s, %s%s, got %d", cl.name, limit, plural(limit), f.Name, f.Signature(), n)
		}
		return
	}
	for i, p := range f.Params {
		unseen := multi && i >= n-1
		if i >= optsAt || i >= n || args[i].known == lua.LNil {
			if !p.Optional && !unseen {
				w.find(line, cl.anchor, "call", "%s: %s: is required", cl.name, p.Name)
				return
			}
			continue
		}
		if unseen {
			continue
		}
		errs := w.value(p.Type, args[i], p.Name)
		if len(errs) > 0 && p.Optional && i == n-1 && args[i].tbl != nil && len(args[i].tbl.items) == 0 {
			if err := luaapi.MisspeltOptions(f, args[i].tbl.keys); err != nil {
				errs = []error{err}
			}
		}
		for _, err := range errs {
			report(err)
		}
	}
	if opts != nil && optsAt < n && !(multi && optsAt == n-1) {
		v := args[optsAt]
		switch {
		case v.tbl != nil:
			for _, err := range w.record(opts, v, f.OptionsPath()) {
				report(err)
			}
		case v.kind != kindUnknown && v.kind != lua.LTNil && v.kind != lua.LTTable:
			if f.TableCall && len(f.Params) == 0 {
				w.find(line, cl.anchor, "call", "%s: takes one table %s, got a %s", cl.name, opts.Doc(), v.kind)
			} else {
				w.find(line, cl.anchor, "call", "%s: argument #%d (options): must be a table, got a %s", cl.name, optsAt+1, v.kind)
			}
		}
	}
}

// isOptionsTable: v is a table constructor whose keys are all option names.
func isOptionsTable(opts *luaapi.RecordType, v *value) bool {
	if v.tbl == nil || v.tbl.open || len(v.tbl.items) > 0 || len(v.tbl.nums) > 0 || len(v.tbl.keys) == 0 {
		return false
	}
	for _, k := range v.tbl.keys {
		if opts.Field(k) == nil {
			return false
		}
	}
	return true
}

func isAny(t luaapi.Type) bool { _, ok := t.(luaapi.AnyType); return ok }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// value holds a value to a Type: a known value is read by the Type itself;
// a table constructor with unknown entries is walked along the Type's
// parts; of any other value only its Lua type is held to what the Type reads.
func (w *walker) value(t luaapi.Type, v *value, at string) []error {
	if v.known != nil {
		if err := luaapi.ReadValue(t, v.known, at); err != nil {
			return []error{err}
		}
		return nil
	}
	if v.tbl == nil {
		if ph := w.placeholder(v.kind); ph != nil && !luaapi.Accepts(t, ph) {
			return []error{fmt.Errorf("%s: must be %s, got a %s", at, t.Doc(), v.kind)}
		}
		return nil
	}
	switch t := t.(type) {
	case *luaapi.RecordType:
		return w.record(t, v, at)
	case *luaapi.ListType:
		if len(v.tbl.keys) > 0 {
			if t.Single() && luaapi.Accepts(t.Elem(), w.placeholder(lua.LTTable)) {
				return w.value(t.Elem(), v, at) // a lone record
			}
			return nil
		}
		var errs []error
		for i, it := range v.tbl.items {
			errs = append(errs, w.value(t.Elem(), it, t.ItemPath(at, i+1))...)
		}
		return errs
	case *luaapi.MapType:
		var errs []error
		for _, k := range v.tbl.keys {
			if err := luaapi.ReadValue(t.KeyType(), lua.LString(k), luaapi.SubPath(at, "key "+k)); err != nil {
				errs = append(errs, err)
				continue
			}
			errs = append(errs, w.value(t.ValueType(), v.tbl.vals[k], luaapi.SubPath(at, k))...)
		}
		return errs
	case *luaapi.AltType:
		for _, a := range t.Alts() {
			if luaapi.Accepts(a, w.placeholder(lua.LTTable)) {
				return w.value(a, v, at)
			}
		}
		return []error{fmt.Errorf("%s: must be %s, got a table", at, t.Doc())}
	case *luaapi.CustomType:
		return nil // its own reader's rules: only a whole value is held to them
	}
	if !luaapi.Accepts(t, w.placeholder(lua.LTTable)) {
		return []error{fmt.Errorf("%s: must be %s, got a table", at, t.Doc())}
	}
	return nil
}

// record holds a table constructor with unknown entries to a record: its
// keys, its required fields (when nothing unseen could give them), each
// field's value.
func (w *walker) record(t *luaapi.RecordType, v *value, at string) []error {
	if v.known != nil {
		return w.value(t, v, at)
	}
	if err := t.UnknownKeys(v.tbl.keys, at); err != nil {
		return []error{err}
	}
	var errs []error
	for _, f := range t.Fields {
		fv, ok := v.tbl.vals[f.Name]
		if !ok || fv.known == lua.LNil {
			if f.Required && !v.tbl.open && len(v.tbl.items) == 0 {
				errs = append(errs, fmt.Errorf("%s: is required", luaapi.SubPath(at, f.Name)))
			}
			continue
		}
		errs = append(errs, w.value(f.Type, fv, luaapi.SubPath(at, f.Name))...)
	}
	return errs
}
