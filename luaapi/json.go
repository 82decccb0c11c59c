package luaapi

import (
	"bytes"
	"math"
	"slices"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// JSON rules: keys sorted; a sequence is an array and an empty table is []
// unless it came from a Go map or record (then {}); kafka.json.null is null;
// integral numbers print without a fraction. Strings are exact: see
// writeJSONString.

// encodeJSON writes v as JSON; indent "" means compact. A value JSON cannot
// hold (a cyclic table, a function, NaN, too deep or too large) is an
// error naming where it is: "value.a: cyclic table (it contains itself)".
func encodeJSON(v lua.LValue, null lua.LValue, indent string) (string, error) {
	w := &jsonWriter{null: null, indent: indent, g: newGuard("value")}
	if err := w.value(lua.LNil, v, ""); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

type jsonWriter struct {
	b      bytes.Buffer
	null   lua.LValue
	indent string
	g      *valueGuard
}

// value writes v, found under key; prefix is the current indentation.
func (w *jsonWriter) value(key, v lua.LValue, prefix string) error {
	b := &w.b
	size := b.Len()
	if s, ok := v.(lua.LString); ok {
		size += len(s) // before the copy
	}
	if err := w.g.reach(key, size); err != nil {
		return err
	}
	if v == w.null {
		b.WriteString("null")
		return nil
	}
	switch v := v.(type) {
	case *lua.LNilType:
		b.WriteString("null")
	case lua.LBool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return w.g.errorAt(key, "JSON has no %v", f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			b.WriteString(strconv.FormatInt(int64(f), 10))
		} else {
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case lua.LString:
		writeJSONString(b, string(v))
	case *lua.LTable:
		if err := w.g.enter(key, v); err != nil {
			return err
		}
		defer w.g.leave(v)
		return w.table(v, prefix)
	default:
		return w.g.errorAt(key, "JSON cannot hold a %s", v.Type())
	}
	return nil
}

func (w *jsonWriter) newline(prefix string) {
	if w.indent != "" {
		w.b.WriteByte('\n')
		w.b.WriteString(prefix)
	}
}

func (w *jsonWriter) table(t *lua.LTable, prefix string) error {
	b := &w.b
	inner := prefix + w.indent
	if isArray(t) {
		if t.Len() == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := 1; i <= t.Len(); i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			w.newline(inner)
			if err := w.value(lua.LNumber(i), t.RawGetInt(i), inner); err != nil {
				return err
			}
		}
		w.newline(prefix)
		b.WriteByte(']')
		return nil
	}
	vals, keys := map[string]lua.LValue{}, []string{}
	var kerr error
	t.ForEach(func(k, val lua.LValue) {
		var ks string
		switch k := k.(type) {
		case lua.LString:
			ks = string(k)
		case lua.LNumber:
			ks = k.String()
		default:
			if kerr == nil {
				kerr = w.g.errorAt(k, "JSON cannot hold a %s key", k.Type())
			}
			return
		}
		vals[ks] = val
		keys = append(keys, ks)
	})
	if kerr != nil {
		return kerr
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		w.newline(inner)
		writeJSONString(b, k)
		b.WriteByte(':')
		if w.indent != "" {
			b.WriteByte(' ')
		}
		if err := w.value(lua.LString(k), vals[k], inner); err != nil {
			return err
		}
	}
	w.newline(prefix)
	b.WriteByte('}')
	return nil
}
