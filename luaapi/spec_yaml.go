package luaapi

import (
	"path/filepath"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"go.yaml.in/yaml/v3"
)

// A YAML or JSON spec is parsed by yaml.v3 into nodes (for their lines),
// then turned into the Lua value a Lua spec would give. yaml.v3 refuses an
// anchor that contains itself, excessive aliasing and duplicate keys only
// when it decodes into Go values, not into nodes, so the walk applies the
// same three rules itself: without them `topics: &a [*a]` (16 bytes) or a
// "billion laughs" of aliases grew without bound (3 GB in 1.4 s), and a
// key given twice silently kept its last value.

// aliasSlack is how many values aliases may build beyond the document's
// own node count: anchors reused for configs shared by many rows stay
// well inside it, a billion laughs is refused after a few thousand.
const aliasSlack = 10_000

// yamlReader turns one document into a Lua value.
type yamlReader struct {
	L    *lua.LState
	file string
	// open are the collections being read, on the path from the root: an
	// alias naming one is inside the node it names.
	open map[*yaml.Node]bool
	// aliasBudget is how many more values aliases may build; alias is
	// the outermost alias being expanded (nil outside any).
	aliasBudget int
	alias       *yaml.Node
	nodes       int // the document's nodes, aliases not followed
}

// yamlDocument turns the document root into a Lua value and its location
// tree, refusing what would make it unbounded or ambiguous.
func yamlDocument(L *lua.LState, root *yaml.Node, file string) (lua.LValue, *loc, error) {
	nodes := countNodes(root)
	y := &yamlReader{L: L, file: file, open: map[*yaml.Node]bool{}, aliasBudget: nodes + aliasSlack, nodes: nodes}
	return y.value(root, "")
}

// countNodes counts root's nodes, aliases not followed.
func countNodes(root *yaml.Node) int {
	n := 1
	for _, c := range root.Content {
		n += countNodes(c)
	}
	return n
}

func (y *yamlReader) value(n *yaml.Node, at string) (lua.LValue, *loc, error) {
	if y.alias != nil {
		if y.aliasBudget--; y.aliasBudget < 0 {
			return nil, nil, specErr(y.file, y.alias.Line, at, "aliases expand to more values than the document's %d nodes and %d more: refusing a document that grows when read (a \"billion laughs\"); write the values out",
				y.nodes, aliasSlack)
		}
	}
	l := &loc{line: n.Line}
	switch n.Kind {
	case yaml.AliasNode:
		if y.open[n.Alias] {
			return nil, nil, specErr(y.file, n.Line, at, "alias *%s is inside the value of its anchor &%s (line %d): its expansion never ends", n.Value, n.Value, n.Alias.Line)
		}
		if y.alias == nil {
			y.alias = n
			defer func() { y.alias = nil }()
		}
		return y.value(n.Alias, at)
	case yaml.MappingNode:
		y.open[n] = true
		defer delete(y.open, n)
		t := y.L.NewTable()
		l.kids = map[string]*loc{}
		keyLine := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, nil, specErr(y.file, k.Line, at, "keys must be strings")
			}
			if first, dup := keyLine[k.Value]; dup {
				d := duplicateKey{at: at, key: k.Value, line: k.Line, first: first}
				return nil, nil, d.err(y.file)
			}
			keyLine[k.Value] = k.Line
			lv, kl, err := y.value(v, subPath(at, k.Value))
			if err != nil {
				return nil, nil, err
			}
			if lv == lua.LNil {
				continue
			}
			var key lua.LValue = lua.LString(k.Value)
			if k.Tag == "!!int" && strings.HasPrefix(at, "topics #") { // assignment = {0: [1, 2]}
				if i, err := strconv.Atoi(k.Value); err == nil {
					key = lua.LNumber(i)
				}
			}
			t.RawSet(key, lv)
			l.kids[k.Value] = kl
		}
		return t, l, nil
	case yaml.SequenceNode:
		y.open[n] = true
		defer delete(y.open, n)
		t := y.L.NewTable()
		l.items = make([]*loc, 0, len(n.Content))
		for i, c := range n.Content {
			lv, kl, err := y.value(c, itemPath(at, i+1))
			if err != nil {
				return nil, nil, err
			}
			t.RawSetInt(i+1, lv)
			l.items = append(l.items, kl)
		}
		return t, l, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return lua.LNil, l, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, nil, specErr(y.file, n.Line, at, "%v", err)
			}
			return lua.LBool(b), l, nil
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, nil, specErr(y.file, n.Line, at, "%v", err)
			}
			return lua.LNumber(f), l, nil
		}
		return lua.LString(n.Value), l, nil
	}
	return nil, nil, specErr(y.file, n.Line, at, "unsupported YAML node")
}

// documentErr says a YAML or JSON spec's syntax error in the file's own
// format, at its line: yaml.v3 reads both and says "yaml: line 3: ...".
func documentErr(path string, err error) error {
	format := "YAML"
	if strings.EqualFold(filepath.Ext(path), ".json") {
		format = "JSON"
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, after
			}
		}
	}
	return specErr(path, line, "", "not valid %s: %s", format, msg)
}
