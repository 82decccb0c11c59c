package luaapi

import (
	"errors"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// fromLua turns a Lua value into plain Go (for the audit log, confirm
// prompts and messages): tables become []any when they are sequences, else
// map[string]any; functions and userdata become their type names. It never
// fails: a part that cannot be converted (a cyclic table, nesting too deep,
// too much in all) becomes a marker string such as "<cyclic table (it
// contains itself)>", so the audit line or message is still written.
// goValue is the strict form.
func fromLua(v lua.LValue) any {
	out, _ := toGo(output.NewGuard("value").Small(), lua.LNil, v, true)
	return out
}

// goValue is fromLua that fails, naming where and why, instead of writing
// markers. root names the value in the message ("cfg.a: cyclic table").
func goValue(v lua.LValue, root string) (any, error) {
	return toGo(output.NewGuard(root).Small(), lua.LNil, v, false)
}

// toGo converts v, found under key. Lenient, a part that cannot be
// converted becomes a marker string in its place.
func toGo(g *output.Guard, key, v lua.LValue, lenient bool) (any, error) {
	out, err := toGoValue(g, key, v, lenient)
	var ve *output.ValueError
	if lenient && errors.As(err, &ve) {
		return "<" + ve.Reason + ">", nil
	}
	return out, err
}

func toGoValue(g *output.Guard, key, v lua.LValue, lenient bool) (any, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, g.Count(key, 0)
	case lua.LBool:
		return bool(v), g.Count(key, 0)
	case lua.LNumber:
		return float64(v), g.Count(key, 0)
	case lua.LString:
		return string(v), g.Str(key, string(v))
	case *lua.LTable:
		if err := g.Count(key, 0); err != nil {
			return nil, err
		}
		if err := g.Enter(key, v); err != nil {
			return nil, err
		}
		defer g.Leave(v)
		if output.IsArray(v) {
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
		for _, k := range output.TableKeys(v) { // sorted: the first error is always the same
			ks := lua.LVAsString(k) + keySuffix(k)
			g.AddBytes(len(ks)) // checked with the value
			e, err := toGo(g, k, v.RawGet(k), lenient)
			if err != nil {
				return nil, err
			}
			out[ks] = e
		}
		return out, nil
	}
	return v.Type().String(), g.Count(key, 0)
}

func keySuffix(k lua.LValue) string {
	switch k.(type) {
	case lua.LString, lua.LNumber:
		return ""
	}
	return k.Type().String()
}
