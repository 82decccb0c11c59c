package output

import (
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// JSON rules: keys sorted; a sequence is an array and an empty table is []
// unless it came from a Go map or record (then {}); kafka.json.null is null;
// integral numbers print without a fraction. Strings are exact: see
// WriteJSONString.

// EncodeJSON writes v as JSON; indent "" means compact. A value JSON cannot
// hold (a cyclic table, a function, NaN, too deep or too large) is an
// error naming where it is: "value.a: cyclic table (it contains itself)".
func EncodeJSON(v lua.LValue, null lua.LValue, indent string) (string, error) {
	var b strings.Builder
	out := newPrintBuf(&b, 0)
	if err := writeJSON(out, v, null, indent); err != nil {
		return "", err
	}
	if err := out.Flush(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeJSON writes v as JSON to out, as it goes: a million rows need no
// more memory than one.
func writeJSON(out *printBuf, v lua.LValue, null lua.LValue, indent string) error {
	return writeJSONShaped(out, v, nil, null, indent)
}

// writeJSONShaped writes v as JSON with its declared shape s (nil: none):
// a record's declared fields that a row lacks are written as null, so
// that every row has the same keys. The Lua value is not changed.
func writeJSONShaped(out *printBuf, v lua.LValue, s *Shape, null lua.LValue, indent string) error {
	w := &jsonWriter{out: out, null: null, indent: indent, g: NewGuard("value")}
	return w.value(lua.LNil, 0, v, 0, s)
}

// writeNDJSON writes an array as one compact JSON value per line (nothing
// for an empty one), any other value as one line.
func writeNDJSON(out *printBuf, v lua.LValue, s *Shape, null lua.LValue) error {
	t, ok := v.(*lua.LTable)
	if !ok || !IsArray(t) {
		return writeJSONShaped(out, v, s, null, "")
	}
	w := &jsonWriter{out: out, null: null, g: NewGuard("value")}
	if err := w.g.Enter(lua.LNil, t); err != nil {
		return err
	}
	for i := 1; i <= t.Len(); i++ {
		if err := w.value(nil, i, t.RawGetInt(i), 0, s.Elem()); err != nil {
			return err
		}
		out.WriteByte('\n')
	}
	w.g.Leave(t)
	return out.err
}

type jsonWriter struct {
	out    *printBuf
	null   lua.LValue
	indent string
	g      *Guard
	pads   []string     // "\n" and the indentation of each depth
	keys   [][]jsonPair // an object's keys, reused at each depth
	// layouts remember, at each depth, how the last record's keys merged
	// with its shape (recordLayout).
	layouts []recordLayout
	num     []byte
}

type jsonPair struct {
	key   string
	lkey  lua.LValue // the key as the table has it, for paths in errors
	val   lua.LValue
	shape *Shape // the value's declared shape, or nil
	// quoted is the key as JSON writes it, when a recordLayout has it.
	quoted string
}

// value writes v, found under key (under index idx of an array when key
// is nil: an index is boxed only for a message), at nesting depth; s is
// its declared shape, or nil.
func (w *jsonWriter) value(key lua.LValue, idx int, v lua.LValue, depth int, s *Shape) error {
	b := w.out
	size := b.Len()
	if s, ok := v.(lua.LString); ok {
		size += len(s) // before the copy
	}
	var err error
	if key == nil {
		err = w.g.reachIndex(idx, size)
	} else {
		err = w.g.reach(key, size)
	}
	if err != nil {
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
			return w.g.errorAt(keyOf(key, idx), "JSON has no %v", f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			w.num = strconv.AppendInt(w.num[:0], int64(f), 10)
		} else {
			w.num = strconv.AppendFloat(w.num[:0], f, 'g', -1, 64)
		}
		b.Write(w.num)
	case lua.LString:
		WriteJSONString(b, string(v))
	case *lua.LTable:
		if key == nil {
			err = w.g.enterIndex(idx, v)
		} else {
			err = w.g.Enter(key, v)
		}
		if err != nil {
			return err
		}
		if err := w.table(v, depth, s); err != nil {
			return err
		}
		w.g.Leave(v)
	default:
		return w.g.errorAt(keyOf(key, idx), "JSON cannot hold a %s", v.Type())
	}
	return b.err
}

// keyOf is the key a value was found under: key, or the array index idx.
func keyOf(key lua.LValue, idx int) lua.LValue {
	if key == nil {
		return lua.LNumber(idx)
	}
	return key
}

// newline starts a line at depth (nothing when compact).
func (w *jsonWriter) newline(depth int) {
	if w.indent == "" {
		return
	}
	for len(w.pads) <= depth {
		w.pads = append(w.pads, "\n"+strings.Repeat(w.indent, len(w.pads)))
	}
	w.out.WriteString(w.pads[depth])
}

func (w *jsonWriter) table(t *lua.LTable, depth int, s *Shape) error {
	b := w.out
	if IsArray(t) {
		n := t.Len()
		if n == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			w.newline(depth + 1)
			if err := w.value(nil, i, t.RawGetInt(i), depth+1, s.Elem()); err != nil {
				return err
			}
		}
		w.newline(depth)
		b.WriteByte(']')
		return nil
	}
	for len(w.keys) <= depth {
		w.keys = append(w.keys, nil)
	}
	for len(w.layouts) <= depth {
		w.layouts = append(w.layouts, recordLayout{})
	}
	pairs, ok := w.layouts[depth].reuse(w.keys[depth][:0], t, s)
	var err error
	if !ok {
		pairs, err = objectPairs(w.keys[depth][:0], t, s, w.g, "JSON")
		if err == nil {
			w.layouts[depth].remember(pairs, t, s)
		}
	}
	w.keys[depth] = pairs
	if err != nil {
		return err
	}
	if len(pairs) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteByte('{')
	for i := range pairs {
		// Read from w.keys each time: a nested object at depth+1 may
		// grow w.keys, never this depth's slice.
		p := w.keys[depth][i]
		if i > 0 {
			b.WriteByte(',')
		}
		w.newline(depth + 1)
		if p.quoted != "" {
			b.WriteString(p.quoted)
		} else {
			WriteJSONString(b, p.key)
		}
		b.WriteByte(':')
		if w.indent != "" {
			b.WriteByte(' ')
		}
		if err := w.value(p.lkey, 0, p.val, depth+1, p.shape); err != nil {
			return err
		}
	}
	w.newline(depth)
	b.WriteByte('}')
	return nil
}

// objectPairs appends t's keys and values to dst, sorted by key, with
// their declared shapes and the declared fields t lacks (withDeclared). A
// key that is neither a string nor a number is an error: format (JSON,
// YAML) cannot hold it.
func objectPairs(dst []jsonPair, t *lua.LTable, s *Shape, g *Guard, format string) ([]jsonPair, error) {
	var kerr error
	for k, val := t.Next(lua.LNil); k != lua.LNil; k, val = t.Next(k) {
		switch kk := k.(type) { // k itself is kept: boxing kk again would allocate
		case lua.LString:
			dst = append(dst, jsonPair{string(kk), k, val, nil, ""})
		case lua.LNumber:
			dst = append(dst, jsonPair{kk.String(), k, val, nil, ""})
		default:
			if kerr == nil {
				kerr = g.errorAt(k, "%s cannot hold a %s key", format, k.Type())
			}
		}
	}
	if kerr != nil {
		return dst, kerr
	}
	// Go results come sorted (luaapi's converter sets a record's fields in
	// key order, and a small table keeps its insertion order): checking
	// is a tenth of sorting 1,000 peeked rows.
	if !slices.IsSortedFunc(dst, compareKeys) {
		slices.SortFunc(dst, compareKeys)
	}
	return withDeclared(dst, s), nil
}

func compareKeys(a, b jsonPair) int { return strings.Compare(a.key, b.key) }

// withDeclared gives sorted pairs their declared shapes: a map's values
// its element shape, a record's fields theirs, and a null pair for each
// declared field missing (both lists are sorted: one merge, no lookups).
func withDeclared(pairs []jsonPair, s *Shape) []jsonPair {
	switch {
	case s.Is(KindMap):
		for i := range pairs {
			pairs[i].shape = s.elem
		}
		return pairs
	case !s.Is(KindRecord):
		return pairs
	}
	n, i := len(pairs), 0
	for j, k := range s.sorted {
		for i < n && pairs[i].key < k {
			i++
		}
		if i < n && pairs[i].key == k {
			pairs[i].shape = s.sortedShapes[j]
			continue
		}
		pairs = append(pairs, jsonPair{k, s.sortedKeys[j], lua.LNil, s.sortedShapes[j], ""})
	}
	if len(pairs) > n {
		// Merge the missing fields (appended, sorted) into place from the
		// back: both runs are sorted.
		var few [8]jsonPair
		missing := append(few[:0], pairs[n:]...)
		a, m := n-1, len(missing)-1
		for w := len(pairs) - 1; m >= 0; w-- {
			if a >= 0 && pairs[a].key > missing[m].key {
				pairs[w] = pairs[a]
				a--
			} else {
				pairs[w] = missing[m]
				m--
			}
		}
	}
	return pairs
}
