package output

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The rows of one result are tables of one record type: the same keys,
// which luaapi's converter sets in key order from the very same strings.
// Merging each row's keys with the declared fields (objectPairs: collect,
// check the order, merge) was a fifth of printing 1,000 peeked records as
// JSON. A recordLayout keeps the last merge at a depth; a row whose keys
// come in the same order as the last one's (compared with ==, which finds
// the same string at once) reuses it with its own values.

type recordLayout struct {
	shape *Shape
	keys  []string   // the row's keys in the order Next gave them
	at    []int      // where each of them is in pairs
	pairs []jsonPair // the merged pairs, missing fields as null
}

// reuse gives t's pairs from the last layout, with t's values, in dst;
// ok false when t is not laid out as the last row was (then dst is
// unchanged but for its length).
func (l *recordLayout) reuse(dst []jsonPair, t *lua.LTable, s *Shape) ([]jsonPair, bool) {
	if l.shape == nil || l.shape != s {
		return dst, false
	}
	out := append(dst[:0], l.pairs...)
	i := 0
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		ks, isString := k.(lua.LString)
		if !isString || i == len(l.keys) || string(ks) != l.keys[i] {
			return dst[:0], false
		}
		p := &out[l.at[i]]
		p.lkey, p.val = k, v
		i++
	}
	if i != len(l.keys) {
		return dst[:0], false
	}
	return out, true
}

// remember keeps how t's keys merged into pairs (objectPairs' answer for
// t), for a record shape whose rows came sorted: the common case, and the
// one where the order Next gives is the merged order less the missing
// fields.
func (l *recordLayout) remember(pairs []jsonPair, t *lua.LTable, s *Shape) {
	l.shape = nil
	if !s.Is(KindRecord) {
		return
	}
	l.keys, l.at = l.keys[:0], l.at[:0]
	j := 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		ks, isString := k.(lua.LString)
		for isString && j < len(pairs) && pairs[j].key != string(ks) {
			j++
		}
		if !isString || j == len(pairs) {
			return // not in merged order: no layout
		}
		l.keys, l.at = append(l.keys, string(ks)), append(l.at, j)
		j++
	}
	l.pairs = append(l.pairs[:0], pairs...)
	for i := range l.pairs {
		var b strings.Builder
		WriteJSONString(&b, l.pairs[i].key)
		l.pairs[i].quoted = b.String()
	}
	l.shape = s
}
