package check

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// local is what check knows of a local variable.
type local struct {
	kind   lua.LValueType // its Lua type when every assignment says the same
	client bool           // a client object: kafka.connect{...}, kafka.default
	// expectation: what expect(got) returns, in a test file
	expectation bool
	path        []string    // it names a built-in (local k = require("kafka"): kafka)
	args        *argsModule // require("lib.args")
	parsed      *parsedArgs // lib.args' parse{...} result
}

// walker checks one file: the scopes of its locals, its statements and
// expressions, in order.
type walker struct {
	c      *Checker
	r      *Report
	pos    *positions
	scopes []map[string]*local
	line   int             // the statement being read
	setG   map[string]bool // globals the file assigns anywhere
	setF   map[string]bool // fields of built-in tables it assigns ("string.trim")
	src    []byte
	chunk  []ast.Stmt
	// parsed is the runbook's args.parse spec (runbook.go); returned the
	// table the chunk returns when it is a plugin's (plugin.go).
	parsed   *parsedArgs
	returned *value
	// test is the test functions, in a test file (testfile.go); nil elsewhere.
	test testNames
}

func newWalker(c *Checker, r *Report, src []byte) *walker {
	return &walker{c: c, r: r, pos: newPositions(src), setG: map[string]bool{}, setF: map[string]bool{}, src: src}
}

// file checks a whole chunk: the globals it defines are known first, so a
// function may call one defined further down.
func (w *walker) file(chunk []ast.Stmt) {
	collectAssigned(chunk, w.setG, w.setF)
	w.chunk = chunk
	w.push()
	w.block(chunk)
	w.pop()
	w.runbookHeader()
	w.pluginTable()
}

func (w *walker) push() { w.scopes = append(w.scopes, map[string]*local{}) }
func (w *walker) pop()  { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *walker) declare(name string, l *local) {
	if l == nil {
		l = &local{kind: kindUnknown}
	}
	w.scopes[len(w.scopes)-1][name] = l
}

// lookup finds a local or upvalue; nil for a global.
func (w *walker) lookup(name string) *local {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if l, ok := w.scopes[i][name]; ok {
			return l
		}
	}
	return nil
}

func (w *walker) find(line int, anchor, kind, format string, args ...any) {
	w.r.Findings = append(w.r.Findings, Finding{Line: line, Col: w.pos.col(line, anchor, true), Kind: kind,
		Message: fmt.Sprintf(format, args...)})
}

func (w *walker) block(stmts []ast.Stmt) {
	for _, s := range stmts {
		w.stmt(s)
	}
}

func (w *walker) stmt(s ast.Stmt) {
	w.line = lineOf(s, w.line)
	switch s := s.(type) {
	case *ast.LocalAssignStmt:
		// `local function f` and `local f = function` are one form in the
		// AST; gopher-lua's compiler declares f first for both.
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if fn, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				w.declare(s.Names[0], &local{kind: lua.LTFunction})
				w.function(fn.ParList, fn.Stmts, nil)
				return
			}
		}
		ls := make([]*local, len(s.Names))
		for i, e := range s.Exprs {
			l := w.localOf(e)
			if i < len(ls) {
				ls[i] = l
			}
		}
		for i, n := range s.Names {
			w.declare(n, ls[i])
		}
	case *ast.AssignStmt:
		for i, e := range s.Rhs {
			l := w.localOf(e)
			if i < len(s.Lhs) {
				w.assign(s.Lhs[i], l)
			}
		}
		for i := len(s.Rhs); i < len(s.Lhs); i++ {
			w.assign(s.Lhs[i], nil)
		}
	case *ast.FuncCallStmt:
		w.expr(s.Expr)
	case *ast.DoBlockStmt:
		w.scoped(s.Stmts)
	case *ast.WhileStmt:
		w.expr(s.Condition)
		w.scoped(s.Stmts)
	case *ast.RepeatStmt:
		// The condition sees the body's locals.
		w.push()
		w.block(s.Stmts)
		w.expr(s.Condition)
		w.pop()
	case *ast.IfStmt:
		w.expr(s.Condition)
		w.scoped(s.Then)
		w.scoped(s.Else)
	case *ast.NumberForStmt:
		w.expr(s.Init)
		w.expr(s.Limit)
		if s.Step != nil {
			w.expr(s.Step)
		}
		w.push()
		w.declare(s.Name, &local{kind: lua.LTNumber})
		w.block(s.Stmts)
		w.pop()
	case *ast.GenericForStmt:
		for _, e := range s.Exprs {
			w.expr(e)
		}
		w.push()
		for _, n := range s.Names {
			w.declare(n, nil)
		}
		w.block(s.Stmts)
		w.pop()
	case *ast.FuncDefStmt:
		w.funcDef(s)
	case *ast.ReturnStmt:
		if w.returnedTable(w.chunk, s) {
			return
		}
		for _, e := range s.Exprs {
			w.expr(e)
		}
	}
}

func (w *walker) scoped(stmts []ast.Stmt) {
	w.push()
	w.block(stmts)
	w.pop()
}

// function checks a function's body in a scope of its own.
func (w *walker) function(pars *ast.ParList, body []ast.Stmt, self *local) {
	line := w.line
	w.push()
	if self != nil {
		w.declare("self", self)
	}
	if pars != nil {
		for _, n := range pars.Names {
			w.declare(n, nil)
		}
	}
	w.block(body)
	w.pop()
	w.line = line
}

// funcDef is `function name() end`, `function t.f() end`, `function t:m() end`.
func (w *walker) funcDef(s *ast.FuncDefStmt) {
	fn := s.Name.Func
	if s.Name.Receiver != nil {
		fn = s.Name.Receiver
	}
	switch f := fn.(type) {
	case *ast.IdentExpr:
		if s.Name.Receiver == nil {
			w.assign(f, &local{kind: lua.LTFunction})
		} else {
			w.expr(f)
		}
	case *ast.AttrGetExpr:
		w.assign(f, nil)
	}
	w.function(s.Func.ParList, s.Func.Stmts, nil)
}

// assign checks an assignment's target: a built-in cannot be replaced.
func (w *walker) assign(target ast.Expr, l *local) {
	switch t := target.(type) {
	case *ast.IdentExpr:
		if loc := w.lookup(t.Value); loc != nil {
			if l == nil || l.kind != loc.kind {
				loc.kind = kindUnknown
			}
			if l == nil || !l.client {
				loc.client = false
			}
			if l == nil || !l.expectation {
				loc.expectation = false
			}
			return
		}
		if w.c.globals[t.Value] && !w.test.global(t.Value) { // a test function is set raw: it may be replaced
			w.find(lineOf(t, w.line), t.Value, "builtin", "cannot replace built-in %s (use a local of your own: local %s = ...)", t.Value, t.Value)
		}
	case *ast.AttrGetExpr:
		if k, ok := t.Key.(*ast.StringExpr); ok && w.sealed(w.builtinPath(t.Object), k.Value) {
			w.find(lineOf(t, w.line), k.Value, "builtin", "cannot replace built-in %s.%s", strings.Join(w.builtinPath(t.Object), "."), k.Value)
			return
		}
		w.expr(t.Object)
		if _, ok := t.Key.(*ast.StringExpr); !ok {
			w.expr(t.Key)
		}
	default:
		w.expr(target)
	}
}

// sealed reports whether assigning key in the built-in table at path
// raises: every key of kafka and its library tables, a method's name on a
// client (builtins.go).
func (w *walker) sealed(path []string, key string) bool {
	if len(path) == 0 || path[0] != "kafka" {
		return false
	}
	fields, known, _ := w.c.surface.Fields(path...)
	if strings.Join(path, ".") == "kafka.default" {
		return slices.Contains(fields, key)
	}
	return known
}

// localOf reads an expression assigned to a variable: what the variable
// then holds, as far as check follows it.
func (w *walker) localOf(e ast.Expr) *local {
	if call, ok := e.(*ast.FuncCallExpr); ok {
		if l := w.callResult(call); l != nil {
			return l
		}
	}
	if path := w.builtinPath(e); path != nil {
		w.expr(e)
		if strings.Join(path, ".") == "kafka.default" {
			return &local{kind: lua.LTTable, client: true}
		}
		return &local{kind: kindUnknown, path: path}
	}
	if id, ok := e.(*ast.IdentExpr); ok {
		if l := w.lookup(id.Value); l != nil {
			cp := *l
			return &cp
		}
	}
	v := w.eval(e)
	return &local{kind: v.kind}
}

// builtinPath is the built-in an expression names (kafka.json ->
// [kafka json]), through locals that name one; nil otherwise.
func (w *walker) builtinPath(e ast.Expr) []string {
	switch e := e.(type) {
	case *ast.IdentExpr:
		if l := w.lookup(e.Value); l != nil {
			return l.path
		}
		if w.c.globals[e.Value] || w.test.global(e.Value) { // built-ins cannot be replaced: assigning one raises
			return []string{e.Value}
		}
	case *ast.AttrGetExpr:
		k, ok := e.Key.(*ast.StringExpr)
		if !ok {
			return nil
		}
		if p := w.builtinPath(e.Object); p != nil {
			return append(append([]string{}, p...), k.Value)
		}
	}
	return nil
}

// expr checks an expression: the globals and fields it reads, the calls
// it makes.
func (w *walker) expr(e ast.Expr) {
	switch e := e.(type) {
	case *ast.IdentExpr:
		w.global(e)
	case *ast.AttrGetExpr:
		w.field(e)
	case *ast.FuncCallExpr:
		w.call(e)
	case *ast.TableExpr, *ast.FunctionExpr, *ast.StringConcatOpExpr, *ast.ArithmeticOpExpr, *ast.UnaryMinusOpExpr:
		w.eval(e)
	case *ast.LogicalOpExpr:
		w.expr(e.Lhs)
		w.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		w.expr(e.Lhs)
		w.expr(e.Rhs)
	case *ast.UnaryNotOpExpr:
		w.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		w.expr(e.Expr)
	}
}

// global checks a read of a name that is no local.
func (w *walker) global(e *ast.IdentExpr) {
	name := e.Value
	if w.lookup(name) != nil || w.c.globals[name] || w.c.plugins[name] || w.setG[name] || w.test.global(name) {
		return
	}
	msg := fmt.Sprintf("unknown global '%s'", name)
	if testSurface().global(name) {
		msg += " (a test function: kadmin-lua test gives it to *_test.lua files only)"
	} else if near := w.nearGlobal(name); near != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", near)
	} else {
		msg += " (it is nil: nothing sets it)"
	}
	w.find(lineOf(e, w.line), name, "global", "%s", msg)
}

// nearGlobal is the global function or table name most likely meant.
func (w *walker) nearGlobal(name string) string {
	var cands []string
	for g := range w.c.globals {
		cands = append(cands, g)
	}
	for g := range w.c.plugins {
		cands = append(cands, g)
	}
	for g := range w.setG {
		cands = append(cands, g)
	}
	if w.test != nil {
		cands = append(cands, w.test.keys("")...)
	}
	return luaapi.Suggest(name, cands)
}

// field checks t.k where t is a built-in table whose fields are known.
func (w *walker) field(e *ast.AttrGetExpr) {
	k, isStr := e.Key.(*ast.StringExpr)
	if !isStr {
		w.argsIndex(e)
		w.expr(e.Object)
		w.expr(e.Key)
		return
	}
	path := w.builtinPath(e.Object)
	w.expr(e.Object)
	if path == nil {
		w.argsField(e, k.Value)
		return
	}
	fields, known, ok := w.c.surface.Fields(path...)
	if owner := w.test.owner(path); owner != "" { // assert, in a test file
		fields, known, ok = w.test.keys(owner), true, true
	}
	joined := strings.Join(path, ".")
	if !ok || !known || w.setF[joined+"."+k.Value] || slices.Contains(fields, k.Value) {
		return
	}
	msg := fmt.Sprintf("unknown field '%s' of %s", k.Value, joined)
	if near := luaapi.Suggest(k.Value, fields); near != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", near)
	}
	w.find(lineOf(e, w.line), k.Value, "field", "%s", msg)
}

// clientMethod checks c:name() on a client object.
func (w *walker) clientMethod(e *ast.FuncCallExpr) {
	methods, _, _ := w.c.surface.Fields("kafka", "default")
	if len(methods) == 0 || slices.Contains(methods, e.Method) {
		return
	}
	msg := fmt.Sprintf("unknown method '%s' of a client", e.Method)
	if near := luaapi.Suggest(e.Method, methods); near != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", near)
	}
	w.find(lineOf(e, w.line), e.Method, "field", "%s", msg)
}
