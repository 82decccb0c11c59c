package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The Lua printer (indented Lua for tables that are not records, kafka.pp)
// and the one-line form of values in log lines and prompts.

// writeLuaLiteral writes v as indented Lua, keys in a stable order;
// strings are quoted so that they read back exactly (and drive no
// terminal). Other values are written as h displays them.
func writeLuaLiteral(out *printBuf, h Host, v lua.LValue) error {
	w := &luaWriter{h: h, b: out, g: NewGuard("value")}
	return w.value(lua.LNil, v, "")
}

type luaWriter struct {
	h Host
	b *printBuf
	g *Guard
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
		w.b.WriteString(QuoteLua(string(v)))
	case *lua.LTable:
		if err := w.g.Enter(key, v); err != nil {
			return err
		}
		if err := w.table(v, indent); err != nil {
			return err
		}
		w.g.Leave(v)
	case *lua.LNilType:
		w.b.WriteString("nil")
	default:
		s, err := w.h.Display(v)
		if err != nil {
			return w.g.errorAt(key, "%v", err)
		}
		w.b.WriteString(TerminalText(s))
	}
	return w.b.err
}

func (w *luaWriter) table(t *lua.LTable, indent string) error {
	inner := indent + "  "
	if IsArray(t) {
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
	keys := TableKeys(t)
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

// TableKeys: declared columns first, then strings sorted, then other keys.
func TableKeys(t *lua.LTable) []lua.LValue {
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
	order := Columns(t)
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
		return "[" + QuoteLua(string(s)) + "]"
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

// CompactValue renders a Go value (as luaapi's fromLua gives) on one line:
// a string as a quoted Lua string, anything else as compact JSON with
// sorted keys. Either way every control character is escaped.
func CompactValue(v any) string {
	if s, ok := v.(string); ok {
		return QuoteLua(s)
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
		WriteJSONString(b, v)
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
			WriteJSONString(b, k)
			b.WriteByte(':')
			writeCompactJSON(b, v[k])
		}
		b.WriteByte('}')
	default:
		enc, err := json.Marshal(v)
		if err != nil {
			enc = []byte(QuoteLua(fmt.Sprint(v)))
		}
		b.Write(enc)
	}
}
