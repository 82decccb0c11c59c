package luaapi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine/desired"
)

// A spec is data (issue 28): reading one runs nothing that reaches the
// cluster, a file or a secret, within bounded memory and time, and a spec
// that would read ambiguously (a key given twice, an empty owns prefix) is
// refused with its file:line.

func readSpecWith(t *testing.T, name, text string, o SpecOptions) (desired.Spec, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return ReadSpec(context.Background(), path, o)
}

// billionLaughs is a YAML document of depth levels of ten aliases each:
// 10^depth values once expanded.
func billionLaughs(depth int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	fmt.Fprintf(&b, "topics: *a%d\n", depth)
	return b.String()
}

func TestSpecAliasesAreBounded(t *testing.T) {
	_, err := readSpecText(t, "spec.yaml", "topics: &a [*a]\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.yaml:1: topics #1: alias *a is inside the value of its anchor &a (line 1): its expansion never ends")

	_, err = readSpecText(t, "spec.yaml", "owns:\n  topics: &o\n    - x\n    - {match: *o}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.yaml:4: owns: topics #2: match: alias *o is inside the value of its anchor &o (line 2)")

	_, err = readSpecText(t, "spec.yaml", billionLaughs(9))
	require.Error(t, err)
	assert.Regexp(t, `spec.yaml:\d+: a\d`, err.Error(), "refused at the first alias that runs over")
	assert.Contains(t, err.Error(), `refusing a document that grows when read (a "billion laughs")`)

	// Anchors used as they are meant to be still read.
	spec, err := readSpecText(t, "spec.yaml", "topics:\n  - {name: a, configs: &d {retention.ms: \"1000\"}}\n  - {name: b, configs: *d}\n")
	require.NoError(t, err)
	assert.Equal(t, spec.Topics[0].Configs, spec.Topics[1].Configs)
}

func TestSpecRefusesKeysGivenTwice(t *testing.T) {
	for _, tc := range []struct{ name, file, text, want string }{
		{"a top-level key in YAML", "spec.yaml", "topics: [team-a.x]\nowns: {topics: [team-a.]}\ntopics: [team-a.y]\n",
			`spec.yaml:3: "topics" is given twice (first at spec.yaml:1)`},
		{"a row's key in YAML", "spec.yaml", "topics:\n  - name: a\n    partitions: 1\n    partitions: 12\n",
			`spec.yaml:4: topics #1: "partitions" is given twice (first at spec.yaml:3)`},
		{"a top-level key in JSON", "spec.json", "{\"topics\": [\"a\"],\n \"owns\": {\"topics\": [\"\"]},\n \"topics\": [\"b\"]}",
			`spec.json:3: "topics" is given twice (first at spec.json:1)`},
		{"owns in JSON", "spec.json", "{\"owns\": {\"topics\": [\"a.\"],\n  \"topics\": [\"b.\"]}}",
			`spec.json:2: owns: "topics" is given twice (first at spec.json:1)`},
		{"a top-level key in Lua", "spec.lua", "return {\n  topics = {'a'},\n  topics = {'b'},\n}\n",
			`spec.lua:3: "topics" is given twice (first at spec.lua:2)`},
		{"a row's key in computed Lua", "spec.lua", "local p = 3\nreturn {topics = {\n  {name = 'a', partitions = p,\n   [\"partitions\"] = 6}}}\n",
			`spec.lua:4: topics #1: "partitions" is given twice (first at spec.lua:3)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSpecText(t, tc.file, tc.text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestSpecRefusesAnEmptyOwnsEntry(t *testing.T) {
	for _, tc := range []struct{ name, file, text, want string }{
		{"YAML", "spec.yaml", "topics: [a]\nowns:\n  topics: [team-a., \"\"]\n", `spec.yaml:3: owns: topics #2: an empty prefix would own every name of its kind`},
		{"an unset variable", "spec.lua", "return {\n  owns = {topics = {kafka.env(\"TEAM_PREFIX\") or \"\"}},\n}\n", `spec.lua:2: owns: topics #1: an empty prefix`},
		{"an empty pattern", "spec.json", "{\"owns\": {\"acls\": {\"principals\": [\n  {\"match\": \"\"}]}}}", `spec.json:2: owns: acls: principals #1: match: an empty pattern`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSpecText(t, tc.file, tc.text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), `write "*" to own them all`)
		})
	}
	spec, err := readSpecText(t, "spec.yaml", "owns: {topics: [\"*\"]}\n")
	require.NoError(t, err)
	assert.True(t, spec.Owns.Topics.Contains("anything"), `"*" owns every name, said explicitly`)
}

func TestLuaSpecHasNoClusterNoFilesNoSecrets(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plugin.lua")
	env := map[string]string{"KADMIN_SASL_PASSWORD": "pw-never-read", "TEAM_A_PASSWORD": "pw-2", "PROD_CREDS": "pw-3", "RETENTION": "1000"}
	o := SpecOptions{Env: func(k string) string { return env[k] }, Secret: func(k string) bool { return k == "PROD_CREDS" }}
	for _, tc := range []struct{ src, want string }{
		{`kafka.connect{brokers = "127.0.0.1:1"}:create_topics{"x"} return {}`, "kafka.connect is not available in a spec: a spec is data"},
		{`create_topics{"x"} return {}`, "create_topics is not available in a spec"},
		{`return {topics = list_topics()}`, "list_topics is not available in a spec"},
		{`io.open("` + plugin + `", "w"):write("x") return {}`, "io is not available in a spec"},
		{`require("kafka") return {}`, "require is not available in a spec"},
		{`dofile("` + plugin + `") return {}`, "dofile is not available in a spec"},
		{`return {x = os.getenv("HOME")}`, "os.getenv is not available in a spec"},
		{`os.execute("touch ` + plugin + `") return {}`, "os.execute is not available in a spec"},
		{`return {topics = {kafka.env("KADMIN_SASL_PASSWORD")}}`, `kafka.env: "KADMIN_SASL_PASSWORD": a spec cannot read kadmin-lua's own variables`},
		{`return {topics = {kafka.env("TEAM_A_PASSWORD")}}`, `kafka.env: "TEAM_A_PASSWORD": a spec cannot read a secret`},
		{`return {topics = {kafka.env("PROD_CREDS")}}`, `kafka.env: "PROD_CREDS": a spec cannot read a secret`},
	} {
		_, err := readSpecWith(t, "spec.lua", tc.src, o)
		require.Error(t, err, tc.src)
		assert.Contains(t, err.Error(), tc.want, tc.src)
		assert.NotContains(t, err.Error(), "pw-", tc.src)
	}
	assert.NoFileExists(t, plugin, "a spec writes no file")

	// What a spec may do: compute, with the time, and ordinary variables.
	var printed bytes.Buffer
	o.Stderr = &printed
	spec, err := readSpecWith(t, "spec.lua", `print("computing")
local rows = {}
for i = 1, 3 do rows[i] = {name = string.format("team-a.%d", i), configs = {["retention.ms"] = kafka.env("RETENTION")}} end
assert(os.time() > 0 and os.date("%Y") ~= nil)
return {topics = rows}`, o)
	require.NoError(t, err)
	require.Len(t, spec.Topics, 3)
	assert.Equal(t, "1000", spec.Topics[2].Configs["retention.ms"])
	assert.Equal(t, "computing\n", printed.String(), "print goes to stderr: stdout is the plan's")
}

func TestLuaSpecRunsUnderLimits(t *testing.T) {
	start := time.Now()
	_, err := readSpecWith(t, "spec.lua", "while true do end", SpecOptions{TimeLimit: 50 * time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.lua: the spec computed for longer than 50ms, its time limit")
	assert.Less(t, time.Since(start), time.Minute)

	_, err = readSpecWith(t, "spec.lua", `return {topics = {string.rep("x", 1e9)}}`, SpecOptions{MaxMemory: 64 << 20})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "string.rep: MEMORY: the result would be 953.67 MiB, over half of --max-memory 64 MiB")

	_, err = readSpecWith(t, "spec.lua", runaway+" return {}", SpecOptions{
		// The memory limit must be what stops it: on a loaded CI machine 64 MiB of tables took longer than the
		// default 10 s time limit once.
		MaxMemory: heapBytes() + 64<<20, TimeLimit: 10 * time.Minute})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MEMORY: the script was stopped: memory in use reached")
}

// A spec is a regular file: a FIFO is refused, not waited on.
func TestSpecMustBeARegularFile(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadSpec(context.Background(), dir, SpecOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a directory, not a regular file")
}
