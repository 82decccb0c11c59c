package scripts_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/runbooks.md from scripts/runbooks.md.tmpl and the headers")

var runbooksDoc = filepath.Join("..", "docs", "runbooks.md")

// docs/runbooks.md is generated from its template and the runbooks'
// headers (`make docs`), like docs/api.md from the declarations.
func TestRunbooksDocIsFresh(t *testing.T) {
	tmpl, err := os.ReadFile("runbooks.md.tmpl")
	require.NoError(t, err)
	want, err := scripts.RenderDoc(string(tmpl))
	require.NoError(t, err)
	if *updateDocs || os.Getenv("KADMIN_UPDATE_DOCS") == "1" {
		require.NoError(t, os.WriteFile(runbooksDoc, []byte(want), 0o644))
		t.Logf("wrote %s", runbooksDoc)
	}
	got, err := os.ReadFile(runbooksDoc)
	require.NoError(t, err)
	if string(got) != want {
		g, w := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		for i := range max(len(g), len(w)) {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Fatalf("docs/runbooks.md is stale: run `make docs`\nline %d:\n  docs/runbooks.md: %s\n  generated:        %s", i+1, gl, wl)
			}
		}
	}
	for _, r := range scripts.Runbooks() {
		assert.Contains(t, want, "## "+r.Name+"\n", "every runbook has a section")
		assert.Contains(t, want, r.Header)
	}
}

// Every runbook's header gives a summary and its arguments.
func TestRunbookHeaders(t *testing.T) {
	rbs := scripts.Runbooks()
	require.Len(t, rbs, len(scripts.Names()))
	for _, r := range rbs {
		assert.NotEmpty(t, r.Summary, r.Name)
		assert.False(t, strings.HasPrefix(r.Summary, r.Name), r.Name)
		assert.True(t, strings.HasPrefix(r.Header, r.Name+".lua: "+r.Summary), r.Name)
	}
	r, ok := scripts.Get("reset-offsets.lua")
	require.True(t, ok)
	assert.Equal(t, "reset-offsets", r.Name)
	assert.Equal(t, "move a stopped consumer group's committed offsets.", r.Summary)
	assert.Equal(t, "GROUP TO [TOPIC[:PARTITION]...] [--force]", r.Args)
	assert.Equal(t, "kadmin-lua run reset-offsets GROUP TO [TOPIC[:PARTITION]...] [--force]", r.Usage())
	_, ok = scripts.Get("no-such")
	assert.False(t, ok)

	assert.Equal(t, "a: b\nc\n\nd", scripts.Header("#!/usr/bin/env kadmin-lua\n-- a: b\n--- c\n--\n-- d\nlocal x = 1\n-- not header"))
	assert.True(t, scripts.WantsHelp([]string{"GROUP", "--help"}))
	assert.True(t, scripts.WantsHelp([]string{"-h"}))
	assert.False(t, scripts.WantsHelp([]string{"--", "--help"}))
	assert.False(t, scripts.WantsHelp([]string{"billing", "earliest"}))
}

// Go's header is exactly what the runbook's own --help prints (lib/args.lua).
func TestRunbookHeaderMatchesLuaHelp(t *testing.T) {
	e := &env{t: t, c: &demo.Cluster{Addrs: []string{"127.0.0.1:1"}}} // --help never connects
	for _, r := range scripts.Runbooks() {
		res := e.ok(false, r.Name+".lua", "--help")
		assert.Equal(t, r.Header+"\n", res.stdout, r.Name)
	}
}
