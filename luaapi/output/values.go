package output

import lua "github.com/yuin/gopher-lua"

// What a table's metatable says about printing it. luaapi's converters set
// these marks on the tables they build: __kind="object" (a Go map or
// record: {} when empty, never an array) and __columns (a record's
// declared field order).

// IsArray reports whether t is a sequence: its keys are exactly 1..n and
// it is not marked as an object. An empty unmarked table is an array
// (prints as []).
func IsArray(t *lua.LTable) bool {
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

// Columns returns a record table's preferred column order, if it has one.
func Columns(t *lua.LTable) []string {
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
