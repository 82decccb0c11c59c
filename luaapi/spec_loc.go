package luaapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
)

// loc is where a value of a spec sits in its file: its line and its
// children's, keyed by field name or "#N" for the Nth array item.
type loc struct {
	line  int
	kids  map[string]*loc // by field name
	items []*loc          // the array items, "#1" first
}

func (l *loc) kid(k string) *loc {
	if l == nil {
		return nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(k, "#")); err == nil && strings.HasPrefix(k, "#") {
		return l.item(n)
	}
	return l.kids[k]
}

// lineOr is l's line, else (l unknown) outer's.
func (l *loc) lineOr(outer *loc) int {
	switch {
	case l != nil && l.line > 0:
		return l.line
	case outer != nil:
		return outer.line
	}
	return 0
}

// item is the nth array item's location (1-based), nil when unknown.
func (l *loc) item(n int) *loc {
	if l == nil || n < 1 || n > len(l.items) {
		return nil
	}
	return l.items[n-1]
}

// duplicateKey is a key given twice in one table of a spec: Lua, YAML and
// JSON would all keep the last value silently, so that a merge conflict
// resolved by concatenation (two `topics` lists) keeps one list and
// --prune deletes the other's topics. A spec refuses it, naming both.
type duplicateKey struct {
	at          string // the table's path in the document
	key         string
	line, first int
}

func (d *duplicateKey) err(file string) error {
	return specErr(file, d.line, d.at, "%q is given twice (first at %s:%d): a table's keys must be distinct", d.key, file, d.first)
}

// returnedTable is the location tree of the table constructor a chunk
// returns last, when it returns one literally, and its first key given
// twice (nil when none is).
func returnedTable(chunk []ast.Stmt) (*loc, *duplicateKey) {
	for i := len(chunk) - 1; i >= 0; i-- {
		if ret, ok := chunk[i].(*ast.ReturnStmt); ok && len(ret.Exprs) > 0 {
			var dup *duplicateKey
			l := exprLoc(ret.Exprs[0], "", &dup)
			return l, dup
		}
	}
	return nil, nil
}

// exprLoc is e's location tree; the first key given twice in a table
// constructor under e is put in *dup.
func exprLoc(e ast.Expr, at string, dup **duplicateKey) *loc {
	l := &loc{line: e.Line()}
	t, ok := e.(*ast.TableExpr)
	if !ok {
		return l
	}
	l.kids = map[string]*loc{}
	keyLine := map[string]int{}
	n := 0
	for _, f := range t.Fields {
		switch k := f.Key.(type) {
		case nil:
			n++
			l.items = append(l.items, exprLoc(f.Value, itemPath(at, n), dup))
		case *ast.StringExpr:
			if first, seen := keyLine[k.Value]; seen && *dup == nil {
				*dup = &duplicateKey{at: at, key: k.Value, line: k.Line(), first: first}
			}
			keyLine[k.Value] = k.Line()
			l.kids[k.Value] = exprLoc(f.Value, subPath(at, k.Value), dup)
		}
	}
	return l
}

// itemPath is the path of the nth item of the array at at: "topics #2".
func itemPath(at string, n int) string {
	return strings.TrimPrefix(fmt.Sprintf("%s #%d", at, n), " ")
}
