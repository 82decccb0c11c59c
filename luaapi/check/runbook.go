package check

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// Runbooks read their arguments with scripts/lib/args.lua:
//
//	local args = require("lib.args")
//	local a = args.parse{usage = "x.lua TOPIC [--max N]", min = 1, max = 1, flags = {max = "integer"}}
//	... a[1] ... a.flags.max
//
// A flag read but not declared is always nil; a flag the usage line or
// the header's Usage line names but flags does not declare is refused when
// given ("unknown flag --max"); an argument past max is never there.

// argsModule is a local holding require("lib.args").
type argsModule struct{}

// parsedArgs is what check knows of args.parse's spec.
type parsedArgs struct {
	flags     []string // declared flag names; nil with flagsOpen
	flagsOpen bool     // the flags table is not written literally
	max       int      // -1 when not known
	line      int
}

var flagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--([A-Za-z0-9][A-Za-z0-9_-]*)`) })

// argsParse checks args.parse{...}: its flag kinds, its usage line.
func (w *walker) argsParse(e *ast.FuncCallExpr) *local {
	line := lineOf(e, w.line)
	w.expr(e.Func)
	var spec *value
	for i, a := range e.Args {
		v := w.eval(a)
		if i == 0 {
			spec = v
		}
	}
	p := &parsedArgs{max: -1, flagsOpen: true, line: line}
	if spec == nil || spec.tbl == nil || spec.tbl.open {
		return &local{kind: lua.LTTable, parsed: p}
	}
	if n, ok := known[lua.LNumber](spec.tbl.vals["max"]); ok {
		p.max = int(n)
	}
	flags, given := spec.tbl.vals["flags"]
	switch {
	case !given:
		p.flagsOpen = false
	case flags.tbl != nil && !flags.tbl.open && len(flags.tbl.items) == 0:
		p.flagsOpen = false
		kinds := w.c.flagKinds(w.r.File)
		for _, name := range flags.tbl.keys {
			p.flags = append(p.flags, name)
			if kind, ok := known[lua.LString](flags.tbl.vals[name]); ok && len(kinds) > 0 && !slices.Contains(kinds, string(kind)) {
				w.find(flags.tbl.vals[name].line, string(kind), "flag", "flag --%s: kind %q is not one lib/args.lua reads (%s)",
					name, string(kind), strings.Join(kinds, ", "))
			}
		}
	}
	if usage, ok := known[lua.LString](spec.tbl.vals["usage"]); ok && !p.flagsOpen {
		w.undeclaredFlags(p, string(usage), spec.tbl.vals["usage"].line, "args.parse's usage")
	}
	w.parsed = p
	return &local{kind: lua.LTTable, parsed: p}
}

// undeclaredFlags reports the flags a usage text names that args.parse
// does not declare: given, they are refused as unknown flags.
func (w *walker) undeclaredFlags(p *parsedArgs, usage string, line int, where string) {
	for _, m := range flagRE().FindAllStringSubmatch(usage, -1) {
		name := m[1]
		if name == "help" || slices.Contains(p.flags, name) {
			continue
		}
		msg := "%s names --%s, which args.parse's flags do not declare: given, it is refused as an unknown flag"
		w.find(line, "--"+name, "flag", msg, where, name)
	}
}

// argsField checks a.flags.NAME and a[N] on args.parse's result.
func (w *walker) argsField(e *ast.AttrGetExpr, key string) {
	obj, ok := e.Object.(*ast.AttrGetExpr)
	if !ok {
		return
	}
	if k, ok := obj.Key.(*ast.StringExpr); !ok || k.Value != "flags" {
		return
	}
	id, ok := obj.Object.(*ast.IdentExpr)
	if !ok {
		return
	}
	l := w.lookup(id.Value)
	if l == nil || l.parsed == nil || l.parsed.flagsOpen || slices.Contains(l.parsed.flags, key) {
		return
	}
	msg := "flag --" + key + " is not declared in args.parse's flags, so it is always nil"
	if near := luaapi.Suggest(key, l.parsed.flags); near != "" {
		msg += " (did you mean --" + near + "?)"
	}
	w.find(lineOf(e, w.line), key, "flag", "%s", msg)
}

// argsIndex checks a[N] past args.parse's max.
func (w *walker) argsIndex(e *ast.AttrGetExpr) {
	id, ok := e.Object.(*ast.IdentExpr)
	if !ok {
		return
	}
	l := w.lookup(id.Value)
	n, isNum := e.Key.(*ast.NumberExpr)
	if l == nil || l.parsed == nil || !isNum || l.parsed.max < 0 {
		return
	}
	if i := int(lua.LVAsNumber(lua.LString(n.Value))); i > l.parsed.max {
		w.find(lineOf(e, w.line), n.Value, "flag", "%s[%d] is never set: args.parse allows at most %d argument(s)", id.Value, i, l.parsed.max)
	}
}

// runbookHeader checks the header comment's Usage line against the flags
// args.parse declares (--help prints the header).
func (w *walker) runbookHeader() {
	p := w.parsed
	if p == nil || p.flagsOpen {
		return
	}
	for i, line := range strings.Split(string(w.src), "\n") {
		if !strings.HasPrefix(line, "--") {
			if strings.HasPrefix(line, "#!") && i == 0 {
				continue
			}
			return
		}
		text := strings.TrimLeft(line, "- ")
		if rest, ok := strings.CutPrefix(text, "Usage:"); ok {
			if _, after, found := strings.Cut(rest, ".lua"); found {
				w.undeclaredFlags(p, after, i+1, "the header's Usage line")
			}
			return
		}
	}
}

// known is v's literal value as T.
func known[T lua.LValue](v *value) (T, bool) {
	var zero T
	if v == nil {
		return zero, false
	}
	x, ok := v.known.(T)
	return x, ok
}

// flagKinds are the flag kinds lib/args.lua reads: the keys of its
// converters table and the kinds it compares with (kind == "boolean"),
// read from the lib/args.lua beside the script, else the built-in one.
func (c *Checker) flagKinds(file string) []string {
	dir := filepath.Dir(file)
	if kinds, ok := c.argKinds[dir]; ok {
		return kinds
	}
	src, err := os.ReadFile(filepath.Join(dir, "lib", "args.lua"))
	if err != nil {
		src, _ = fs.ReadFile(scripts.FS, "lib/args.lua")
	}
	kinds := argsKinds(src)
	c.argKinds[dir] = kinds
	return kinds
}

var kindCompareRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bkind\s*==\s*"([a-z]+)"`) })

func argsKinds(src []byte) []string {
	chunk, err := parse.Parse(strings.NewReader(string(src)), "args.lua")
	if err != nil {
		return nil
	}
	var kinds []string
	for _, s := range chunk {
		if l, ok := s.(*ast.LocalAssignStmt); ok && len(l.Names) == 1 && l.Names[0] == "converters" && len(l.Exprs) == 1 {
			if t, ok := l.Exprs[0].(*ast.TableExpr); ok {
				for _, f := range t.Fields {
					if k, ok := f.Key.(*ast.StringExpr); ok {
						kinds = append(kinds, k.Value)
					}
				}
			}
		}
	}
	for _, m := range kindCompareRE().FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(kinds, m[1]) {
			kinds = append(kinds, m[1])
		}
	}
	slices.Sort(kinds)
	return kinds
}
