package luaapi

import (
	"errors"

	lua "github.com/yuin/gopher-lua"
)

// fromLua turns a Lua value into plain Go (for the audit log, confirm
// prompts and messages): tables become []any when they are sequences, else
// map[string]any; functions and userdata become their type names. It never
// fails: a part that cannot be converted (a cyclic table, nesting too deep,
// too much in all) becomes a marker string such as "<cyclic table (it
// contains itself)>", so the audit line or message is still written.
// goValue is the strict form.
func fromLua(v lua.LValue) any {
	out, _ := toGo(newGuard("value").small(), lua.LNil, v, true)
	return out
}

// goValue is fromLua that fails, naming where and why, instead of writing
// markers. root names the value in the message ("cfg.a: cyclic table").
func goValue(v lua.LValue, root string) (any, error) {
	return toGo(newGuard(root).small(), lua.LNil, v, false)
}

// toGo converts v, found under key. Lenient, a part that cannot be
// converted becomes a marker string in its place.
func toGo(g *valueGuard, key, v lua.LValue, lenient bool) (any, error) {
	out, err := toGoValue(g, key, v, lenient)
	var ve *valueError
	if lenient && errors.As(err, &ve) {
		return "<" + ve.Reason + ">", nil
	}
	return out, err
}

func toGoValue(g *valueGuard, key, v lua.LValue, lenient bool) (any, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, g.count(key, 0)
	case lua.LBool:
		return bool(v), g.count(key, 0)
	case lua.LNumber:
		return float64(v), g.count(key, 0)
	case lua.LString:
		return string(v), g.str(key, string(v))
	case *lua.LTable:
		if err := g.count(key, 0); err != nil {
			return nil, err
		}
		if err := g.enter(key, v); err != nil {
			return nil, err
		}
		defer g.leave(v)
		if isArray(v) {
			out := make([]any, 0, v.Len())
			for i := 1; i <= v.Len(); i++ {
				e, err := toGo(g, lua.LNumber(i), v.RawGetInt(i), lenient)
				if err != nil {
					return nil, err
				}
				out = append(out, e)
			}
			return out, nil
		}
		out := map[string]any{}
		for _, k := range tableKeys(v) { // sorted: the first error is always the same
			ks := lua.LVAsString(k) + keySuffix(k)
			g.bytes += len(ks) // checked with the value
			e, err := toGo(g, k, v.RawGet(k), lenient)
			if err != nil {
				return nil, err
			}
			out[ks] = e
		}
		return out, nil
	}
	return v.Type().String(), g.count(key, 0)
}

func keySuffix(k lua.LValue) string {
	switch k.(type) {
	case lua.LString, lua.LNumber:
		return ""
	}
	return k.Type().String()
}

// isArray: a table whose keys are exactly 1..n, and which is not marked as
// an object. An empty unmarked table is an array (prints as []).
func isArray(t *lua.LTable) bool {
	if isObject(t) {
		return false
	}
	values, others := t.KeyCounts()
	return others == 0 && values == t.Len()
}

func isObject(t *lua.LTable) bool {
	mt, ok := t.Metatable.(*lua.LTable)
	return ok && mt.RawGetString("__kind") == lua.LString("object")
}

// columns returns a record table's preferred column order, if it has one.
func columns(t *lua.LTable) []string {
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok {
		return nil
	}
	cols, ok := mt.RawGetString("__columns").(*lua.LTable)
	if !ok {
		return nil
	}
	var out []string
	for i := 1; i <= cols.Len(); i++ {
		out = append(out, lua.LVAsString(cols.RawGetInt(i)))
	}
	return out
}
