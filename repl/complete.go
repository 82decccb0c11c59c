package repl

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

var luaKeywords = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
	"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

// Complete completes the word before byte offset pos of line against the
// Lua state, without running any Lua code: a global name (or keyword), a
// table field after `.` (`kafka.js` -> `kafka.json`), or a method after `:`
// (`c:list_` -> the client's methods, from its metatable's __index table).
// It returns the full candidate words, sorted, and how many bytes of each
// are already typed (the word's prefix).
func Complete(L *lua.LState, line string, pos int) ([]string, int) {
	if pos < 0 || pos > len(line) {
		pos = len(line)
	}
	before := line[:pos]
	start := len(before)
	for start > 0 && isExprByte(before[start-1]) {
		start--
	}
	expr := before[start:]
	if inString(before[:start]) || (expr != "" && expr[0] >= '0' && expr[0] <= '9') {
		return nil, 0
	}
	cut := strings.LastIndexAny(expr, ".:")
	partial := expr[cut+1:]
	var names []string
	if cut < 0 {
		names = fieldNames(L.G.Global, false)
		names = append(names, luaKeywords...)
		// Inside a call's table argument the declared keys come first in
		// mind: create_topics({{na<Tab> -> name.
		if fn := enclosingCall(before[:start]); fn != "" {
			names = append(names, luaapi.ArgKeys(fn)...)
		}
	} else {
		base := resolve(L, expr[:cut])
		if base == nil {
			return nil, 0
		}
		names = fieldNames(base, expr[cut] == ':')
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, partial) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), len(partial)
}

// enclosingCall returns the name of the function whose argument list s
// ends inside, when s ends inside a table constructor there
// (`create_topics({"x"}, {va` or `reset_offsets{gr`); "" otherwise.
func enclosingCall(s string) string {
	depth := 0 // unclosed braces met walking back
	inTable := false
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '}', ')':
			depth++
		case '{':
			if depth > 0 {
				depth--
				continue
			}
			inTable = true
			if name := nameBefore(s[:i]); name != "" && !strings.HasSuffix(strings.TrimRight(s[:i], " "), "(") {
				return name // fn{...}
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			if !inTable {
				return ""
			}
			return nameBefore(s[:i])
		}
	}
	return ""
}

// nameBefore is the dotted name (kafka.connect, c:lag) s ends with.
func nameBefore(s string) string {
	s = strings.TrimRight(s, " ")
	i := len(s)
	for i > 0 && isExprByte(s[i-1]) {
		i--
	}
	return s[i:]
}

func isExprByte(c byte) bool {
	return c == '_' || c == '.' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inString reports whether s ends inside a string literal (so `"kafka.j`
// completes nothing).
func inString(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		}
	}
	return quote != 0
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
		cur = rawIndex(t, part)
	}
	t, _ := cur.(*lua.LTable)
	return t
}

// rawIndex is t[k] through raw reads and __index tables (at most a few
// levels, in case of a cycle).
func rawIndex(t *lua.LTable, k string) lua.LValue {
	for range 8 {
		if v := t.RawGetString(k); v != lua.LNil {
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
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
