package archtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/kadmin-lua/kadmin-lua"

// rule is a row of docs/architecture.md's rule table.
type rule struct {
	pattern string   // "engine/state", "engine/login/...", "cmd/..."
	may     []string // module-relative patterns it may import; "anything" allows all
	kafka   string   // "no Kafka client", "through the core" or "yes"
}

func (r rule) String() string { return "`" + r.pattern + "`" }

// match reports whether pattern ("x", "x/...") matches the module-relative
// path p.
func match(pattern, p string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

var kafkaClients = []string{"github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/pkg/kadm", "github.com/twmb/franz-go/pkg/kmsg"}

const lua = "github.com/yuin/gopher-lua"

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	return dir
}

// readRules parses the table under "## The rules" in docs/architecture.md.
func readRules(t *testing.T, root string) []rule {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	defer f.Close()
	tops := topDirs(t, root)
	var rules []rule
	inSection, inTable := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			inSection = line == "## The rules"
			continue
		case !inSection:
			continue
		case strings.HasPrefix(line, "| package |"):
			inTable = true
			continue
		case inTable && strings.HasPrefix(line, "|---"):
			continue
		case inTable && !strings.HasPrefix(line, "|"):
			inTable = false
			continue
		case !inTable:
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cells, 3, "rule table row %q: package | may import | Kafka client", line)
		r := rule{pattern: strings.Trim(strings.TrimSpace(cells[0]), "`"), kafka: strings.TrimSpace(cells[2])}
		for _, m := range strings.Split(cells[1], ",") {
			m = strings.TrimSpace(m)
			switch {
			case m == "nothing" || m == "":
			case m == "anything":
				r.may = append(r.may, "...")
			case slices.Contains(tops, strings.SplitN(m, "/", 2)[0]):
				r.may = append(r.may, m)
			default: // an engine package, named without engine/
				r.may = append(r.may, "engine/"+m)
			}
		}
		require.Contains(t, []string{"no Kafka client", "through the core", "yes"}, r.kafka, "rule %s", r)
		rules = append(rules, r)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rules, "no rule table under \"## The rules\" in docs/architecture.md")
	return rules
}

// topDirs are the module's top-level directories.
func topDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// ruleOf is the row for p: its own, else the longest pattern that covers it.
func ruleOf(rules []rule, p string) (rule, bool) {
	var best rule
	found := false
	for _, r := range rules {
		if match(r.pattern, p) && (!found || len(r.pattern) > len(best.pattern) || r.pattern == p) {
			best, found = r, true
		}
	}
	return best, found
}

// listPackages is every package of the module and everything they import
// (go list -deps), with their imports and dependencies.
func listPackages(t *testing.T, root string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Dir,GoFiles,Imports,Deps", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.True(t, slices.ContainsFunc(pkgs, func(p pkg) bool { return p.ImportPath == module+"/engine/vocab" }), "go list found no engine/vocab: %d packages", len(pkgs))
	return pkgs
}

func rel(importPath string) (string, bool) {
	if importPath == module {
		return ".", true
	}
	return strings.CutPrefix(importPath, module+"/")
}

// violations checks every package against the rules.
func violations(t *testing.T, root string, rules []rule, pkgs []pkg) []string {
	byPath := map[string]pkg{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	var out []string
	for _, p := range pkgs {
		me, ours := rel(p.ImportPath)
		if !ours {
			continue // a dependency from outside the module (go list -deps)
		}
		r, ok := ruleOf(rules, me)
		if !ok {
			out = append(out, fmt.Sprintf("%s is in no row of the rule table (docs/architecture.md): add its row", me))
			continue
		}
		for _, imp := range p.Imports {
			other, ours := rel(imp)
			if !ours {
				continue
			}
			if !slices.ContainsFunc(r.may, func(m string) bool { return m == "..." || match(m, other) }) {
				out = append(out, fmt.Sprintf("%s imports %s: row %s may import %s", me, other, r, mayString(r)))
			}
		}
		switch r.kafka {
		case "no Kafka client":
			for _, k := range kafkaClients {
				if slices.Contains(p.Deps, k) {
					out = append(out, fmt.Sprintf("%s depends on %s%s: row %s says no Kafka client", me, k, through(byPath, p, k), r))
				}
			}
		case "through the core":
			for _, k := range kafkaClients {
				if slices.Contains(p.Imports, k) {
					out = append(out, fmt.Sprintf("%s imports %s: row %s drives the cluster through the core only", me, k, r))
				}
			}
		}
		if match("engine/...", me) && slices.Contains(p.Deps, lua) {
			out = append(out, fmt.Sprintf("%s depends on %s%s: no package under engine/ knows Lua", me, lua, through(byPath, p, lua)))
		}
		if match("engine/...", me) && me != "engine" && slices.Contains(p.Imports, module+"/engine") {
			out = append(out, reExports(t, root, me, p)...)
		}
	}
	return out
}

func mayString(r rule) string {
	if len(r.may) == 0 {
		return "nothing of the module"
	}
	return strings.Join(r.may, ", ")
}

// through names the direct import that brings dep in, when it is not p's own.
func through(byPath map[string]pkg, p pkg, dep string) string {
	if slices.Contains(p.Imports, dep) {
		return ""
	}
	for _, imp := range p.Imports {
		if d, ok := byPath[imp]; ok && (slices.Contains(d.Deps, dep) || slices.Contains(d.Imports, dep)) {
			r, _ := rel(imp)
			return " (through " + r + ")"
		}
	}
	return " (through a dependency)"
}

// reExports finds, in a package under engine/ that imports the core, uses of
// the names the core re-exports from the vocabulary (engine/vocab.go): the
// package must use them where they live.
func reExports(t *testing.T, root, me string, p pkg) []string {
	names := map[string]string{}
	fset := token.NewFileSet()
	const reExported = "vocab.go"
	file, err := parser.ParseFile(fset, filepath.Join(root, "engine", reExported), nil, 0)
	require.NoError(t, err, "the core's re-exports")
	for _, d := range file.Decls {
		for _, n := range declNames(d) {
			names[n] = reExported
		}
	}
	var out []string
	for _, f := range p.GoFiles {
		file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
		require.NoError(t, err)
		local := "engine"
		for _, is := range file.Imports {
			if strings.Trim(is.Path.Value, `"`) == module+"/engine" && is.Name != nil {
				local = is.Name.Name
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			se, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := se.X.(*ast.Ident); ok && id.Name == local {
				if where, ok := names[se.Sel.Name]; ok {
					pos := fset.Position(se.Pos())
					out = append(out, fmt.Sprintf("%s (%s:%d) uses engine.%s, which the core re-exports (engine/%s) for the Lua layer: name it where it lives",
						me, f, pos.Line, se.Sel.Name, where))
				}
			}
			return true
		})
	}
	return out
}

func declNames(d ast.Decl) []string {
	var out []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			out = append(out, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}

// The import graph is the one docs/architecture.md draws: every package
// imports only what its row allows, the packages below the core reach no
// Kafka client, nothing under engine/ knows Lua.
func TestImportsFollowTheRules(t *testing.T) {
	dir := root(t)
	rules := readRules(t, dir)
	pkgs := listPackages(t, dir)
	for _, v := range violations(t, dir, rules, pkgs) {
		t.Error(v)
	}
}

// The rules catch what they are for: a pure package that imports a Kafka
// client, a package that imports upward, one no row names. (The graph is
// made up: the real one must compile, and these imports would not.)
func TestTheRulesCatchForbiddenImports(t *testing.T) {
	dir := root(t)
	rules := readRules(t, dir)
	m := func(p string) string { return module + "/" + p }
	pkgs := []pkg{
		{ImportPath: m("engine/placement"), Imports: []string{m("engine/vocab"), kafkaClients[0]}, Deps: []string{m("engine/vocab"), kafkaClients[0]}},
		{ImportPath: m("engine/state"), Imports: []string{m("engine/auditlog")}, Deps: []string{m("engine/auditlog"), m("engine/vocab")}},
		{ImportPath: m("engine/undo"), Imports: []string{m("engine/desired"), m("engine")}},
		{ImportPath: m("engine/vocab"), Imports: []string{m("luaapi")}, Deps: []string{m("luaapi"), lua}},
		{ImportPath: m("engine/newconcern")},
		{ImportPath: m("luaapi"), Imports: []string{lua}, Deps: []string{lua}},
	}
	got := strings.Join(violations(t, dir, rules, pkgs), "\n")
	for _, want := range []string{
		"engine/placement depends on github.com/twmb/franz-go/pkg/kgo: row `engine/placement` says no Kafka client",
		"engine/state imports engine/auditlog: row `engine/state` may import",
		"engine/undo imports engine/desired: row `engine/undo` may import",
		"engine/vocab imports luaapi: row `engine/vocab` may import nothing of the module",
		"engine/vocab depends on github.com/yuin/gopher-lua (through luaapi)",
		"engine/newconcern is in no row of the rule table",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the rules missed %q; they said:\n%s", want, got)
		}
	}
}
