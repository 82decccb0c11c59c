package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

func TestDocOneFunction(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("doc", "create_topics"))
	assert.Equal(t, luaapi.FuncHelp(luaapi.Lookup("create_topics")), c.stdout.String())
	assert.True(t, strings.HasPrefix(c.stdout.String(), "create_topics("))
}

func TestDocLibraryFunctionWithoutPrefix(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("doc", "sleep"))
	assert.True(t, strings.HasPrefix(c.stdout.String(), "kafka.sleep("), c.stdout.String())
}

func TestDocUnknownName(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("doc", "create_topicz"))
	assert.Contains(t, c.stderr.String(), `no function named "create_topicz"`)
	assert.Empty(t, c.stdout.String())
}

func TestDocReference(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("doc", "--markdown"))
	md := c.stdout.String()
	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("doc"))
	assert.Equal(t, md, c.stdout.String(), "Markdown is the default")
	assert.Equal(t, strings.TrimRight(luaapi.ReferenceMarkdown(), "\n"), strings.TrimRight(md, "\n"))

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("doc", "--json"))
	var entries []any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &entries), "doc --json is a JSON array")
}

func TestDocNeedsNoCluster(t *testing.T) {
	c := newCLI(t)
	// A broken config file and unreachable brokers do not matter to doc.
	writeConfig(t, c, "{not json")
	c.env["KADMIN_BROKERS"] = closedPort(t)
	require.Equal(t, ExitOK, c.run("doc", "list_topics"))
}

func TestDocFlagMistakes(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("doc", "--json", "--markdown"))
	c = newCLI(t)
	require.Equal(t, ExitUsage, c.run("doc", "a", "b"))
}

// doc --search: every word must appear; name matches come first; nothing
// found is exit 1.
func TestDocSearch(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("doc", "--search", "throttle"))
	lines := strings.Split(strings.TrimSpace(c.stdout.String()), "\n")
	require.NotEmpty(t, lines)
	assert.True(t, strings.HasPrefix(lines[0], "alter_configs") || strings.HasPrefix(lines[0], "alter_partition_reassignments"), lines[0])
	assert.Contains(t, c.stdout.String(), "wait_reassignments")

	require.Equal(t, ExitOK, c.run("doc", "--search", "LAG time"))
	first := strings.Fields(strings.Split(c.stdout.String(), "\n")[0])[0]
	assert.Equal(t, "lag", first, "a name match first")
	assert.NotContains(t, c.stdout.String(), "create_topics ")

	require.Equal(t, ExitScript, c.run("doc", "--search", "zzzq"))
	assert.Contains(t, c.stderr.String(), `no function mentions "zzzq"`)
	require.Equal(t, ExitUsage, c.run("doc", "--search", "lag", "lag"))
}
