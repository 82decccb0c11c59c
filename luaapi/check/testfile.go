package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/yuin/gopher-lua/ast"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// A test file (*_test.lua, what `kadmin-lua test` runs) has the test
// functions beside the built-ins: test, fixture, run, expect, assert's
// checks, an expectation's methods. check knows them from luatest.Globals,
// the list the test runner installs them from, and holds the calls of the
// declared ones to their declarations, as the runner reads them.

// IsTestFile reports whether a file is a test file, by its name as
// `kadmin-lua test` finds them.
func IsTestFile(name string) bool { return strings.HasSuffix(name, "_test.lua") }

// testNames are the test functions by owner ("" for a global, "assert",
// "expectation") and name there.
type testNames map[string]map[string]*luatest.Global

var testSurface = sync.OnceValue(func() testNames {
	names := testNames{}
	for i := range luatest.Globals {
		g := &luatest.Globals[i]
		owner, key, _ := g.Owner()
		if names[owner] == nil {
			names[owner] = map[string]*luatest.Global{}
		}
		names[owner][key] = g
	}
	return names
})

// global reports whether name is a test function or table.
func (n testNames) global(name string) bool { return n != nil && n[""][name] != nil }

// owner is the table a path names (assert, assert.are: "assert"), or "".
func (n testNames) owner(path []string) string {
	if n == nil || len(path) == 0 || n[""][path[0]] == nil || n[path[0]] == nil {
		return ""
	}
	owner := path[0]
	for _, p := range path[1:] {
		g := n[owner][p]
		if g == nil || g.Is == "" {
			return ""
		}
		owner = g.Is
	}
	return owner
}

// keys are the names a test table holds, sorted.
func (n testNames) keys(owner string) []string { return slices.Sorted(maps.Keys(n[owner])) }

// at is the test function a path names (test, assert.same,
// assert.are.same), or nil.
func (n testNames) at(path []string) *luatest.Global {
	if n == nil || len(path) == 0 {
		return nil
	}
	if len(path) == 1 {
		return n[""][path[0]]
	}
	owner := n.owner(path[:len(path)-1])
	if owner == "" {
		return nil
	}
	return n[owner][path[len(path)-1]]
}

// testCallee is the declared test function a call reaches.
func testCallee(g *luatest.Global, anchor string, method bool) *callee {
	if g == nil || g.Is != "" {
		return nil
	}
	return &callee{fn: g.Func, name: g.Name, anchor: anchor, method: method, sure: true}
}

// expectation checks e:name() on what expect returns.
func (w *walker) expectation(e *ast.FuncCallExpr) {
	if w.test["expectation"][e.Method] != nil {
		return
	}
	methods := w.test.keys("expectation")
	msg := fmt.Sprintf("unknown method '%s' of an expectation", e.Method)
	if near := luaapi.Suggest(e.Method, methods); near != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", near)
	}
	w.find(lineOf(e, w.line), e.Method, "field", "%s", msg)
}

// isExpectation: e is what expect returns (expect(x), expect(x).never, a
// local holding one).
func (w *walker) isExpectation(e ast.Expr) bool {
	if w.test == nil {
		return false
	}
	if a, ok := e.(*ast.AttrGetExpr); ok {
		k, isStr := a.Key.(*ast.StringExpr)
		return isStr && w.test["expectation"][k.Value] != nil && w.test["expectation"][k.Value].Is == "expectation" && w.isExpectation(a.Object)
	}
	l := w.receiverLocal(e)
	return l != nil && l.expectation
}
