package meta

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// node is a global or a field of one, as a fresh runtime has it: its
// fields when it is a table (nil: a function or a value).
type node struct {
	fields map[string]*node
	open   bool // any field may be read (arg, a file handle, a table too deep to follow)
}

// maxFieldDepth is how deep the runtime's tables are followed
// (kafka.default.lag is three).
const maxFieldDepth = 3

// Surface is what a fresh runtime offers a script: its globals, with the
// fields of the tables among them (kafka, string, ...), read from a live
// runtime rather than listed: the base library as the runtime trims it
// (no os.exit, no debug), every declared function where it is installed.
type Surface struct {
	globals *node
	// ClientMethods are a client object's methods (kafka.default's).
	ClientMethods []string
}

// LiveSurface builds a runtime with no cluster and reads its globals.
func LiveSurface() *Surface {
	rt := luaapi.New(luaapi.Options{})
	defer rt.Close()
	s := &Surface{globals: tableNode(rt.L.G.Global, 0)}
	if k := s.globals.fields["kafka"]; k != nil {
		if d := k.fields["default"]; d != nil {
			s.ClientMethods = sortedKeys(d.fields)
		}
	}
	return s
}

// tableNode reads t's string keys, and those its __index tables add (the
// built-ins live behind _G's __index, a client's methods behind its own).
func tableNode(t *lua.LTable, depth int) *node {
	n := &node{fields: map[string]*node{}}
	luaapi.ForEachField(t, func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		name := string(ks)
		if !ok || strings.HasPrefix(name, "__") || name == "_G" || n.fields[name] != nil {
			return
		}
		child := &node{}
		switch v := v.(type) {
		case *lua.LTable:
			if depth+1 < maxFieldDepth {
				child = tableNode(v, depth+1)
			} else {
				child.open = true
			}
		case *lua.LUserData:
			child.open = true // io.stdout:write
		}
		n.fields[name] = child
	})
	return n
}

// Luacheck renders a luacheck configuration that defines the standard
// "kadmin" (every global a script may read, with the fields of its
// tables) and selects it. Built-ins cannot be reassigned in kadmin-lua,
// so they are read-only globals; arg and _G are there too.
func Luacheck(s *Surface, plugins []PluginFunc) string {
	var b strings.Builder
	b.WriteString("-- kadmin-lua's globals as a luacheck standard (Debian: lua-check), generated from a fresh\n")
	b.WriteString("-- runtime and the declarations by `kadmin-lua meta --luacheck FILE` (`make docs`). Do not edit.\n")
	b.WriteString("-- Use: luacheck --config FILE script.lua, or copy it to .luacheckrc.\n")
	b.WriteString("stds.kadmin = {\n  read_globals = {\n")
	globals := map[string]*node{}
	for k, v := range s.globals.fields {
		globals[k] = v
	}
	globals["arg"] = &node{open: true} // set for each script run: kadmin-lua run FILE ARGS...
	globals["_G"] = &node{open: true}
	for _, p := range plugins {
		globals[p.Name] = &node{}
	}
	for _, name := range sortedKeys(globals) {
		writeNode(&b, name, globals[name], 2)
	}
	b.WriteString("  },\n}\nstd = \"kadmin\"\n")
	return b.String()
}

func writeNode(b *strings.Builder, name string, n *node, indent int) {
	pad := strings.Repeat("  ", indent)
	key := name
	if !isLuaName(name) {
		key = fmt.Sprintf("[%q]", name)
	}
	switch {
	case n.open:
		fmt.Fprintf(b, "%s%s = {other_fields = true},\n", pad, key)
		return
	case n.fields == nil:
		fmt.Fprintf(b, "%s%s = {},\n", pad, key)
		return
	}
	fmt.Fprintf(b, "%s%s = {fields = {\n", pad, key)
	for _, k := range sortedKeys(n.fields) {
		writeNode(b, k, n.fields[k], indent+1)
	}
	fmt.Fprintf(b, "%s}},\n", pad)
}

func isLuaName(s string) bool {
	if s == "" || luaIdent(s) != s {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Globals are the names of the runtime's globals, sorted.
func (s *Surface) Globals() []string { return sortedKeys(s.globals.fields) }

// Fields says what a global table (path: "kafka", "json") holds: its field
// names, and known false when any field may be there (a value the
// runtime's tables do not describe: a file handle, arg) or path is not a
// table. ok is false when path names nothing the runtime has.
func (s *Surface) Fields(path ...string) (fields []string, known, ok bool) {
	n := s.globals
	for _, p := range path {
		if n.open || n.fields == nil {
			return nil, false, true
		}
		if n = n.fields[p]; n == nil {
			return nil, false, false
		}
	}
	if n.open || n.fields == nil {
		return nil, false, true
	}
	return sortedKeys(n.fields), true, true
}
