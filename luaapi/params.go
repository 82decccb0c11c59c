package luaapi

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Param is one positional argument of a function.
type Param struct {
	Name     string
	Type     Type
	Optional bool // may be nil or left out
	Doc      string
}

// Options every admin function of a kind gets from its declaration, so no
// function reads them its own way.
var (
	partialOption = Field{Name: "partial", Type: Bool(),
		Doc: "return every item's result (failed ones with their error) instead of raising when some failed"}
	validateOnlyOption = Field{Name: "validate_only", Type: Bool(),
		Doc: "ask the broker to check the request without applying it (as --dry-run does)"}
)

// funcOptions is a Func's options as every call reads them, worked out on
// the first call (a declaration does not change).
type funcOptions struct {
	fields []Field
	rec    *RecordType
}

func (f *Func) optionsOnce() *funcOptions {
	if o := f.opts.Load(); o != nil {
		return o
	}
	out := append([]Field{}, f.Options...)
	if f.ValidateOnly {
		out = append(out, validateOnlyOption)
	}
	if f.Batch {
		out = append(out, partialOption)
	}
	o := &funcOptions{fields: out, rec: Record(out...)}
	f.opts.Store(o)
	return o
}

// options is the full list of f's option keys: its own, then the ones
// its kind brings. The caller must not change it.
func (f *Func) options() []Field { return f.optionsOnce().fields }

// hasOptionsTable: the function takes an options table after its
// positional arguments (or, with no positional arguments and TableCall, as
// its only argument).
func (f *Func) hasOptionsTable() bool { return len(f.options()) > 0 }

// optionsRecord is the options table's type.
func (f *Func) optionsRecord() *RecordType { return f.optionsOnce().rec }

// optionsPath names the options table in errors: "options", or nothing for
// a function called with one table of named arguments (reset_offsets{...}).
func (f *Func) optionsPath() string {
	if f.TableCall {
		return ""
	}
	return "options"
}

// declared reports whether f declares its arguments (every function
// does; the check is for the transition and for plugins).
func (f *Func) declared() bool {
	return f.Params != nil || f.Options != nil || f.NoArgs || f.TableCall || f.Batch || f.ValidateOnly
}

// parsedArgs is a call's arguments after the declaration read them.
type parsedArgs struct {
	pos  []any // by Param index; nil when absent
	opts Rec
}

// parseArgs reads a call's Lua arguments (vals, the caller's values in
// order) against f's declaration. Nothing is sent before this succeeds.
// The arguments are read without building the paths of what is inside
// them; only a call that fails is read again with paths, for its error.
func parseArgs(f *Func, vals []lua.LValue, null lua.LValue) (*parsedArgs, error) {
	vals = trimNils(vals)
	r := newReader(null)
	r.unnamed = true
	out, err := parseWith(r, f, vals)
	if err == nil {
		return out, nil
	}
	if _, named := parseWith(newReader(null), f, vals); named != nil {
		return nil, named
	}
	return nil, err
}

func parseWith(r *reader, f *Func, vals []lua.LValue) (*parsedArgs, error) {
	out := &parsedArgs{pos: make([]any, len(f.Params))}
	optsAt := len(f.Params) // index in vals of the options table
	// An optional positional argument may be left out with the options
	// table coming in its place: lag{partial=true}.
	// A parameter that takes any value (kafka.json.encode's) keeps it.
	if n := len(vals); n > 0 && n <= len(f.Params) && f.Params[n-1].Optional && !isAnyType(f.Params[n-1].Type) &&
		f.hasOptionsTable() && isOptionsTable(f, vals[n-1]) {
		optsAt = n - 1
	}
	if f.Variadic && len(f.Params) > 0 {
		return parseVariadic(r, f, vals, out)
	}
	limit := len(f.Params)
	if f.hasOptionsTable() {
		limit++
	}
	if len(vals) > limit && optsAt == len(f.Params) {
		if limit == 0 {
			return nil, argErr("", "takes no arguments, got %d", len(vals))
		}
		return nil, argErr("", "takes at most %d argument%s, %s%s, got %d", limit, plural(limit), f.Name, signature(f), len(vals))
	}
	for i, p := range f.Params {
		at := p.Name
		if i >= optsAt || i >= len(vals) || vals[i] == lua.LNil {
			if !p.Optional {
				return nil, argErr(at, "is required")
			}
			continue
		}
		x, err := p.Type.read(r, vals[i], at)
		if err != nil {
			if p.Optional && i == len(vals)-1 {
				if oerr := misspeltOptions(f, vals[i]); oerr != nil {
					return nil, oerr
				}
			}
			return nil, err
		}
		out.pos[i] = x
	}
	if f.hasOptionsTable() {
		v := lua.LValue(lua.LNil)
		if optsAt < len(vals) {
			v = vals[optsAt]
		}
		rec, err := readOptions(r, f, v, optsAt+1)
		if err != nil {
			return nil, err
		}
		out.opts = rec
	}
	return out, nil
}

// parseVariadic reads a function whose last parameter repeats
// (kafka.pp(value...)): every value from there on is read with its type.
func parseVariadic(r *reader, f *Func, vals []lua.LValue, out *parsedArgs) (*parsedArgs, error) {
	last := len(f.Params) - 1
	var rest []any
	for i, v := range vals {
		p := f.Params[min(i, last)]
		at := p.Name
		if i >= last {
			at = fmt.Sprintf("%s #%d", p.Name, i-last+1)
		}
		x, err := p.Type.read(r, v, at)
		if err != nil {
			return nil, err
		}
		if i < last {
			out.pos[i] = x
		} else {
			rest = append(rest, x)
		}
	}
	out.pos[last] = rest
	return out, nil
}

// noOptions stands for an options table left out (it is only read).
var noOptions = &lua.LTable{}

// readOptions reads the options table at argument position n (1-based).
func readOptions(r *reader, f *Func, v lua.LValue, n int) (Rec, error) {
	rt := f.optionsRecord()
	tbl, ok := v.(*lua.LTable)
	switch {
	case v == lua.LNil:
		tbl = noOptions
	case !ok && f.TableCall:
		return nil, argErr("", "takes one table %s, got %s", rt.Doc(), describe(v))
	case !ok && len(f.SecretArgs) > 0:
		// Arguments given in the wrong order may put a secret here.
		return nil, argErr(fmt.Sprintf("argument #%d (options)", n), "must be a table, got a %s", v.Type())
	case !ok:
		return nil, argErr(fmt.Sprintf("argument #%d (options)", n), "must be a table, got %s", describe(v))
	}
	return rt.readFields(r, tbl, f.optionsPath())
}

// isOptionsTable: v is a non-empty table whose keys are all option names.
func isOptionsTable(f *Func, v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	if !ok {
		return false
	}
	rec := f.optionsRecord()
	n := 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n++
		if ks, ok := k.(lua.LString); !ok || rec.field(string(ks)) == nil {
			return false
		}
	}
	return n > 0
}

func isAnyType(t Type) bool { _, ok := t.(AnyType); return ok }

// misspeltOptions: v, refused as an optional argument, looks like the
// options table with a key misspelt (lag{partal=true}); the error names the
// option meant rather than the argument.
func misspeltOptions(f *Func, v lua.LValue) error {
	t, ok := v.(*lua.LTable)
	if !ok || !f.hasOptionsTable() || !hasOnlyStringKeys(t) {
		return nil
	}
	names := f.optionsRecord().Names()
	for _, k := range sortedTableKeys(t) {
		ks := string(k.(lua.LString))
		if !containsStr(names, ks) && f.isParam(ks) { // watch(f, {interval = 5})
			return argErr(f.optionsPath(), "%q is an argument of %s, not an option: %s%s", ks, f.Name, f.Name, signature(f))
		}
		if !containsStr(names, ks) && suggest(ks, names) != "" {
			return unknownKey(f.optionsPath(), k, names)
		}
	}
	return nil
}

// isParam reports whether name is one of f's positional parameters.
func (f *Func) isParam(name string) bool {
	for _, p := range f.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func hasOnlyStringKeys(t *lua.LTable) bool {
	only := true
	t.ForEach(func(k, _ lua.LValue) {
		if _, s := k.(lua.LString); !s {
			only = false
		}
	})
	return only
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func trimNils(vals []lua.LValue) []lua.LValue {
	for len(vals) > 0 && vals[len(vals)-1] == lua.LNil {
		vals = vals[:len(vals)-1]
	}
	return vals
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// param returns the value of the positional argument or option called
// name, as T (T's zero value when it was not given).
func param[T any](c *Call, name string) T {
	if c.args != nil {
		for i, p := range c.Fn.Params {
			if p.Name == name {
				if x := c.args.pos[i]; x != nil {
					return x.(T)
				}
				var zero T
				return zero
			}
		}
		if x, ok := c.args.opts[name]; ok {
			return x.(T)
		}
		if c.Fn.optionsRecord().field(name) != nil {
			var zero T
			return zero
		}
	}
	panic("luaapi: " + c.Fn.Name + " reads undeclared argument " + name)
}

// Given reports whether the caller gave the argument or option called name.
func (c *Call) Given(name string) bool {
	for i, p := range c.Fn.Params {
		if p.Name == name {
			return c.args.pos[i] != nil
		}
	}
	return c.args.opts.Has(name)
}

// signature renders f's call shape from its declaration:
// "(specs[, {validate_only=, if_not_exists=, partial=}])".
func signature(f *Func) string {
	if !f.declared() {
		if strings.HasPrefix(f.Args, "(") {
			return f.Args
		}
		return "(" + f.Args + ")"
	}
	if f.TableCall && len(f.Params) == 0 {
		return f.optionsRecord().Doc()
	}
	var b strings.Builder
	b.WriteString("(")
	for i, p := range f.Params {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		if p.Optional {
			b.WriteString("[" + sep + p.Name + "]")
		} else {
			b.WriteString(sep + p.Name)
		}
	}
	if f.hasOptionsTable() {
		var keys []string
		for _, o := range f.options() {
			keys = append(keys, o.Name+"=")
		}
		sep := ""
		if len(f.Params) > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "[%s{%s}]", sep, strings.Join(keys, ", "))
	}
	b.WriteString(")")
	return b.String()
}
