package luaapi

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Every converter of Lua values (arguments for the audit log and prompts,
// kafka.log, error(tbl), JSON, table and Lua output) walks a value that a
// script built, and a script can build values no output can hold: a table
// that contains itself, nesting thousands deep, or a small table that
// refers to the same big table or string a million times. Walked naively
// these grow without bound (a cyclic table once took 24 GB). valueGuard is
// the one place that stops them; each converter calls it on the way down.

// Limits of one conversion. Variables so tests can lower them.
var (
	// maxValueDepth: deeper nesting than any Kafka result or plan has.
	maxValueDepth = 200
	// maxValueElements: tables and scalars visited. describe_topics of
	// 200,000 partitions is about 2.5 million.
	maxValueElements = 10_000_000
	// maxValueBytes: string bytes visited, which is about the size of
	// the output (JSON, Lua, a table, an audit line).
	maxValueBytes = 256 << 20
	// maxGoElements: elements of a value turned into Go maps and slices
	// (fromLua), which cost far more memory each than a line of output.
	// A reassignment plan of 200,000 partitions is about 1.4 million.
	maxGoElements = 4_000_000
)

// valueGuard tracks one conversion: the tables on the current path (a
// table met again on its own path is a cycle; one met again on another
// path is a shared reference, which is fine), the keys that lead there,
// for messages, and how much of the budgets it has spent.
type valueGuard struct {
	root string // what the value is called in messages: "value", "cfg"
	keys []lua.LValue
	// idxs parallels keys: where a key is nil, the array index it stands
	// for (enterIndex: an index is not boxed unless a message needs it).
	idxs []int
	// The tables on the path: the first ones in a slice searched in
	// place (entering and leaving a table is then no map operation), the
	// deeper ones also in a map.
	tables          []*lua.LTable
	deep            map[*lua.LTable]bool
	elems, maxElems int
	bytes           int
	// quiet > 0: count spends nothing (a printer's second pass over what
	// its first pass counted).
	quiet int
}

// guardScan is how many tables on the path are searched in place.
const guardScan = 16

func newGuard(root string) *valueGuard {
	return &valueGuard{root: root, maxElems: maxValueElements}
}

func (g *valueGuard) onPath(t *lua.LTable) bool {
	if len(g.tables) > guardScan {
		return g.deep[t]
	}
	for _, p := range g.tables {
		if p == t {
			return true
		}
	}
	return false
}

// small lowers the element budget for conversions into Go values.
func (g *valueGuard) small() *valueGuard {
	g.maxElems = min(g.maxElems, maxGoElements)
	return g
}

// enter steps into the table t, found under key (lua.LNil for the root),
// after its element was counted. Every successful enter is followed by
// leave(t).
func (g *valueGuard) enter(key lua.LValue, t *lua.LTable) error {
	if g.onPath(t) {
		return g.errorAt(key, "cyclic table (it contains itself)")
	}
	if len(g.keys) >= maxValueDepth {
		return g.errorAt(key, "nested more than %d tables deep", maxValueDepth)
	}
	g.push(key, 0, t)
	return nil
}

// enterIndex is enter for the table at index i of an array.
func (g *valueGuard) enterIndex(i int, t *lua.LTable) error {
	if g.onPath(t) || len(g.keys) >= maxValueDepth {
		return g.enter(lua.LNumber(i), t) // refused, with the index in the message
	}
	g.push(nil, i, t)
	return nil
}

func (g *valueGuard) push(key lua.LValue, idx int, t *lua.LTable) {
	g.keys = append(g.keys, key)
	g.idxs = append(g.idxs, idx)
	g.tables = append(g.tables, t)
	if len(g.tables) > guardScan {
		if g.deep == nil {
			g.deep = map[*lua.LTable]bool{}
		}
		if len(g.tables) == guardScan+1 {
			for _, p := range g.tables {
				g.deep[p] = true
			}
		}
		g.deep[t] = true
	}
}

// leave steps out of t, the table entered last.
func (g *valueGuard) leave(t *lua.LTable) {
	if len(g.tables) > guardScan {
		delete(g.deep, t)
		if len(g.tables) == guardScan+1 {
			clear(g.deep)
		}
	}
	g.tables = g.tables[:len(g.tables)-1]
	g.keys = g.keys[:len(g.keys)-1]
	g.idxs = g.idxs[:len(g.idxs)-1]
}

// count spends one element, found under key, and n bytes of output. The
// converters count every value, tables included, before writing it.
func (g *valueGuard) count(key lua.LValue, n int) error {
	if g.quiet > 0 {
		return nil
	}
	g.elems++
	g.bytes += n
	if g.elems > g.maxElems {
		return g.errorAt(key, "too large to convert (more than %d elements in all)", g.maxElems)
	}
	if g.bytes > maxValueBytes {
		return g.errorAt(key, "too large to convert (more than %d MiB of text in all)", maxValueBytes>>20)
	}
	return nil
}

// countIndex is count for the value at index i of an array.
func (g *valueGuard) countIndex(i, n int) error {
	if g.quiet > 0 {
		return nil
	}
	if g.elems+1 > g.maxElems || g.bytes+n > maxValueBytes {
		return g.count(lua.LNumber(i), n) // refused, with the index in the message
	}
	g.elems++
	g.bytes += n
	return nil
}

// str counts a string value or key by its length.
func (g *valueGuard) str(key lua.LValue, s string) error { return g.count(key, len(s)) }

// reach counts one element for a writer whose output will be total bytes
// long once the element is written (indentation and punctuation count too).
func (g *valueGuard) reach(key lua.LValue, total int) error {
	return g.count(key, max(total-g.bytes, 0))
}

// reachIndex is reach for the value at index i of an array.
func (g *valueGuard) reachIndex(i, total int) error {
	return g.countIndex(i, max(total-g.bytes, 0))
}

func (g *valueGuard) errorAt(key lua.LValue, format string, args ...any) error {
	return &valueError{Path: g.path(key), Reason: fmt.Sprintf(format, args...)}
}

// path renders the keys from the root, with extra appended when not nil:
// value.a[2]["a b"].
func (g *valueGuard) path(extra lua.LValue) string {
	var b strings.Builder
	b.WriteString(g.root)
	keys := g.keys
	if extra != nil {
		keys = append(keys[:len(keys):len(keys)], extra)
	}
	for i, k := range keys {
		// A deep path shows its two ends: where the value starts and
		// where it went wrong.
		if len(keys) > 16 && i >= 8 && i < len(keys)-8 {
			if i == 8 {
				fmt.Fprintf(&b, "...(%d more)...", len(keys)-16)
			}
			continue
		}
		if k == nil && i < len(g.idxs) { // enterIndex
			b.WriteString("[" + strconv.Itoa(g.idxs[i]) + "]")
			continue
		}
		switch k := k.(type) {
		case *lua.LNilType:
		case lua.LString:
			if isIdent(string(k)) {
				b.WriteString("." + string(k))
			} else {
				b.WriteString("[" + strconv.Quote(string(k)) + "]")
			}
		case lua.LNumber:
			b.WriteString("[" + k.String() + "]")
		default:
			b.WriteString("[" + k.Type().String() + "]")
		}
	}
	return b.String()
}

// valueError says where in a value and why it cannot be converted:
// "value.a: cyclic table (it contains itself)".
type valueError struct {
	Path   string
	Reason string
}

func (e *valueError) Error() string { return e.Path + ": " + e.Reason }
