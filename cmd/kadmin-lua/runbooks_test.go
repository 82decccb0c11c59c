package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

// A built-in runbook run by name prints its whole header for --help, as
// it does run by path; nothing connects.
func TestRunBuiltInRunbookHelpByName(t *testing.T) {
	for _, args := range [][]string{
		{"run", "reset-offsets", "--help"},
		{"run", "reset-offsets.lua", "billing", "-h"},
		{"-b", closedPort(t), "run", "reset-offsets", "--help"},
	} {
		c := newCLI(t)
		require.Equal(t, ExitOK, c.run(args...), "%v: %s", args, c.stderr.String())
		r, ok := scripts.Get("reset-offsets")
		require.True(t, ok)
		assert.Equal(t, r.Header+"\n", c.stdout.String(), "%v", args)
		assert.Contains(t, c.stdout.String(), "Exit codes:")
		assert.Empty(t, c.stderr.String())
	}
	// After "--" it is an argument, not a question.
	c := newCLI(t)
	assert.Equal(t, ExitScript, c.run("run", "add-partitions", "--", "--help"))
	assert.Contains(t, c.stderr.String(), "usage: add-partitions.lua TOPIC COUNT")
}

func TestRunbooksListsRunbooksAndPluginCommands(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("runbooks"), c.stderr.String())
	out := c.stdout.String()
	for _, r := range scripts.Runbooks() {
		assert.Contains(t, out, r.Summary)
		assert.Contains(t, out, r.Usage())
	}
	// The names are padded to the longest (set-replication-factor).
	assert.Contains(t, out, "  reset-offsets           move a stopped consumer group's committed offsets.\n"+
		"                          kadmin-lua run reset-offsets GROUP TO [TOPIC[:PARTITION]...] [--force]\n")
	assert.Contains(t, out, "No plugin commands")

	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin, "lagger.lua": `return {commands = {
		["check-lag"] = {summary = "our own lag check", usage = "GROUP", run = function() end}}}`})
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "runbooks"), c.stderr.String())
	out = c.stdout.String()
	assert.Contains(t, out, "Plugin commands (docs/plugins.md):\n")
	assert.Contains(t, out, "make-topics  Create the topics named on the command line. (plugin ops)\n")
	assert.Contains(t, out, "kadmin-lua run make-topics N TOPIC...\n")
	assert.Contains(t, out, "(shadows the built-in runbook check-lag; run check-lag.lua for that one)")

	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "-o", "json", "runbooks"), c.stderr.String())
	var got struct {
		Runbooks []runnable `json:"runbooks"`
		Commands []runnable `json:"commands"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &got))
	assert.Len(t, got.Runbooks, len(scripts.Names()))
	byName := map[string]runnable{}
	for _, r := range got.Runbooks {
		byName[r.Name] = r
	}
	assert.Equal(t, runnable{Name: "reset-offsets", Usage: "kadmin-lua run reset-offsets GROUP TO [TOPIC[:PARTITION]...] [--force]",
		Summary: "move a stopped consumer group's committed offsets."}, byName["reset-offsets"])
	assert.Equal(t, "skip-record", got.Runbooks[len(got.Runbooks)-1].Name, "sorted by name")
	var names []string
	for _, cmd := range got.Commands {
		names = append(names, cmd.Plugin+":"+cmd.Name)
	}
	assert.Equal(t, "lagger:check-lag ops:fail-check ops:make-topics", strings.Join(names, " "))
	assert.True(t, got.Commands[0].Shadows)

	assert.Equal(t, ExitUsage, c.run("runbooks", "extra"))
}
