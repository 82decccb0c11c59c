package check

import (
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/gopher-lua/ast"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// A plugin is a module that returns {functions=..., commands=...}
// (docs/plugins.md). check holds the table it returns to the declaration
// the loader reads it with (luaapi.PluginType), as far as it is written
// literally, and its function names to the built-ins they may not shadow.

// returnedTable notes the table a chunk's last statement returns, as it
// is evaluated with the rest of the chunk.
func (w *walker) returnedTable(chunk []ast.Stmt, s *ast.ReturnStmt) bool {
	if len(w.scopes) != 1 || len(chunk) == 0 || chunk[len(chunk)-1] != ast.Stmt(s) || len(s.Exprs) != 1 {
		return false
	}
	t, ok := s.Exprs[0].(*ast.TableExpr)
	if !ok || !isPluginTable(t) {
		return false
	}
	w.returned = w.eval(t)
	return true
}

// isPluginTable: a table constructor with a functions or commands key.
func isPluginTable(t *ast.TableExpr) bool {
	for _, f := range t.Fields {
		if k, ok := f.Key.(*ast.StringExpr); ok && (k.Value == "functions" || k.Value == "commands") {
			return true
		}
	}
	return false
}

var unknownKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unknown key "([^"]*)"`) })

// pluginTable checks the returned plugin table.
func (w *walker) pluginTable() {
	v := w.returned
	if v == nil {
		return
	}
	for _, err := range w.value(luaapi.PluginType(), v, "") {
		msg := luaapi.ArgMessage(err)
		line, anchor := w.pluginErrorAt(msg, v.line)
		w.find(line, anchor, "plugin", "plugin table: %s", msg)
	}
	if fns := v.tbl.vals["functions"]; fns != nil && fns.tbl != nil {
		for _, name := range fns.tbl.keys {
			if w.c.globals[name] {
				line := fns.tbl.vals[name].line
				w.find(line, name, "plugin", "plugin function %s would shadow the built-in %s; rename it", name, name)
			}
		}
	}
}

// pluginErrorAt is where a plugin table's error points: the key it names
// as unknown, else the deepest key of its path the source sets.
func (w *walker) pluginErrorAt(msg string, fallback int) (int, string) {
	keys := strings.Split(msg, ": ")
	if m := unknownKeyRE().FindStringSubmatch(msg); m != nil {
		keys = append(keys, m[1])
	}
	for i := len(keys) - 1; i >= 0; i-- {
		k := strings.TrimPrefix(keys[i], "key ")
		if line, ok := w.pos.first(k); ok {
			return line, k
		}
	}
	return fallback, ""
}
