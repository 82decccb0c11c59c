package repl

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Where the cursor is, read from the tokens before it: inside which call's
// arguments (callContext), at the end of which indexing chain (chain).

// callSite is the call whose arguments the cursor is in: the called
// expression ("lag", "c:lag", "kafka.default:lag") and the path from its
// argument list to the cursor.
type callSite struct {
	callee string
	path   []luaapi.Step
	inKey  bool // the cursor is where a table key may go (not after key =)
}

// receiver is the expression the callee is a field of ("c" in c:lag), ""
// for a global function.
func (c callSite) receiver() string {
	if i := strings.LastIndexAny(c.callee, ".:"); i >= 0 {
		return c.callee[:i]
	}
	return ""
}

type frame struct {
	open      string // "(", "{" or "["
	callee    string // "(": the called expression; "" for parentheses that are no call
	synthetic bool   // "(": the call fn{...} or fn"..." makes, with no parenthesis of its own
	arg       int    // "(": the argument the cursor is in (1-based)
	items     int    // "{": positional items before the current one
	key       string // "{": the current item's key, if it has one
	keyed     bool   // "{": the current item has its key (key = ...)
}

// callContext finds the call toks (the input before the word at the
// cursor) end inside; ok is false when they end inside none, or inside an
// index or parentheses within it.
func callContext(toks []token) (callSite, bool) {
	var stack []*frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	for i, t := range toks {
		f := top()
		switch {
		case t.is("("):
			stack = append(stack, &frame{open: "(", callee: calleeBefore(toks, i), arg: 1})
		case t.is("{"):
			if callee := calleeBefore(toks, i); callee != "" {
				stack = append(stack, &frame{open: "(", callee: callee, arg: 1, synthetic: true})
			}
			stack = append(stack, &frame{open: "{"})
		case t.is("["):
			stack = append(stack, &frame{open: "["})
		case t.is(")"), t.is("]"), t.is("}"):
			want := map[string]string{")": "(", "]": "[", "}": "{"}[t.text]
			if f == nil || f.open != want || f.synthetic {
				return callSite{}, false
			}
			stack = stack[:len(stack)-1]
			if f := top(); t.text == "}" && f != nil && f.synthetic {
				stack = stack[:len(stack)-1]
			}
		case f == nil:
		case t.is(",") || t.is(";"):
			switch f.open {
			case "(":
				f.arg++
			case "{":
				if !f.keyed {
					f.items++
				}
				f.key, f.keyed = "", false
			}
		case t.is("=") && f.open == "{" && !f.keyed:
			f.key, f.keyed = tableKey(toks, i)
		}
	}
	// The innermost call, with only table constructors above it.
	k := len(stack) - 1
	for k >= 0 && stack[k].open == "{" {
		k--
	}
	if k < 0 || stack[k].open != "(" || stack[k].callee == "" {
		return callSite{}, false
	}
	site := callSite{callee: stack[k].callee, path: []luaapi.Step{luaapi.Arg(stack[k].arg)}}
	for _, f := range stack[k+1:] {
		switch {
		case f.key != "":
			site.path = append(site.path, luaapi.Key(f.key))
		case f.keyed: // [1] = or [x] =: a key that is not a name
			return callSite{}, false
		default:
			site.path = append(site.path, luaapi.Item(f.items+1))
		}
	}
	if last := stack[len(stack)-1]; last.open == "{" && !last.keyed {
		site.inKey = true
	}
	return site, true
}

// tableKey reads the key before the `=` at toks[i] in a table
// constructor: `name =` or `["name"] =`. keyed is false when the `=` is
// not a key's (an assignment inside a function body, say).
func tableKey(toks []token, i int) (key string, keyed bool) {
	after := func(j int) bool { return j < 0 || toks[j].is("{") || toks[j].is(",") || toks[j].is(";") }
	switch {
	case i >= 1 && toks[i-1].kind == tName && after(i-2):
		return toks[i-1].text, true
	case i >= 3 && toks[i-1].is("]") && toks[i-3].is("[") && after(i-4):
		if toks[i-2].kind == tString {
			return toks[i-2].text, true
		}
		return "", true
	}
	return "", false
}

// calleeBefore is the dotted name (kafka.default:lag) that toks[i], an
// opening bracket or a string, is the call of; "" when it is no call.
func calleeBefore(toks []token, i int) string {
	j := i - 1
	if j < 0 || toks[j].kind != tName || isKeyword(toks[j].text) {
		return ""
	}
	for j >= 2 && (toks[j-1].is(".") || toks[j-1].is(":")) && toks[j-2].kind == tName {
		j -= 2
	}
	if j >= 1 && toks[j-1].kind == tName && toks[j-1].text == "function" {
		return "" // function name(...): a definition
	}
	var b strings.Builder
	for _, t := range toks[j:i] {
		b.WriteString(t.text)
	}
	return b.String()
}

// ---- indexing chains

// link is one step of an expression like describe_topics{"x"}[1].partitions.
type link struct {
	name   string     // a field (.name or :name); for the first link, the global
	key    lua.LValue // an index with a literal key ([1], ["x"])
	call   bool       // a call (its arguments are not looked at)
	method bool       // :name
}

// chainBefore reads the expression ending at toks[end-1] back to its first
// name: only names, literal indexes and calls. ok is false for anything
// else (an index with a variable, an expression in parentheses).
func chainBefore(toks []token, end int) ([]link, bool) {
	var rev []link
	i := end - 1
	for {
		if i < 0 {
			return nil, false
		}
		t := toks[i]
		switch {
		case t.kind == tName && !isKeyword(t.text):
			l := link{name: t.text}
			if i >= 1 && (toks[i-1].is(".") || toks[i-1].is(":")) {
				l.method = toks[i-1].is(":")
				rev = append(rev, l)
				i -= 2
				continue
			}
			rev = append(rev, l)
			for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
				rev[a], rev[b] = rev[b], rev[a]
			}
			return rev, true
		case t.is("]"):
			if i < 2 || !toks[i-2].is("[") {
				return nil, false
			}
			lit := toks[i-1]
			switch lit.kind {
			case tString:
				rev = append(rev, link{key: lua.LString(lit.text)})
			case tNumber:
				n, err := strconv.ParseFloat(lit.text, 64)
				if err != nil {
					return nil, false
				}
				rev = append(rev, link{key: lua.LNumber(n)})
			default:
				return nil, false
			}
			i -= 3
		case t.is(")") || t.is("}"):
			j := openerOf(toks, i)
			if j < 1 || toks[j-1].kind != tName && !toks[j-1].is("]") && !toks[j-1].is(")") {
				return nil, false
			}
			rev = append(rev, link{call: true})
			i = j - 1
		case t.kind == tString && i >= 1 && toks[i-1].kind == tName:
			rev = append(rev, link{call: true})
			i--
		default:
			return nil, false
		}
	}
}

// openerOf finds the bracket that the closing one at toks[i] closes.
func openerOf(toks []token, i int) int {
	depth := 0
	for j := i; j >= 0; j-- {
		switch {
		case toks[j].is(")") || toks[j].is("}") || toks[j].is("]"):
			depth++
		case toks[j].is("(") || toks[j].is("{") || toks[j].is("["):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
