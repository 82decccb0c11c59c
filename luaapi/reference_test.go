package luaapi

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -update (or KADMIN_UPDATE_DOCS=1) rewrites docs/api.md instead of
// comparing it: `make docs` runs TestAPIDocIsFresh that way.
var updateDocs = flag.Bool("update", false, "rewrite docs/api.md from the declarations")

var apiDocPath = filepath.Join("..", "docs", "api.md")

func TestAPIDocIsFresh(t *testing.T) {
	want := ReferenceMarkdown()
	if *updateDocs || os.Getenv("KADMIN_UPDATE_DOCS") == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(apiDocPath), 0o755))
		require.NoError(t, os.WriteFile(apiDocPath, []byte(want), 0o644))
		t.Logf("wrote %s", apiDocPath)
	}
	got, err := os.ReadFile(apiDocPath)
	require.NoError(t, err, "docs/api.md is missing: run `make docs`")
	if string(got) != want {
		t.Fatalf("docs/api.md is stale (it differs from the declarations in luaapi): run `make docs`\nfirst difference: %s",
			firstDiff(string(got), want))
	}
}

// firstDiff shows the first line where have and want differ.
func firstDiff(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  docs/api.md:  " + hl + "\n  declarations: " + wl
		}
	}
	return "(none)"
}

// has is assert.Contains without printing the whole document on failure.
func has(t *testing.T, doc, want string, msgAndArgs ...any) {
	t.Helper()
	if !strings.Contains(doc, want) {
		assert.Fail(t, "reference lacks "+strconv.Quote(want), msgAndArgs...)
	}
}

func TestReferenceMarkdownCoversEveryFunction(t *testing.T) {
	md := ReferenceMarkdown()
	require.True(t, strings.HasPrefix(md, "# kadmin-lua API reference\n"))
	for _, want := range []string{"## Conventions", "## Index", "2^53", "`{partial = true}`", "`retriable`",
		"`results`", "`resource`", "dry-run", "`if_not_exists`"} {
		has(t, md, want)
	}
	for _, f := range Funcs() {
		has(t, md, "\n<a id=\""+f.Name+"\"></a>\n### "+f.Name+"\n", f.Name)
		has(t, md, "- [`"+f.Name+"`](#"+f.Name+")", "index entry for %s", f.Name)
		has(t, md, "```lua\n"+f.Name+signature(f)+" -> "+f.Returns+"\n```", f.Name)
		if ex := strings.TrimSpace(f.Example); ex != "" {
			has(t, md, "```lua\n"+ex+"\n```", "example of %s", f.Name)
		}
		for _, a := range f.Aliases {
			has(t, md, "`"+a+"`", "alias %s of %s", a, f.Name)
		}
	}
	// Admin areas come before the library, and each area's heading once.
	topics, library := strings.Index(md, "\n## Topics\n"), strings.Index(md, "\n## Library\n")
	require.Positive(t, topics)
	require.Positive(t, library)
	assert.Less(t, topics, library)
	assert.Equal(t, 1, strings.Count(md, "\n## Topics\n"))
}

func TestReferenceMarkdownMarksMutations(t *testing.T) {
	md := ReferenceMarkdown()
	section := func(name string) string {
		i := strings.Index(md, "\n### "+name+"\n")
		require.Positive(t, i, name)
		rest := md[i+1:]
		if j := strings.Index(rest[4:], "\n### "); j >= 0 {
			rest = rest[:j+4]
		}
		return rest
	}
	has(t, section("delete_topics"), "*Changes the cluster, destructive*")
	has(t, section("create_topics"), "*Changes the cluster*: dry-run")
	assert.False(t, strings.Contains(section("list_topics"), "Changes the cluster"), "list_topics is not a mutation")
	has(t, md, "- [`delete_topics`](#delete_topics) (destructive): ")
	// Each Doc line is its own paragraph.
	has(t, section("create_topics"), "some failed\n\nA spec is a name")
	// Options come from the declaration.
	has(t, section("create_topics"), "Options:\n\n- `if_not_exists` (boolean): ")
}

func TestDocParagraphs(t *testing.T) {
	assert.Equal(t, "One.\n\nTwo.", docParagraphs("One.\nTwo.\n"))
	assert.Equal(t, "Intro:\n\n- a\n- b\n\nAfter.", docParagraphs("Intro:\n- a\n- b\nAfter."))
	assert.Equal(t, "", docParagraphs("  \n"))
}

func TestReferenceJSON(t *testing.T) {
	raw, err := ReferenceJSON()
	require.NoError(t, err)
	var docs []map[string]any
	require.NoError(t, json.Unmarshal(raw, &docs))
	require.Len(t, docs, len(Funcs()))
	keys := []string{"name", "area", "args", "returns", "result", "summary", "doc", "example", "mutating", "destructive", "operation", "aliases", "needs", "params", "options"}
	prev := ""
	for _, d := range docs {
		for _, k := range keys {
			assert.Contains(t, d, k, "%v", d["name"])
		}
		assert.Len(t, d, len(keys))
		for _, k := range []string{"aliases", "needs", "params", "options"} {
			assert.IsType(t, []any{}, d[k], "%s is an array, never null: %v", k, d["name"])
		}
		name := d["name"].(string)
		assert.Less(t, prev, name, "sorted by name")
		prev = name
	}
	var byName = map[string]map[string]any{}
	for _, d := range docs {
		byName[d["name"].(string)] = d
	}
	dt := byName["delete_topics"]
	require.NotNil(t, dt)
	assert.Equal(t, "topics", dt["area"])
	assert.Equal(t, true, dt["mutating"])
	assert.Equal(t, true, dt["destructive"])
	assert.Equal(t, Lookup("delete_topics").Example, dt["example"])
	assert.Equal(t, false, byName["list_topics"]["mutating"])
	// The result's shape as data: fields in declared order, with types.
	assert.Equal(t, map[string]any{"type": "record", "fields": []any{
		map[string]any{"name": "name", "type": "string"},
		map[string]any{"name": "missing", "type": "bool", "optional": true},
		map[string]any{"name": "error", "type": "error", "optional": true},
		map[string]any{"name": "dry_run", "type": "bool", "optional": true},
	}}, dt["result"].(map[string]any)["items"])
	quotas := byName["describe_client_quotas"]["result"].(map[string]any)["items"].(map[string]any)["fields"].([]any)[1]
	assert.Equal(t, map[string]any{"name": "quotas", "type": "map", "keys": "string", "values": map[string]any{"type": "number"}}, quotas)
	assert.Nil(t, byName["kafka.sleep"]["result"], "no table, no shape")
	// Not HTML-escaped: shapes keep their < > & as written.
	assert.NotContains(t, string(raw), `\u003c`)
}

func TestReferenceJSONAliasesSorted(t *testing.T) {
	d := DocOf(&Func{Name: "x", Aliases: []string{"b", "a"}})
	assert.Equal(t, []string{"a", "b"}, d.Aliases)
	assert.Equal(t, []string{}, DocOf(&Func{Name: "y"}).Aliases)
}
