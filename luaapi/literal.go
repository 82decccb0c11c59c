package luaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The Lua printer (indented Lua for tables that are not records, kafka.pp)
// and the one-line form of values in log lines and prompts.

// luaLiteral renders a value as indented Lua, keys in a stable order;
// strings are quoted so that they read back exactly (and drive no
// terminal).
func (r *Runtime) luaLiteral(v lua.LValue) (string, error) {
	var b strings.Builder
	out := newPrintBuf(&b, 0)
	if err := r.writeLuaLiteral(out, v); err != nil {
		return "", err
	}
	return b.String(), out.Flush()
}

// writeLuaLiteral writes v as luaLiteral renders it, as it goes.
func (r *Runtime) writeLuaLiteral(out *printBuf, v lua.LValue) error {
	w := &luaWriter{r: r, b: out, g: newGuard("value")}
	return w.value(lua.LNil, v, "")
}

type luaWriter struct {
	r *Runtime
	b *printBuf
	g *valueGuard
}

// value writes v, found under key; indent is the current indentation.
func (w *luaWriter) value(key, v lua.LValue, indent string) error {
	size := w.b.Len()
	if s, ok := v.(lua.LString); ok {
		size += len(s) // before the copy
	}
	if err := w.g.reach(key, size); err != nil {
		return err
	}
	switch v := v.(type) {
	case lua.LString:
		w.b.WriteString(quoteLua(string(v)))
	case *lua.LTable:
		if err := w.g.enter(key, v); err != nil {
			return err
		}
		if err := w.table(v, indent); err != nil {
			return err
		}
		w.g.leave(v)
	case *lua.LNilType:
		w.b.WriteString("nil")
	default:
		s, err := w.r.display(v)
		if err != nil {
			return w.g.errorAt(key, "%v", err)
		}
		w.b.WriteString(TerminalText(s))
	}
	return w.b.err
}

func (w *luaWriter) table(t *lua.LTable, indent string) error {
	inner := indent + "  "
	if isArray(t) {
		n := t.Len()
		if n == 0 {
			w.b.WriteString("{}")
			return nil
		}
		simple := n <= 16
		for i := 1; i <= n && simple; i++ {
			_, nested := t.RawGetInt(i).(*lua.LTable)
			simple = !nested
		}
		sep, open, end := ",\n"+inner, "{\n"+inner, "\n"+indent+"}"
		if simple {
			sep, open, end = ", ", "{", "}"
		}
		w.b.WriteString(open)
		for i := 1; i <= n; i++ {
			if i > 1 {
				w.b.WriteString(sep)
			}
			if err := w.value(lua.LNumber(i), t.RawGetInt(i), inner); err != nil {
				return err
			}
		}
		w.b.WriteString(end)
		return nil
	}
	keys := tableKeys(t)
	if len(keys) == 0 {
		w.b.WriteString("{}")
		return nil
	}
	w.b.WriteString("{\n")
	for _, k := range keys {
		w.b.WriteString(inner)
		w.b.WriteString(luaKey(k))
		w.b.WriteString(" = ")
		if err := w.value(k, t.RawGet(k), inner); err != nil {
			return err
		}
		w.b.WriteString(",\n")
	}
	w.b.WriteString(indent + "}")
	return nil
}

// tableKeys: declared columns first, then strings sorted, then other keys.
func tableKeys(t *lua.LTable) []lua.LValue {
	var strs []string
	var others []lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			strs = append(strs, string(s))
		} else {
			others = append(others, k)
		}
	})
	slices.Sort(strs)
	order := columns(t)
	slices.SortStableFunc(strs, func(a, b string) int {
		ia, ib := slices.Index(order, a), slices.Index(order, b)
		if ia < 0 {
			ia = len(order)
		}
		if ib < 0 {
			ib = len(order)
		}
		return ia - ib
	})
	out := make([]lua.LValue, 0, len(strs)+len(others))
	for _, s := range strs {
		out = append(out, lua.LString(s))
	}
	slices.SortFunc(others, func(a, b lua.LValue) int { return strings.Compare(a.String(), b.String()) })
	return append(out, others...)
}

func luaKey(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && isIdent(string(s)) {
		return string(s)
	}
	if s, ok := k.(lua.LString); ok {
		return "[" + quoteLua(string(s)) + "]"
	}
	return "[" + TerminalText(k.String()) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// compactValue renders a Go value (from fromLua) on one line: a string as
// a quoted Lua string, anything else as compact JSON with sorted keys.
// Either way every control character is escaped.
func compactValue(v any) string {
	if s, ok := v.(string); ok {
		return quoteLua(s)
	}
	var b bytes.Buffer
	writeCompactJSON(&b, v)
	return b.String()
}

func writeCompactJSON(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeJSONString(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		b.WriteString(lua.LNumber(v).String())
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompactJSON(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeCompactJSON(b, v[k])
		}
		b.WriteByte('}')
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			enc = []byte(quoteLua(fmt.Sprint(v)))
		}
		b.Write(enc)
	}
}

// display is tostring(v). A __tostring metamethod is Lua code, and Format
// runs after the chunk, outside its protected call: an error there would
// crash the process. So it is called protected, and under the memory
// limit when no chunk is running.
func (r *Runtime) display(v lua.LValue) (string, error) {
	L := r.L
	fn := L.GetMetaField(v, "__tostring")
	if fn == lua.LNil {
		return v.String(), nil
	}
	if L.Context() == nil && r.opts.MaxMemory > 0 {
		ctx, stop := watchMemory(context.Background(), r.opts.MaxMemory, r.opts.Runaway, true)
		defer stop()
		L.SetContext(ctx)
		defer L.RemoveContext()
	}
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(fn)
	L.Push(v)
	if err := L.PCall(1, 1, nil); err != nil {
		var api *lua.ApiError
		if errors.As(err, &api) && api.Object != nil {
			return "", fmt.Errorf("__tostring failed: %s", lua.LVAsString(api.Object))
		}
		return "", fmt.Errorf("__tostring failed: %w", err)
	}
	s, ok := L.Get(-1).(lua.LString)
	if !ok {
		return "", fmt.Errorf("__tostring returned a %s, not a string", L.Get(-1).Type())
	}
	return string(s), nil
}
