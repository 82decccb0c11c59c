package luaapi

import (
	"slices"
	"strings"
)

// ArgKeys lists the table keys a call of the function named name can take
// (its options and the fields of its record arguments), for completion
// inside the call: `create_topics({{na<Tab>` -> name. name may be a method
// name or a dotted library name; nil when it is not a declared function.
func ArgKeys(name string) []string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && Lookup(name) == nil {
		name = name[i+1:]
	}
	f := Lookup(name)
	if f == nil || !f.declared() {
		return nil
	}
	var out []string
	for _, o := range f.options() {
		out = append(out, o.Name)
		out = append(out, recordKeys(o.Type, 0)...)
	}
	for _, p := range f.Params {
		out = append(out, recordKeys(p.Type, 0)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// recordKeys walks a Type for the field names of the records inside it.
func recordKeys(t Type, depth int) []string {
	if depth > 4 {
		return nil
	}
	switch t := t.(type) {
	case *RecordType:
		out := t.Names()
		for _, f := range t.Fields {
			out = append(out, recordKeys(f.Type, depth+1)...)
		}
		return out
	case *ListType:
		return recordKeys(t.elem, depth+1)
	case *AltType:
		var out []string
		for _, a := range t.alts {
			out = append(out, recordKeys(a, depth+1)...)
		}
		return out
	case *MapType:
		return recordKeys(t.val, depth+1)
	}
	return nil
}
