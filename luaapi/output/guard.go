package output

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
// these grow without bound (a cyclic table once took 24 GB). Guard is
// the one place that stops them; each converter calls it on the way down.

// Limits of one conversion. Variables so tests can lower them.
var (
	// MaxDepth: deeper nesting than any Kafka result or plan has.
	MaxDepth = 200
	// MaxElements: tables and scalars visited. describe_topics of
	// 200,000 partitions is about 2.5 million.
	MaxElements = 10_000_000
	// MaxBytes: string bytes visited, which is about the size of
	// the output (JSON, Lua, a table, an audit line).
	MaxBytes = 256 << 20
	// MaxGoElements: elements of a value turned into Go maps and slices
	// (luaapi's fromLua), which cost far more memory each than a line of output.
	// A reassignment plan of 200,000 partitions is about 1.4 million.
	MaxGoElements = 4_000_000
)

// Guard tracks one conversion: the tables on the current path (a
// table met again on its own path is a cycle; one met again on another
// path is a shared reference, which is fine), the keys that lead there,
// for messages, and how much of the budgets it has spent.
type Guard struct {
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

func NewGuard(root string) *Guard {
	return &Guard{root: root, maxElems: MaxElements}
}

func (g *Guard) onPath(t *lua.LTable) bool {
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

// Small lowers the element budget for conversions into Go values.
func (g *Guard) Small() *Guard {
	g.maxElems = min(g.maxElems, MaxGoElements)
	return g
}

// Enter steps into the table t, found under key (lua.LNil for the root),
// after its element was counted. Every successful enter is followed by
// Leave(t).
func (g *Guard) Enter(key lua.LValue, t *lua.LTable) error {
	if g.onPath(t) {
		return g.errorAt(key, "cyclic table (it contains itself)")
	}
	if len(g.keys) >= MaxDepth {
		return g.errorAt(key, "nested more than %d tables deep", MaxDepth)
	}
	g.push(key, 0, t)
	return nil
}

// enterIndex is Enter for the table at index i of an array.
func (g *Guard) enterIndex(i int, t *lua.LTable) error {
	if g.onPath(t) || len(g.keys) >= MaxDepth {
		return g.Enter(lua.LNumber(i), t) // refused, with the index in the message
	}
	g.push(nil, i, t)
	return nil
}

func (g *Guard) push(key lua.LValue, idx int, t *lua.LTable) {
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

// Leave steps out of t, the table entered last.
func (g *Guard) Leave(t *lua.LTable) {
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

// Count spends one element, found under key, and n bytes of output. The
// converters count every value, tables included, before writing it.
func (g *Guard) Count(key lua.LValue, n int) error {
	if g.quiet > 0 {
		return nil
	}
	g.elems++
	g.bytes += n
	if g.elems > g.maxElems {
		return g.errorAt(key, "too large to convert (more than %d elements in all)", g.maxElems)
	}
	if g.bytes > MaxBytes {
		return g.errorAt(key, "too large to convert (more than %d MiB of text in all)", MaxBytes>>20)
	}
	return nil
}

// countIndex is count for the value at index i of an array.
func (g *Guard) countIndex(i, n int) error {
	if g.quiet > 0 {
		return nil
	}
	if g.elems+1 > g.maxElems || g.bytes+n > MaxBytes {
		return g.Count(lua.LNumber(i), n) // refused, with the index in the message
	}
	g.elems++
	g.bytes += n
	return nil
}

// AddBytes spends n bytes of output (a key's text) that the next Count
// checks with its value.
func (g *Guard) AddBytes(n int) { g.bytes += n }

// Str counts a string value or key by its length.
func (g *Guard) Str(key lua.LValue, s string) error { return g.Count(key, len(s)) }

// reach counts one element for a writer whose output will be total bytes
// long once the element is written (indentation and punctuation count too).
func (g *Guard) reach(key lua.LValue, total int) error {
	return g.Count(key, max(total-g.bytes, 0))
}

// reachIndex is reach for the value at index i of an array.
func (g *Guard) reachIndex(i, total int) error {
	return g.countIndex(i, max(total-g.bytes, 0))
}

func (g *Guard) errorAt(key lua.LValue, format string, args ...any) error {
	return &ValueError{Path: g.path(key), Reason: fmt.Sprintf(format, args...)}
}

// path renders the keys from the root, with extra appended when not nil:
// value.a[2]["a b"].
func (g *Guard) path(extra lua.LValue) string {
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

// ValueError says where in a value and why it cannot be converted:
// "value.a: cyclic table (it contains itself)".
type ValueError struct {
	Path   string
	Reason string
}

func (e *ValueError) Error() string { return e.Path + ": " + e.Reason }
