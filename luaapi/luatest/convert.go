package luatest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// Values cross between Lua states (a runbook's result into the test's)
// and into Go (a fixture{} table) as plain data: tables, strings, numbers,
// booleans. Functions, userdata and metatables stay behind.

// maxDepth and maxItems bound one conversion: a fixture or a runbook's
// result is data, far smaller.
const (
	maxDepth = 100
	maxItems = 10_000_000
)

type toGo struct {
	items      int
	seen       map[*lua.LTable]bool
	emptyAsNil bool
}

// goValue converts v: an array-like table (keys 1..n) to []any, another
// table to map[string]any, an empty table to nil (so that in JSON it reads
// as an empty list or map alike). Where names the value in errors.
func goValue(v lua.LValue, where string) (any, error) {
	c := &toGo{seen: map[*lua.LTable]bool{}, emptyAsNil: true}
	return c.value(v, where, 0)
}

func (c *toGo) value(v lua.LValue, where string, depth int) (any, error) {
	c.items++
	if c.items > maxItems {
		return nil, fmt.Errorf("%s: more than %d values", where, maxItems)
	}
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: %v is not a number JSON can hold", where, f)
		}
		return f, nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		if depth >= maxDepth {
			return nil, fmt.Errorf("%s: nested more than %d levels deep", where, maxDepth)
		}
		if c.seen[v] {
			return nil, fmt.Errorf("%s: the table contains itself", where)
		}
		c.seen[v] = true
		defer delete(c.seen, v)
		return c.table(v, where, depth)
	}
	return nil, fmt.Errorf("%s: a %s is not data", where, v.Type())
}

func (c *toGo) table(t *lua.LTable, where string, depth int) (any, error) {
	n := t.Len()
	count := 0
	t.ForEach(func(lua.LValue, lua.LValue) { count++ })
	if count == 0 {
		if c.emptyAsNil {
			return nil, nil
		}
		return []any{}, nil
	}
	if n == count {
		out := make([]any, n)
		for i := 1; i <= n; i++ {
			v, err := c.value(t.RawGetInt(i), fmt.Sprintf("%s[%d]", where, i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i-1] = v
		}
		return out, nil
	}
	out := make(map[string]any, count)
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		var key string
		switch k := k.(type) {
		case lua.LString:
			key = string(k)
		case lua.LNumber:
			key = k.String()
		default:
			err = fmt.Errorf("%s: a key must be a string or a number, got a %s", where, k.Type())
			return
		}
		out[key], err = c.value(v, where+"."+key, depth+1)
	})
	return out, err
}

// luaValue converts data decoded from JSON (or built in Go) into a Lua
// value of L: maps become tables with string keys, slices arrays.
func luaValue(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return lua.LNumber(f)
	case string:
		return lua.LString(v)
	case []string:
		t := L.CreateTable(len(v), 0)
		for _, s := range v {
			t.Append(lua.LString(s))
		}
		return t
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(luaValue(L, e))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.RawSetString(k, luaValue(L, v[k]))
		}
		return t
	}
	return lua.LString(fmt.Sprint(v))
}

// viaJSON converts any Go value into a Lua value as its JSON says it.
func viaJSON(L *lua.LState, v any) (lua.LValue, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil, err
	}
	return luaValue(L, generic), nil
}

// copyInto copies a value of another Lua state into L as data.
func copyInto(L *lua.LState, v lua.LValue, where string) (lua.LValue, error) {
	c := &toGo{seen: map[*lua.LTable]bool{}}
	g, err := c.value(v, where, 0)
	if err != nil {
		return nil, err
	}
	return luaValue(L, g), nil
}

// stringList reads a Lua array of strings.
func stringList(t *lua.LTable) []string {
	var out []string
	for i := 1; i <= t.Len(); i++ {
		out = append(out, lua.LVAsString(t.RawGetInt(i)))
	}
	return slices.Clip(out)
}
