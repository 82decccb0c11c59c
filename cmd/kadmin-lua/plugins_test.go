package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/repl"
)

const opsPlugin = `return {
  version = "1.2",
  functions = {
    make_topics = {
      summary = "Create topics with n partitions.",
      args = "(n, names...)",
      fn = function(n, ...)
        local specs = {}
        for _, name in ipairs({...}) do specs[#specs + 1] = {name = name, partitions = n} end
        return create_topics(specs)
      end,
    },
  },
  commands = {
    ["make-topics"] = {
      summary = "Create the topics named on the command line.",
      usage = "N TOPIC...",
      run = function(n, ...)
        make_topics(tonumber(n), ...)
        return {created = select("#", ...), by = _G.arg[0]}
      end,
    },
    ["fail-check"] = function() kafka.check(false, "not healthy") end,
  },
}
`

func TestPluginFunctionFromEval(t *testing.T) {
	cl := newCluster(t)
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--plugin-path", dir, "-e", `make_topics(4, "pa", "pb")`), c.stderr.String())
	adm := cl.admin(t)
	td, err := adm.ListTopics(ctx(t), "pa", "pb")
	require.NoError(t, err)
	assert.Len(t, td["pa"].Partitions, 4)
	assert.Len(t, td["pb"].Partitions, 4)
}

func TestPluginCommandRun(t *testing.T) {
	cl := newCluster(t)
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--plugin-path", dir, "-o", "json", "run", "make-topics", "2", "c1", "c2", "c3"), c.stderr.String())
	assert.JSONEq(t, `{"created": 3, "by": "make-topics"}`, c.stdout.String())
	td, err := cl.admin(t).ListTopics(ctx(t), "c1", "c2", "c3")
	require.NoError(t, err)
	require.Len(t, td, 3)
	assert.Len(t, td["c3"].Partitions, 2)

	// Exit codes as for scripts: a Kafka error 3, a failed check 4.
	require.Equal(t, ExitKafka, c.run("-b", cl.addrs, "--plugin-path", dir, "run", "make-topics", "2", "c1"))
	assert.Contains(t, c.stderr.String(), "TOPIC_ALREADY_EXISTS")
	require.Equal(t, ExitCheck, c.run("--plugin-path", dir, "run", "fail-check"))
	assert.Contains(t, c.stderr.String(), "not healthy")
}

// A plugin command that declares its usage answers --help from it; its
// code never sees the flag. A bare function gets its arguments as given.
func TestPluginCommandHelpFromItsDeclaration(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "run", "make-topics", "--help"), c.stderr.String())
	assert.Equal(t, "Usage: kadmin-lua run make-topics N TOPIC...\n\nCreate the topics named on the command line.\n\n(from plugin ops)\n", c.stdout.String())
	require.Equal(t, ExitCheck, c.run("--plugin-path", dir, "run", "fail-check", "--help"))
	assert.Contains(t, c.stderr.String(), "not healthy", "an undeclared command runs with --help as an argument")
}

func TestRunPrefersFileThenPluginCommandThenRunbook(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"mine.lua": `return {commands = {
  ["check-lag"] = function() return "plugin check-lag" end,
  ["local.lua"] = function() return "plugin local.lua" end,
}}`})
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "local.lua"), []byte(`return "file local.lua"`), 0o600))
	t.Chdir(work)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "run", "local.lua"), c.stderr.String())
	assert.Equal(t, "file local.lua\n", c.stdout.String(), "a file on disk wins")
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "run", "check-lag"), c.stderr.String())
	assert.Equal(t, "plugin check-lag\n", c.stdout.String(), "a plugin command wins over the built-in runbook")
	// The built-in runbook is still there by its file name.
	require.Equal(t, ExitScript, c.run("--plugin-path", dir, "run", "check-lag.lua", "--max", "x"))
	assert.Contains(t, c.stderr.String(), "usage")

	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "plugins"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "(shadows the built-in runbook check-lag; run check-lag.lua for that one)")
}

func TestPluginPathFromEnvironment(t *testing.T) {
	a := testfiles.Tree(t, map[string]string{"a.lua": `return {functions = {from_a = function() return "a" end}}`})
	b := testfiles.Tree(t, map[string]string{"b.lua": `return {functions = {from_b = function() return "b" end}}`})
	c := newCLI(t)
	c.env["KADMIN_PLUGIN_PATH"] = a + ":" + b + ":"
	require.Equal(t, ExitOK, c.run("-e", `return from_a() .. from_b()`), c.stderr.String())
	assert.Equal(t, "ab\n", c.stdout.String())
}

func TestPluginDirInConfigHome(t *testing.T) {
	const plugin = `return {functions = {where = function() return "config" end}}`
	t.Run("XDG_CONFIG_HOME", func(t *testing.T) {
		cfg := testfiles.Tree(t, map[string]string{"kadmin-lua/plugins/w.lua": plugin})
		c := newCLI(t)
		c.env["XDG_CONFIG_HOME"] = cfg
		require.Equal(t, ExitOK, c.run("-e", `return where()`), c.stderr.String())
		assert.Equal(t, "config\n", c.stdout.String())
	})
	t.Run("HOME", func(t *testing.T) {
		c := newCLI(t)
		dir := filepath.Join(c.env["HOME"], ".config", "kadmin-lua", "plugins")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "w.lua"), []byte(plugin), 0o600))
		require.Equal(t, ExitOK, c.run("-e", `return where()`), c.stderr.String())
		assert.Equal(t, "config\n", c.stdout.String())
	})
	t.Run("absent", func(t *testing.T) {
		c := newCLI(t)
		require.Equal(t, ExitOK, c.run("-e", `return where == nil`), c.stderr.String())
		assert.Equal(t, "true\n", c.stdout.String(), "a missing config plugin dir is fine")
	})
}

func TestPluginDirPrecedence(t *testing.T) {
	plugin := func(from string) map[string]string {
		return map[string]string{"p.lua": `return {functions = {from = function() return "` + from + `" end}}`}
	}
	flag, env := testfiles.Tree(t, plugin("flag")), testfiles.Tree(t, plugin("env"))
	cfg := testfiles.Tree(t, map[string]string{"kadmin-lua/plugins/p.lua": `return {functions = {from = function() return "config" end}}`})
	c := newCLI(t)
	c.env["XDG_CONFIG_HOME"] = cfg
	c.env["KADMIN_PLUGIN_PATH"] = env
	require.Equal(t, ExitOK, c.run("--plugin-path", flag, "-e", `return from()`), c.stderr.String())
	assert.Equal(t, "flag\n", c.stdout.String())
	require.Equal(t, ExitOK, c.run("-e", `return from()`), c.stderr.String())
	assert.Equal(t, "env\n", c.stdout.String())

	require.Equal(t, ExitOK, c.run("--plugin-path", flag, "-o", "json", "plugins"), c.stderr.String())
	var listing struct {
		Directories []string `json:"directories"`
		Plugins     []struct {
			Name string `json:"name"`
			File string `json:"file"`
		} `json:"plugins"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &listing))
	assert.Equal(t, []string{flag, env, filepath.Join(cfg, "kadmin-lua", "plugins")}, listing.Directories)
	require.Len(t, listing.Plugins, 1, "one plugin p: the first directory's")
	assert.Equal(t, filepath.Join(flag, "p.lua"), listing.Plugins[0].File)
}

func TestBrokenPluginStopsBeforeAnythingRuns(t *testing.T) {
	cl := newCluster(t)
	for name, tc := range map[string]struct {
		src  string
		code int
		want string
	}{
		"syntax":    {"return {\n  functions = = {}}\n", ExitUsage, "bad.lua:2:15: syntax error near '='"},
		"shape":     {"return {\n  functions = {\n    f = {summary = 'x'}}}\n", ExitUsage, "bad.lua:3: functions: f: fn: is required"},
		"shadowing": {"return {functions = {\n  create_topics = function() end}}\n", ExitUsage, "bad.lua:2: function create_topics would shadow the built-in create_topics"},
		"runtime":   {"local x\nx.y = 1\nreturn {}\n", ExitScript, "bad.lua:2: attempt to index a non-table object(nil) with key 'y'"},
		"kafka":     {"describe_topics('no-such')\n", ExitKafka, "bad.lua: describe_topics: no-such: UNKNOWN_TOPIC_OR_PARTITION"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := testfiles.Tree(t, map[string]string{"bad.lua": tc.src, "good.lua": `return {functions = {good = print}}`})
			c := newCLI(t)
			topic := "never-" + name
			require.Equal(t, tc.code, c.run("-b", cl.addrs, "--plugin-path", dir, "-e", `create_topics{"`+topic+`"}`))
			assert.True(t, strings.HasPrefix(c.stderr.String(), "kadmin-lua: plugin bad: "+filepath.Join(dir, "bad.lua")+":"), c.stderr.String())
			assert.Contains(t, c.stderr.String(), tc.want)
			assert.NotContains(t, c.stderr.String(), "--help", "not a command-line mistake")
			assert.NotContains(t, topicNames(t, cl.admin(t)), topic, "the chunk never ran")
			assert.Empty(t, c.stdout.String())
		})
	}
}

func TestMissingPluginDirIsAUsageError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("--plugin-path", missing, "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "--plugin-path: stat "+missing+": no such file or directory")
	c.env["KADMIN_PLUGIN_PATH"] = missing
	require.Equal(t, ExitUsage, c.run("-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "KADMIN_PLUGIN_PATH: stat "+missing)
	c.env["KADMIN_PLUGIN_PATH"] = writeFile(t, "file.lua", "")
	require.Equal(t, ExitUsage, c.run("plugins"))
	assert.Contains(t, c.stderr.String(), "is not a directory")
}

func TestPluginsCommandLists(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "plugins"), c.stderr.String())
	assert.Equal(t, `ops 1.2 (`+filepath.Join(dir, "ops.lua")+`)
  functions:
    make_topics(n, names...) -> ...
        Create topics with n partitions.
  commands:
    kadmin-lua run fail-check
    kadmin-lua run make-topics N TOPIC...
        Create the topics named on the command line.

plugin directories: `+dir+"\n", c.stdout.String())

	require.Equal(t, ExitOK, c.run("plugins"))
	assert.Equal(t, "no plugins found\nplugin directories: none (use --plugin-path, KADMIN_PLUGIN_PATH or ~/.config/kadmin-lua/plugins)\n", c.stdout.String())
	require.Equal(t, ExitOK, c.run("-o", "json", "plugins"))
	assert.JSONEq(t, `{"directories": [], "plugins": []}`, c.stdout.String())
}

func TestPluginHelpInAScript(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	c := newCLI(t)
	c.stdin = strings.NewReader("help()\nhelp(make_topics)\n")
	require.Equal(t, ExitOK, c.run("--plugin-path", dir), c.stderr.String())
	out := c.stdout.String()
	assert.Contains(t, out, "\n  ops:\n    make_topics")
	assert.Contains(t, out, "make_topics(n, names...) -> ...\n\nCreate topics with n partitions.\n")
	assert.Contains(t, out, "From plugin ops 1.2 ("+filepath.Join(dir, "ops.lua")+").")
}

// The example plugin shipped in examples/plugins, on the demo cluster.
func TestExamplePluginOnEmbeddedCluster(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "plugins")
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--embedded", "--plugin-path", dir, "-o", "json", "-e", `create_topics{"scratch"}; return empty_topics{"orders", "scratch"}`), c.stderr.String())
	var empty []map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &empty))
	require.Len(t, empty, 1)
	assert.Equal(t, "scratch", empty[0]["topic"])
	require.Equal(t, ExitOK, c.run("--embedded", "--plugin-path", dir, "-o", "json", "run", "under-replicated"), c.stderr.String())
	assert.Equal(t, "[]\n", c.stdout.String())
	require.Equal(t, ExitKafka, c.run("--embedded", "--plugin-path", dir, "run", "under-replicated", "no-such-topic"))
	assert.Contains(t, c.stderr.String(), "UNKNOWN_TOPIC_OR_PARTITION")
}

func TestREPLCompletesPluginFunctions(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ops.lua": opsPlugin})
	rt := luaapi.New(luaapi.Options{PluginPath: []string{dir}, Env: func(string) string { return "" }})
	defer rt.Close()
	words, n := repl.Complete(rt.L, "make_", 5)
	assert.Empty(t, words, "before loading")
	assert.Equal(t, 5, n)
	require.NoError(t, rt.LoadPlugins(ctx(t)))
	words, _ = repl.Complete(rt.L, "make_", 5)
	assert.Equal(t, []string{"make_topics"}, words)
}

// A plugin's texts reach the terminal escaped: `kadmin-lua plugins` and
// help(fn) print no raw control sequence from them.
func TestPluginTextsAreEscaped(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"evil.lua": `return {description = "evil\27[31m red",
		functions = {f = {summary = "s\27[2J", fn = function() end}},
		commands = {c = {summary = "c\27]0;x\7", run = function() end}}}`})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "plugins"), c.stderr.String())
	assert.NotContains(t, c.stdout.String(), "\x1b")
	assert.Contains(t, c.stdout.String(), `evil\x1b[31m red`)
	assert.Contains(t, c.stdout.String(), `c\x1b]0;x\a`)
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "-e", "help(f)"), c.stderr.String())
	assert.NotContains(t, c.stdout.String(), "\x1b")
	assert.Contains(t, c.stdout.String(), `s\x1b[2J`)
}
