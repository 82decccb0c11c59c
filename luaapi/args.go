package luaapi

import (
	"fmt"
	"math"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// argErr is a bad-argument error. The dispatcher prefixes the function name:
// "create_topics: spec #2: partitions must be a positive integer, got "x"".
func argErr(where, format string, args ...any) *engine.Error {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	return &engine.Error{Code: engine.CodeInvalidArgument, Message: msg}
}

// describe renders a Lua value for "got ..." in error messages.
func describe(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return fmt.Sprintf("%q", string(v))
	case lua.LNumber, lua.LBool:
		return v.String()
	case *lua.LNilType:
		return "nil"
	default:
		return v.Type().String()
	}
}

// stringList reads a string or an array of strings.
func stringList(v lua.LValue, where string) ([]string, error) {
	switch v := v.(type) {
	case lua.LString:
		return []string{string(v)}, nil
	case *lua.LTable:
		var out []string
		n := v.Len()
		if err := onlyArray(v, where); err != nil {
			return nil, err
		}
		for i := 1; i <= n; i++ {
			s, ok := v.RawGetInt(i).(lua.LString)
			if !ok {
				return nil, argErr(fmt.Sprintf("%s #%d", where, i), "must be a string, got %s", describe(v.RawGetInt(i)))
			}
			out = append(out, string(s))
		}
		return out, nil
	}
	return nil, argErr(where, "must be a string or an array of strings, got %s", describe(v))
}

// toInt reads an integral Lua number (or a numeric string).
func toInt(v lua.LValue) (int64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		f := float64(v)
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return int64(f), true
	case lua.LString:
		var n int64
		if _, err := fmt.Sscan(string(v), &n); err == nil && fmt.Sprint(n) == strings.TrimSpace(string(v)) {
			return n, true
		}
	}
	return 0, false
}

// fields reads a Lua table with known keys, recording the first error so
// parsers read straight through: f.str("name"), f.int("partitions") ...
type fields struct {
	t     *lua.LTable
	where string
	err   error
}

func newFields(v lua.LValue, where string, allowed ...string) *fields {
	f := &fields{where: where}
	t, ok := v.(*lua.LTable)
	if !ok {
		f.err = argErr(where, "must be a table, got %s", describe(v))
		f.t = &lua.LTable{}
		return f
	}
	f.t = t
	t.ForEach(func(k, _ lua.LValue) {
		ks, isStr := k.(lua.LString)
		if f.err == nil && (!isStr || !slices.Contains(allowed, string(ks))) {
			f.err = argErr(where, "unknown key %s (allowed: %s)", describe(k), strings.Join(allowed, ", "))
		}
	})
	return f
}

func (f *fields) fail(key, format string, args ...any) {
	if f.err == nil {
		f.err = argErr(f.where, key+" "+format, args...)
	}
}

func (f *fields) has(key string) bool { return f.t.RawGetString(key) != lua.LNil }

func (f *fields) get(key string) lua.LValue { return f.t.RawGetString(key) }

func (f *fields) str(key string, required bool) string {
	v := f.t.RawGetString(key)
	if s, ok := v.(lua.LString); ok {
		return string(s)
	}
	if v != lua.LNil || required {
		f.fail(key, "must be a string, got %s", describe(v))
	}
	return ""
}

func (f *fields) boolean(key string) bool {
	v := f.t.RawGetString(key)
	if b, ok := v.(lua.LBool); ok {
		return bool(b)
	}
	if v != lua.LNil {
		f.fail(key, "must be a boolean, got %s", describe(v))
	}
	return false
}

// integer reads an optional integer no smaller than min; def when absent.
func (f *fields) integer(key string, min, def int64) int64 {
	v := f.t.RawGetString(key)
	if v == lua.LNil {
		return def
	}
	n, ok := toInt(v)
	if !ok || n < min {
		switch min {
		case 0:
			f.fail(key, "must be a non-negative integer, got %s", describe(v))
		case 1:
			f.fail(key, "must be a positive integer, got %s", describe(v))
		default:
			f.fail(key, "must be an integer >= %d, got %s", min, describe(v))
		}
		return def
	}
	return n
}

func (f *fields) strings(key string) []string {
	v := f.t.RawGetString(key)
	if v == lua.LNil {
		return nil
	}
	out, err := stringList(v, f.where+": "+key)
	if err != nil && f.err == nil {
		f.err = err
	}
	return out
}

// strMap reads {k=v} with string keys and scalar values (numbers and
// booleans are turned into their string forms, as Kafka configs want). A
// value may also be an array of strings, for list configs: it is sent
// comma-separated.
func (f *fields) strMap(key string) map[string]string {
	v := f.t.RawGetString(key)
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		f.fail(key, "must be a table of name=value, got %s", describe(v))
		return nil
	}
	out := map[string]string{}
	t.ForEach(func(k, val lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			f.fail(key, "keys must be strings, got %s", describe(k))
			return
		}
		if list, ok := val.(*lua.LTable); ok {
			items, err := stringList(list, f.where+": "+key+"."+string(ks))
			if err != nil && f.err == nil {
				f.err = err
			}
			out[string(ks)] = strings.Join(items, ",")
			return
		}
		s, ok := scalarString(val)
		if !ok {
			f.fail(key+"."+string(ks), "must be a string, number, boolean or array of strings, got %s", describe(val))
			return
		}
		out[string(ks)] = s
	})
	return out
}

func scalarString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		if n, ok := toInt(v); ok {
			return fmt.Sprint(n), true
		}
		return v.String(), true
	case lua.LBool:
		return v.String(), true
	}
	return "", false
}
