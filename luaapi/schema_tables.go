package luaapi

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// ---- arrays

// ListType reads a Lua array of one element type into a Go slice. With
// Single, a lone element (a string where an array of strings goes, a
// record where an array of records goes) is read as a one-element array.
type ListType struct {
	elem    Type
	item    string // the name of one element in errors: "spec" gives "spec #2"
	single  bool
	min     int
	collect func([]any) any
	then    func(items any, at string) (any, error)
}

// List reads an array of elem into []T; a lone element that elem accepts
// and that is not itself an array is a one-element list.
func List[T any](elem Type) *ListType {
	return &ListType{elem: elem, single: true, collect: func(xs []any) any {
		out := make([]T, len(xs))
		for i, x := range xs {
			out[i] = x.(T)
		}
		return out
	}}
}

// Items gives a copy of l whose elements are named noun in errors ("spec #2").
func (l *ListType) Items(noun string) *ListType { c := *l; c.item = noun; return &c }

// NonEmpty gives a copy of l that needs at least one element.
func (l *ListType) NonEmpty() *ListType { c := *l; c.min = 1; return &c }

// Then gives a copy of l that passes the read slice through check, for
// rules over the whole list (a partition given twice).
func (l *ListType) Then(check func(items any, at string) (any, error)) *ListType {
	c := *l
	c.then = check
	return &c
}

// ArrayOnly gives a copy of l that refuses a lone element.
func (l *ListType) ArrayOnly() *ListType { c := *l; c.single = false; return &c }

func (l *ListType) Doc() string {
	if l.single {
		return l.elem.Doc() + ", or an array of them"
	}
	return "array of " + l.elem.Doc()
}

func (l *ListType) sample() string { return "{" + l.elem.sample() + "}" }

func (l *ListType) accepts(v lua.LValue) bool {
	return isTable(v) || (l.single && l.elem.accepts(v))
}

func (l *ListType) read(r *reader, v lua.LValue, at string) (any, error) {
	t, isT := v.(*lua.LTable)
	if !isT || (l.single && !looksLikeArray(t) && l.elem.accepts(v)) {
		if !l.single || !l.elem.accepts(v) {
			return nil, argErr(at, "must be %s, got %s", aOrAn(l.Doc()), describe(v))
		}
		x, err := l.elem.read(r, v, l.itemPath(r, at, 1, true))
		if err != nil {
			return nil, err
		}
		return l.finish([]any{x}, at)
	}
	if err := r.enter(t, at); err != nil {
		return nil, err
	}
	defer r.leave(t)
	if err := onlyArray(t, at); err != nil {
		return nil, err
	}
	n := t.Len()
	if n < l.min {
		return nil, argErr(at, "must name at least one")
	}
	xs := make([]any, n)
	for i := 1; i <= n; i++ {
		x, err := l.elem.read(r, t.RawGetInt(i), l.itemPath(r, at, i, false))
		if err != nil {
			return nil, err
		}
		xs[i-1] = x
	}
	return l.finish(xs, at)
}

func (l *ListType) finish(xs []any, at string) (any, error) {
	out := l.collect(xs)
	if l.then != nil {
		return l.then(out, at)
	}
	return out, nil
}

// itemPath is itemAt, or "" when r builds no paths.
func (l *ListType) itemPath(r *reader, at string, i int, single bool) string {
	if r.unnamed {
		return ""
	}
	return l.itemAt(at, i, single)
}

func (l *ListType) itemAt(at string, i int, single bool) string {
	switch {
	case l.item != "":
		return l.item + " #" + strconv.Itoa(i)
	case single:
		return at
	}
	return at + " #" + strconv.Itoa(i)
}

// looksLikeArray: a table with no string keys (an empty table is an array).
func looksLikeArray(t *lua.LTable) bool {
	if _, others := t.KeyCounts(); others == 0 {
		return true
	}
	k, _ := t.Next(lua.LNil)
	for k != lua.LNil {
		if _, s := k.(lua.LString); s {
			return false
		}
		k, _ = t.Next(k)
	}
	return true
}

// onlyArray rejects tables with keys other than 1..n (a common slip:
// passing {topic="x"} where {"x"} was meant).
func onlyArray(t *lua.LTable, where string) error {
	n := t.Len()
	if values, others := t.KeyCounts(); others == 0 && values == n {
		return nil
	}
	var bad lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		if bad != nil {
			return
		}
		if num, ok := k.(lua.LNumber); ok && float64(num) == math.Trunc(float64(num)) && int(num) >= 1 && int(num) <= n {
			return
		}
		bad = k
	})
	if bad != nil {
		return argErr(where, "must be an array, found key %s", describe(bad))
	}
	return nil
}

// ---- maps

// MapType reads a table of key = value into a Go map.
type MapType struct {
	key, val Type
	min      int
	doc      string
	put      func(m any, k, v any) any
}

// MapOf reads {key = value} into map[K]V; keys are read with key (a
// string or integer type), values with val.
func MapOf[K comparable, V any](key, val Type) *MapType {
	return &MapType{key: key, val: val, put: func(m, k, v any) any {
		mm, _ := m.(map[K]V)
		if mm == nil {
			mm = map[K]V{}
		}
		if k != nil {
			mm[k.(K)] = v.(V)
		}
		return mm
	}}
}

// NonEmpty gives a copy of m that needs at least one entry.
func (m *MapType) NonEmpty() *MapType { c := *m; c.min = 1; return &c }

// Described gives a copy of m with its own description ("{topic = total_count}").
func (m *MapType) Described(doc string) *MapType { c := *m; c.doc = doc; return &c }

func (m *MapType) Doc() string {
	if m.doc != "" {
		return m.doc
	}
	return fmt.Sprintf("table of %s = %s", m.key.Doc(), m.val.Doc())
}

func (m *MapType) sample() string { return "{[" + m.key.sample() + "] = " + m.val.sample() + "}" }

func (m *MapType) accepts(v lua.LValue) bool { return isTable(v) }

func (m *MapType) read(r *reader, v lua.LValue, at string) (any, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr(at, "must be %s, got %s", aOrAn(m.Doc()), describe(v))
	}
	if err := r.enter(t, at); err != nil {
		return nil, err
	}
	defer r.leave(t)
	var out any = m.put(nil, nil, nil) // nil, nil: an empty map of the right type
	var err error
	n := 0
	for _, k := range sortedTableKeys(t) {
		var keyAt, valAt string
		if !r.unnamed {
			keyAt, valAt = subPath(at, "key "+lua.LVAsString(k)), subPath(at, lua.LVAsString(k))
		}
		kv, kerr := m.key.read(r, k, keyAt)
		if kerr != nil {
			err = kerr
			break
		}
		vv, verr := m.val.read(r, t.RawGet(k), valAt)
		if verr != nil {
			err = verr
			break
		}
		out = m.put(out, kv, vv)
		n++
	}
	if err != nil {
		return nil, err
	}
	if n < m.min {
		return nil, argErr(at, "must name at least one")
	}
	return out, nil
}

// sortedTableKeys gives t's keys in a stable order (errors name the same
// key each run): numbers first, then strings, each sorted.
func sortedTableKeys(t *lua.LTable) []lua.LValue {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	slices.SortFunc(keys, func(a, b lua.LValue) int {
		an, aNum := a.(lua.LNumber)
		bn, bNum := b.(lua.LNumber)
		switch {
		case aNum && bNum:
			return cmpFloat(float64(an), float64(bn))
		case aNum:
			return -1
		case bNum:
			return 1
		}
		return strings.Compare(lua.LVAsString(a), lua.LVAsString(b))
	})
	return keys
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ---- alternatives

// AltType reads a value with the first alternative whose Lua type fits
// (a topic name or a spec table).
type AltType struct {
	alts []Type
	doc  string
}

// OneOf picks among alternatives by the value's Lua type.
func OneOf(alts ...Type) *AltType { return &AltType{alts: alts} }

// Described gives a copy of a with its own description.
func (a *AltType) Described(doc string) *AltType { c := *a; c.doc = doc; return &c }

func (a *AltType) Doc() string {
	if a.doc != "" {
		return a.doc
	}
	var docs []string
	for _, t := range a.alts {
		docs = append(docs, t.Doc())
	}
	return orList(docs)
}

func (a *AltType) sample() string { return a.alts[0].sample() }

func (a *AltType) accepts(v lua.LValue) bool {
	return slices.ContainsFunc(a.alts, func(t Type) bool { return t.accepts(v) })
}

func (a *AltType) read(r *reader, v lua.LValue, at string) (any, error) {
	for _, t := range a.alts {
		if t.accepts(v) {
			return t.read(r, v, at)
		}
	}
	return nil, argErr(at, "must be %s, got %s", aOrAn(a.Doc()), describe(v))
}

// aOrAn puts an article before a type description that needs one.
func aOrAn(doc string) string {
	if doc == "" || strings.HasPrefix(doc, "{") || strings.HasPrefix(doc, "one of") {
		return doc
	}
	if strings.ContainsRune("aeiou", rune(doc[0])) {
		return "an " + doc
	}
	return "a " + doc
}
