package luaapi

import (
	"slices"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// A spec is most often pure data: `return { ... }` of table constructors,
// strings, numbers and booleans, often generated, often megabytes. For
// such a chunk gopher-lua's parser, compiler and VM build an AST, a
// function with one constant per distinct string and then the tables: 60%
// of a plan's time for 5,000 topics and 10,000 ACLs (docs/benchmarks.md,
// workload PL). literalSpec reads that subset straight into the tables the
// chunk would return, with their lines. Anything outside it (a local, a
// call such as kafka.env, an expression, an escape in a string, a long
// string, a hex or octal-looking number, a nil, a numeric key, a key
// given twice) makes it give up, and the chunk is evaluated as Lua
// (spec_sandbox.go): the fast path never decides what a spec means, it
// only skips work when the answer is certain (FuzzLiteralSpecAgreesWithLua
// holds it to that).

// maxLiteralDepth bounds the nesting literalSpec follows; a deeper spec is
// left to the Lua parser (and its own limits).
const maxLiteralDepth = 100

type literalReader struct {
	L    *lua.LState
	src  []byte
	pos  int
	line int
	// strs interns strings: a spec repeats its keys and values thousands
	// of times, and each LString would otherwise be its own allocation.
	strs   map[string]lua.LValue
	fields []literalField // the fields of the tables being read, innermost last
	locs   []loc          // newLoc's slab
}

// literalSpec returns the value and location tree of src when it is a
// data-only chunk, ok false otherwise (then nothing is known about src).
func literalSpec(L *lua.LState, src []byte) (v lua.LValue, where *loc, ok bool) {
	r := &literalReader{L: L, src: src, line: 1, strs: map[string]lua.LValue{}}
	if !r.skipSpace() || r.ident() != "return" || !r.skipSpace() || r.peek() != '{' {
		return nil, nil, false
	}
	v, where, ok = r.value(0)
	if !ok || !r.skipSpace() {
		return nil, nil, false
	}
	if r.peek() == ';' {
		r.pos++
		if !r.skipSpace() {
			return nil, nil, false
		}
	}
	if r.pos != len(r.src) {
		return nil, nil, false
	}
	return v, where, true
}

func (r *literalReader) peek() byte {
	if r.pos < len(r.src) {
		return r.src[r.pos]
	}
	return 0
}

// skipSpace steps over white space and comments; false for what it cannot
// be sure of (a long comment, which may nest levels, and "--[" lines).
func (r *literalReader) skipSpace() bool {
	for r.pos < len(r.src) {
		switch c := r.src[r.pos]; c {
		case '\n', '\r':
			// gopher-lua counts "\r\n", "\n\r" and a lone "\r" as one
			// line each; only the plain and the Windows ends are read here.
			if c == '\r' && (r.pos+1 >= len(r.src) || r.src[r.pos+1] != '\n') ||
				c == '\n' && r.pos+1 < len(r.src) && r.src[r.pos+1] == '\r' {
				return false
			}
			if c == '\r' {
				r.pos++
			}
			r.line++
			r.pos++
		case ' ', '\t':
			r.pos++
		case '-':
			if r.pos+1 >= len(r.src) || r.src[r.pos+1] != '-' {
				return true
			}
			if r.pos+2 < len(r.src) && r.src[r.pos+2] == '[' {
				return false // possibly a long comment
			}
			for r.pos < len(r.src) && r.src[r.pos] != '\n' && r.src[r.pos] != '\r' {
				r.pos++
			}
		default:
			return c != '\v' && c != '\f'
		}
	}
	return true
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }

// ident reads a name ("" when there is none).
func (r *literalReader) ident() string {
	start := r.pos
	if r.pos < len(r.src) && isIdentStart(r.src[r.pos]) {
		for r.pos < len(r.src) && (isIdentStart(r.src[r.pos]) || isDigit(r.src[r.pos])) {
			r.pos++
		}
	}
	if v, ok := r.strs[string(r.src[start:r.pos])]; ok { // no copy to look up
		return string(v.(lua.LString))
	}
	s := string(r.src[start:r.pos])
	r.strs[s] = lua.LString(s)
	return s
}

func (r *literalReader) value(depth int) (lua.LValue, *loc, bool) {
	if !r.skipSpace() {
		return nil, nil, false
	}
	l := r.newLoc(r.line)
	switch c := r.peek(); {
	case c == '{':
		if depth >= maxLiteralDepth {
			return nil, nil, false
		}
		t, ok := r.table(l, depth)
		return t, l, ok
	case c == '"' || c == '\'':
		s, ok := r.str()
		return s, l, ok && r.wordEnds()
	case isDigit(c):
		n, ok := r.number()
		return n, l, ok
	case c == '-':
		r.pos++
		if !r.skipSpace() || !isDigit(r.peek()) {
			return nil, nil, false
		}
		l.line = r.line // the number's line, as the parser gives it
		n, ok := r.number()
		return -n, l, ok
	case isIdentStart(c):
		switch r.ident() {
		case "true":
			return lua.LTrue, l, r.wordEnds()
		case "false":
			return lua.LFalse, l, r.wordEnds()
		}
	}
	return nil, nil, false
}

// wordEnds is whether what follows a value can end it here: a name or a
// call right after it would make it another expression.
func (r *literalReader) wordEnds() bool {
	if !r.skipSpace() {
		return false
	}
	switch r.peek() {
	case ',', ';', '}':
		return true
	}
	return r.pos == len(r.src)
}

func (r *literalReader) table(l *loc, depth int) (lua.LValue, bool) {
	r.pos++ // {
	// The fields are gathered first (on a stack shared by every table)
	// so that the table and its location map are made at their size.
	base := len(r.fields)
	defer func() { r.fields = r.fields[:base] }()
	narr := 0
	for {
		if !r.skipSpace() {
			return nil, false
		}
		if r.peek() == '}' {
			r.pos++
			break
		}
		f := literalField{}
		switch c := r.peek(); {
		case isIdentStart(c):
			save, saveLine := r.pos, r.line
			name := r.ident()
			if !r.skipSpace() {
				return nil, false
			}
			if r.peek() == '=' && r.pos+1 < len(r.src) && r.src[r.pos+1] != '=' {
				if slices.Contains(luaKeywords, name) { // {end = 1} is a syntax error
					return nil, false
				}
				f.key, f.keyed = name, true
				r.pos++
			} else {
				r.pos, r.line = save, saveLine // a positional true or false
			}
		case c == '[':
			r.pos++
			if !r.skipSpace() || (r.peek() != '"' && r.peek() != '\'') {
				return nil, false // a long string, or a key that is not a string
			}
			s, ok := r.str()
			if !ok || !r.skipSpace() || r.peek() != ']' {
				return nil, false
			}
			r.pos++
			if !r.skipSpace() || r.peek() != '=' || (r.pos+1 < len(r.src) && r.src[r.pos+1] == '=') {
				return nil, false
			}
			r.pos++
			f.key, f.keyed = string(s.(lua.LString)), true
		}
		var ok bool
		if f.v, f.l, ok = r.value(depth + 1); !ok {
			return nil, false
		}
		if !f.keyed {
			narr++
		}
		r.fields = append(r.fields, f)
		switch r.peek() { // wordEnds or the readers left it on a separator
		case ',', ';':
			r.pos++
		case '}':
		default:
			return nil, false
		}
	}
	fields := r.fields[base:]
	t := r.L.CreateTable(narr, len(fields)-narr)
	if narr > 0 {
		l.items = make([]*loc, 0, narr)
	}
	if len(fields) > narr {
		l.kids = make(map[string]*loc, len(fields)-narr)
	}
	for _, f := range fields {
		if !f.keyed {
			t.Append(f.v)
			l.items = append(l.items, f.l)
		} else {
			if _, dup := l.kids[f.key]; dup {
				return nil, false // a key given twice: the Lua path refuses it, with both lines
			}
			t.RawSetString(f.key, f.v)
			l.kids[f.key] = f.l
		}
	}
	return t, r.wordEnds()
}

// literalField is one field of a table being read.
type literalField struct {
	key   string
	keyed bool
	v     lua.LValue
	l     *loc
}

// newLoc hands out locations from a slab: a spec has one per value.
func (r *literalReader) newLoc(line int) *loc {
	if len(r.locs) == cap(r.locs) {
		r.locs = make([]loc, 0, 1024)
	}
	r.locs = append(r.locs, loc{line: line})
	return &r.locs[len(r.locs)-1]
}

// str reads a short string without escapes (any backslash gives up).
func (r *literalReader) str() (lua.LValue, bool) {
	q := r.src[r.pos]
	start := r.pos + 1
	for i := start; i < len(r.src); i++ {
		switch r.src[i] {
		case q:
			r.pos = i + 1
			raw := r.src[start:i]
			v, ok := r.strs[string(raw)]
			if !ok {
				v = lua.LString(raw)
				r.strs[string(raw)] = v
			}
			return v, true
		case '\\', '\n', '\r':
			return nil, false
		}
	}
	return nil, false
}

// number reads a decimal number as gopher-lua converts it. A leading zero
// before more digits gives up: gopher-lua reads "010" as octal.
func (r *literalReader) number() (lua.LNumber, bool) {
	start := r.pos
	for r.pos < len(r.src) && isDigit(r.src[r.pos]) {
		r.pos++
	}
	if r.pos-start > 1 && r.src[start] == '0' {
		return 0, false
	}
	if r.peek() == '.' {
		r.pos++
		for r.pos < len(r.src) && isDigit(r.src[r.pos]) {
			r.pos++
		}
	}
	if c := r.peek(); c == 'e' || c == 'E' {
		r.pos++
		if c := r.peek(); c == '+' || c == '-' {
			r.pos++
		}
		if !isDigit(r.peek()) {
			return 0, false
		}
		for r.pos < len(r.src) && isDigit(r.src[r.pos]) {
			r.pos++
		}
	}
	if c := r.peek(); isIdentStart(c) || c == '.' {
		return 0, false
	}
	text := string(r.src[start:r.pos])
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return lua.LNumber(i), r.wordEnds()
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, false
	}
	return lua.LNumber(f), r.wordEnds()
}
