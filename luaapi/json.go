package luaapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// JSON rules: keys sorted; a sequence is an array and an empty table is []
// unless it came from a Go map or record (then {}); kafka.json.null is null;
// integral numbers print without a fraction.

// encodeJSON writes v as JSON; indent "" means compact.
func encodeJSON(v lua.LValue, null lua.LValue, indent string) (string, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v, null, indent, "", 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJSON(b *bytes.Buffer, v lua.LValue, null lua.LValue, indent, prefix string, depth int) error {
	if depth > 100 {
		return fmt.Errorf("json: nested too deep (a table that contains itself?)")
	}
	if v == null {
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
			return fmt.Errorf("json: cannot encode %v", f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			b.WriteString(strconv.FormatInt(int64(f), 10))
		} else {
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case lua.LString:
		enc, _ := json.Marshal(string(v))
		b.Write(enc)
	case *lua.LTable:
		inner := prefix + indent
		nl := func(p string) {
			if indent != "" {
				b.WriteByte('\n')
				b.WriteString(p)
			}
		}
		if isArray(v) {
			if v.Len() == 0 {
				b.WriteString("[]")
				return nil
			}
			b.WriteByte('[')
			for i := 1; i <= v.Len(); i++ {
				if i > 1 {
					b.WriteByte(',')
				}
				nl(inner)
				if err := writeJSON(b, v.RawGetInt(i), null, indent, inner, depth+1); err != nil {
					return err
				}
			}
			nl(prefix)
			b.WriteByte(']')
			return nil
		}
		keys, vals := map[string]lua.LValue{}, []string{}
		var kerr error
		v.ForEach(func(k, val lua.LValue) {
			var ks string
			switch k := k.(type) {
			case lua.LString:
				ks = string(k)
			case lua.LNumber:
				ks = k.String()
			default:
				kerr = fmt.Errorf("json: cannot encode a %s key", k.Type())
				return
			}
			keys[ks] = val
			vals = append(vals, ks)
		})
		if kerr != nil {
			return kerr
		}
		slices.Sort(vals)
		if len(vals) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(inner)
			enc, _ := json.Marshal(k)
			b.Write(enc)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			if err := writeJSON(b, keys[k], null, indent, inner, depth+1); err != nil {
				return err
			}
		}
		nl(prefix)
		b.WriteByte('}')
	default:
		return fmt.Errorf("json: cannot encode a %s", v.Type())
	}
	return nil
}

// decodeJSON parses s into Lua values; JSON null becomes null.
func (r *Runtime) decodeJSON(s string, null lua.LValue) (lua.LValue, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return lua.LNil, err
	}
	if dec.More() {
		return lua.LNil, fmt.Errorf("json: trailing data after the value")
	}
	return r.jsonToLua(v, null), nil
}

func (r *Runtime) jsonToLua(v any, null lua.LValue) lua.LValue {
	switch v := v.(type) {
	case nil:
		return null
	case bool:
		return lua.LBool(v)
	case json.Number:
		f, _ := v.Float64()
		return lua.LNumber(f)
	case string:
		return lua.LString(v)
	case []any:
		t := r.L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(r.jsonToLua(e, null))
		}
		return t
	case map[string]any:
		t := r.L.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, r.jsonToLua(e, null))
		}
		t.Metatable = r.conv.object
		return t
	}
	return lua.LNil
}
