package repl

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Names gives the names of one kind the cluster behind a call has: recv
// is the client object whose method is called (c in c:lag), nil for a
// global function (the default cluster). It must return quickly (the
// session's cache: completion_cache.go).
type Names func(recv lua.LValue, kind luaapi.NameKind) []string

// Complete completes the word before byte offset pos of line from the Lua
// state and the declarations alone, without running any Lua code: a global
// name (or keyword); a table field after `.` (`kafka.js` -> `kafka.json`);
// a method after `:` (`c:list_` -> the client's methods, from its
// metatable's __index table); a field of an indexed value
// (`t.partitions[1].` reads t's tables, `list_topics()[1].` the declared
// result of list_topics, which is not called); the keys a call's tables
// take, and the values a string argument takes when it is one of a fixed
// set (`describe_acls{operation="re` -> read). It returns the full
// candidate words, sorted, and how many bytes of each are already typed.
func Complete(L *lua.LState, line string, pos int) ([]string, int) {
	return CompleteWith(L, nil, line, pos)
}

// CompleteWith is Complete with names from the cluster: inside a string
// where a call's declaration takes a topic, a group or a principal
// (`lag("bil`, `describe_topics{"ord`), and where it takes a broker id.
// names nil completes none.
func CompleteWith(L *lua.LState, names Names, line string, pos int) ([]string, int) {
	if pos < 0 || pos > len(line) {
		pos = len(line)
	}
	before := line[:pos]
	toks, inComment := lex(before)
	if inComment {
		return nil, 0
	}
	n := len(toks)
	if n > 0 && toks[n-1].kind == tOpenString {
		return completeString(L, names, toks)
	}
	partial, end := "", n
	number := false
	if n > 0 && toks[n-1].end == len(before) && (toks[n-1].kind == tName || toks[n-1].kind == tNumber) {
		partial, end, number = toks[n-1].text, n-1, toks[n-1].kind == tNumber
	}
	if end > 0 && (toks[end-1].is(".") || toks[end-1].is(":")) {
		if number {
			return nil, 0
		}
		return matching(members(L, toks, end-1), partial)
	}
	site, inCall := callContext(toks[:end])
	if (number || partial == "") && inCall && names != nil &&
		luaapi.ExpectedAt(site.callee, site.path).Kind == luaapi.NameBroker {
		return matching(clusterNames(L, names, site, luaapi.NameBroker), partial)
	}
	if number {
		return nil, 0
	}
	cands := append(fieldNames(L.G.Global, false), luaKeywords...)
	// Inside a call's table argument the declared keys come first in
	// mind: create_topics({{na<Tab> -> name.
	if inCall && site.inKey {
		cands = append(cands, luaapi.ArgKeys(site.callee)...)
		// A map whose keys are names from the cluster (alter_configs'
		// set = {ret<Tab>): the names as bracketed keys, since
		// "retention.ms" is no Lua identifier.
		if kind := luaapi.KeyExpectedAt(site.callee, site.path).Kind; kind != "" && names != nil && partial != "" {
			var keys []string
			for _, n := range clusterNames(L, names, site, kind) {
				if strings.HasPrefix(n, partial) {
					keys = append(keys, `["`+luaQuoted(n, '"')+`"]`)
				}
			}
			if len(keys) > 0 {
				slices.Sort(keys)
				return slices.Compact(keys), len(partial)
			}
		}
	}
	return matching(cands, partial)
}

// matching keeps the candidates that start with partial, sorted once each.
func matching(cands []string, partial string) ([]string, int) {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, partial) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), len(partial)
}

// completeString completes the string literal the input ends inside, when
// it is an argument whose declaration says what it takes.
func completeString(L *lua.LState, names Names, toks []token) ([]string, int) {
	open := toks[len(toks)-1]
	if open.quote == '[' {
		return nil, 0 // a long string: names cannot be escaped there
	}
	site, ok := callContext(toks[:len(toks)-1])
	if callee := calleeBefore(toks, len(toks)-1); callee != "" { // fn"...
		site, ok = callSite{callee: callee, path: []luaapi.Step{luaapi.Arg(1)}}, true
	}
	bracketKey := false
	if n := len(toks); !ok && n >= 2 && toks[n-2].is("[") { // set = {["ret
		site, ok = callContext(toks[:n-2])
		bracketKey = ok && site.inKey
		ok = bracketKey
	}
	if !ok {
		return nil, 0
	}
	exp := luaapi.ExpectedAt(site.callee, site.path)
	if bracketKey {
		exp = luaapi.KeyExpectedAt(site.callee, site.path)
	}
	cands := slices.Clone(exp.Values)
	if exp.Kind != "" && names != nil {
		cands = append(cands, clusterNames(L, names, site, exp.Kind)...)
	}
	for i, c := range cands {
		cands[i] = luaQuoted(c, open.quote)
	}
	out, _ := matching(cands, open.text)
	return out, len(open.text)
}

// clusterNames asks names for the cluster the call at site goes to.
func clusterNames(L *lua.LState, names Names, site callSite, kind luaapi.NameKind) []string {
	var recv lua.LValue
	if r := site.receiver(); r != "" {
		t := resolve(L, r)
		if t == nil {
			return nil
		}
		recv = t
	}
	return names(recv, kind)
}

// luaQuoted is s as it is written inside a Lua string quoted with q: the
// quote, backslashes and what is not printable escaped (\ddd), so a name
// from the cluster neither ends the literal nor drives the terminal.
func luaQuoted(s string, q byte) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f, r >= 0x80 && !unicode.IsPrint(r):
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\%03d`, c)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// members lists what may follow the `.` or `:` at toks[dot].
func members(L *lua.LState, toks []token, dot int) []string {
	links, ok := chainBefore(toks, dot)
	if !ok {
		return nil
	}
	methods := toks[dot].is(":")
	v, shape, ok := evalChain(L, links)
	switch {
	case !ok:
		return nil
	case shape != nil:
		if methods {
			return nil
		}
		return shape.Keys()
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil
	}
	return fieldNames(t, methods)
}

// evalChain follows links from the globals with raw reads (and __index
// tables), never calling anything: a call is followed only to a declared
// function's result shape. It returns the value reached, or its shape when
// the chain went through a call.
func evalChain(L *lua.LState, links []link) (lua.LValue, *luaapi.Shape, bool) {
	var v lua.LValue = L.G.Global
	var shape *luaapi.Shape
	name := "" // the dotted name of the value reached, while it has one
	for _, l := range links {
		switch {
		case l.call:
			fn, ok := v.(*lua.LFunction)
			if shape != nil || !ok || !fn.IsG || name == "" {
				return nil, nil, false
			}
			if shape = luaapi.ResultShape(name); shape == nil {
				return nil, nil, false
			}
			v, name = nil, ""
		case shape != nil:
			switch k := l.key.(type) {
			case nil:
				shape = shape.Field(l.name)
			case lua.LString: // a record's key, or a map's ({[key]={...}})
				if next := shape.Field(string(k)); next != nil || len(shape.Keys()) > 0 {
					shape = next
				} else {
					shape = shape.Elem()
				}
			default: // an array's element
				shape = shape.Elem()
			}
			if shape == nil {
				return nil, nil, false
			}
		default:
			t, ok := v.(*lua.LTable)
			if !ok {
				return nil, nil, false
			}
			if l.key != nil {
				v, name = rawIndex(t, l.key), ""
				continue
			}
			v = rawIndex(t, lua.LString(l.name))
			switch {
			case t == L.G.Global:
				name = l.name
			case name != "" && l.method:
				name += ":" + l.name
			case name != "":
				name += "." + l.name
			}
		}
	}
	return v, shape, true
}

// resolve walks a dotted path (`kafka.json`) from the globals with raw
// reads, following __index tables but never calling functions.
func resolve(L *lua.LState, path string) *lua.LTable {
	if path == "" || strings.Contains(path, ":") {
		return nil
	}
	var cur lua.LValue = L.G.Global
	for _, part := range strings.Split(path, ".") {
		t, ok := cur.(*lua.LTable)
		if !ok || part == "" {
			return nil
		}
		cur = rawIndex(t, lua.LString(part))
	}
	t, _ := cur.(*lua.LTable)
	return t
}

// rawIndex is t[k] through raw reads and __index tables (at most a few
// levels, in case of a cycle).
func rawIndex(t *lua.LTable, k lua.LValue) lua.LValue {
	for range 8 {
		if v := t.RawGet(k); v != lua.LNil {
			return v
		}
		next := indexTable(t)
		if next == nil {
			return lua.LNil
		}
		t = next
	}
	return lua.LNil
}

func indexTable(t *lua.LTable) *lua.LTable {
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok {
		return nil
	}
	idx, _ := mt.RawGetString("__index").(*lua.LTable)
	if idx == t {
		return nil
	}
	return idx
}

// fieldNames lists t's identifier keys and those of its __index tables;
// methods keeps only functions (for `obj:`).
func fieldNames(t *lua.LTable, methods bool) []string {
	var out []string
	for range 8 {
		t.ForEach(func(k, v lua.LValue) {
			s, ok := k.(lua.LString)
			if !ok || !isIdent(string(s)) {
				return
			}
			if _, isFn := v.(*lua.LFunction); methods && !isFn {
				return
			}
			out = append(out, string(s))
		})
		if t = indexTable(t); t == nil {
			break
		}
	}
	return out
}

func isIdent(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}
