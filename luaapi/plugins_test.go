package luaapi

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/luaapi/output"
)

// newPluginEnv is newEnv with plugins loaded from dirs.
func newPluginEnv(t *testing.T, dirs ...string) (*env, error) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := newEnvOn(t, c, Options{PluginPath: dirs})
	return e, e.rt.LoadPlugins(e.ctx())
}

const ensurePlugin = `
-- ensure: create topics that are missing
local function ensure(names, partitions)
  return create_topics((function()
    local specs = {}
    for _, n in ipairs(names) do specs[#specs + 1] = {name = n, partitions = partitions or 1} end
    return specs
  end)(), {if_not_exists = true})
end

return {
  version = "0.1",
  functions = {
    ensure_topics = {
      summary = "Create the topics that do not exist yet.",
      args = "(names[, partitions])",
      returns = "the create_topics result",
      doc = "Idempotent: existing topics are left alone.",
      example = 'ensure_topics{"a"}',
      fn = ensure,
    },
    count_topics = function() return #list_topics() end,
  },
  commands = {
    ["make-topics"] = {
      summary = "Create topics named on the command line.",
      usage = "PARTITIONS TOPIC...",
      run = function(partitions, ...)
        ensure({...}, tonumber(partitions))
        -- in a vararg function, arg is Lua 5.1's implicit local: _G.arg is the global
        return _G.arg[0], #_G.arg
      end,
    },
    ["first-arg"] = function(a) return a, arg[1], arg[0] end,
  },
}
`

func TestPluginFunctionIsAGlobalUsingTheDefaultClient(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ensure.lua": ensurePlugin})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)

	e.run(`ensure_topics({"p1", "p2"}, 3)`)
	td := e.topics()
	require.Contains(t, td, "p1")
	require.Contains(t, td, "p2")
	assert.Len(t, td["p1"].Partitions, 3)
	assert.Equal(t, lua.LNumber(2), e.run(`return count_topics()`))
	// require returns the plugin's table without running it again.
	assert.Equal(t, lua.LString("0.1"), e.run(`return require("ensure").version`))

	ps := e.rt.Plugins()
	require.Len(t, ps, 1)
	assert.Equal(t, "ensure", ps[0].Name)
	assert.Equal(t, filepath.Join(dir, "ensure.lua"), ps[0].File)
	require.Len(t, ps[0].Functions, 2)
	assert.Equal(t, "count_topics", ps[0].Functions[0].Name, "sorted by name")
	assert.Equal(t, "...", ps[0].Functions[0].Args, "a bare function gets a generic signature")
	assert.Equal(t, 22, ps[0].Functions[0].Line)
	assert.Equal(t, 3, ps[0].Functions[1].Line, "where ensure is defined")
}

func TestPluginCommandRunsWithArgs(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ensure.lua": ensurePlugin})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)

	c, p, ok := e.rt.Command("make-topics")
	require.True(t, ok)
	assert.Equal(t, "ensure", p.Name)
	assert.Equal(t, "PARTITIONS TOPIC...", c.Usage)
	vals, err := e.rt.RunCommand(e.ctx(), "make-topics", []string{"2", "x", "y"})
	require.NoError(t, err)
	assert.Equal(t, []lua.LValue{lua.LString("make-topics"), lua.LNumber(3)}, vals)
	td := e.topics()
	require.Contains(t, td, "x")
	assert.Len(t, td["y"].Partitions, 2)

	vals, err = e.rt.RunCommand(e.ctx(), "first-arg", []string{"one", "two"})
	require.NoError(t, err)
	assert.Equal(t, []lua.LValue{lua.LString("one"), lua.LString("one"), lua.LString("first-arg")}, vals)

	_, _, ok = e.rt.Command("no-such")
	assert.False(t, ok)
	_, err = e.rt.RunCommand(e.ctx(), "no-such", nil)
	require.Error(t, err)
}

func TestPluginHelp(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"ensure.lua": ensurePlugin})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)

	e.run(`help()`)
	out := e.stdout.String()
	require.Contains(t, out, "\nplugins (")
	assert.Regexp(t, `(?s)plugins .*\n  ensure:\n    count_topics +\n    ensure_topics +Create the topics that do not exist yet\.`, out)
	assert.Contains(t, out, "list_topics", "the built-ins are still listed")

	for _, call := range []string{`help(ensure_topics)`, `help("ensure_topics")`} {
		e.stdout.Reset()
		e.run(call)
		out := e.stdout.String()
		assert.True(t, strings.HasPrefix(out, "ensure_topics(names[, partitions]) -> the create_topics result\n"), out)
		assert.Contains(t, out, "Idempotent: existing topics are left alone.")
		assert.Contains(t, out, "Example:\n  ensure_topics{\"a\"}")
		assert.Contains(t, out, "From plugin ensure 0.1 ("+filepath.Join(dir, "ensure.lua")+").")
	}
	e.stdout.Reset()
	e.run(`help(list_topics)`)
	assert.NotContains(t, e.stdout.String(), "From plugin", "built-ins are unchanged")
}

func TestPluginsLoadInNameOrderFirstDirectoryWins(t *testing.T) {
	first := testfiles.Tree(t, map[string]string{
		"b.lua":          `table.insert(_G.order, "b1"); return {functions = {from_b = function() return "first" end}}`,
		"a/init.lua":     `table.insert(_G.order, "a"); return {functions = {from_a = function() return require("a.util").x end}}`,
		"a/util.lua":     `return {x = "util"}`,
		"_helper.lua":    `return {x = "helper"}`,
		"notes.txt":      `not a plugin`,
		"empty/README":   `a directory without init.lua is not a plugin`,
		".hidden/a.lua":  `error("never loaded")`,
		"c.lua":          `table.insert(_G.order, "c"); return {commands = {c = function() return require("_helper").x end}}`,
		"c/init.lua":     `error("c.lua comes first, as with require")`,
		".ignored.lua":   `error("never loaded")`,
		"_private/x.lua": `error("never loaded")`,
	})
	second := testfiles.Tree(t, map[string]string{"b.lua": `error("shadowed by the first directory")`})
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	e := newEnvOn(t, c, Options{PluginPath: []string{first, filepath.Join(first, "missing"), second}})
	e.run(`_G.order = {}`)
	require.NoError(t, e.rt.LoadPlugins(e.ctx()))

	assert.Equal(t, `["a","b1","c"]`, e.json(`return order`))
	assert.Equal(t, lua.LString("util"), e.run(`return from_a()`))
	assert.Equal(t, lua.LString("first"), e.run(`return from_b()`))
	vals, err := e.rt.RunCommand(e.ctx(), "c", nil)
	require.NoError(t, err)
	assert.Equal(t, []lua.LValue{lua.LString("helper")}, vals)
	var names []string
	for _, p := range e.rt.Plugins() {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.Equal(t, filepath.Join(first, "a", "init.lua"), e.rt.Plugins()[0].File)
	require.Error(t, e.rt.LoadPlugins(e.ctx()), "loading twice is refused")
}

// requireNotInstalled checks that a failed load left no plugin behind.
func requireNotInstalled(t *testing.T, e *env, globals ...string) {
	t.Helper()
	assert.Empty(t, e.rt.Plugins())
	for _, g := range globals {
		assert.Equal(t, lua.LNil, e.rt.L.GetGlobal(g), g)
	}
	_, _, ok := e.rt.Command("ok-cmd")
	assert.False(t, ok)
}

const okPlugin = `return {functions = {ok_fn = function() end}, commands = {["ok-cmd"] = function() end}}`

func TestPluginShadowingIsRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"admin function": {
			map[string]string{"a.lua": okPlugin, "mine.lua": "return {\n  functions = {\n    list_topics = function() end,\n  },\n}\n"},
			"plugin mine: %s/mine.lua:3: function list_topics would shadow the built-in list_topics; rename it",
		},
		"alias": {
			map[string]string{"a.lua": okPlugin, "mine.lua": "return {functions = {describe_consumer_groups = {fn = function() end}}}"},
			"plugin mine: %s/mine.lua:1: function describe_consumer_groups would shadow the built-in describe_consumer_groups",
		},
		"lua library": {
			map[string]string{"a.lua": okPlugin, "mine.lua": "return {functions = {print = function() end}}"},
			"function print would shadow the built-in print",
		},
		"kafka table": {
			map[string]string{"a.lua": okPlugin, "mine.lua": "return {functions = {kafka = function() end}}"},
			"function kafka would shadow the built-in kafka",
		},
		"another plugin's function": {
			map[string]string{"a.lua": okPlugin, "b.lua": "return {functions = {\nok_fn = function() end}}"},
			"plugin b: %s/b.lua:2: function ok_fn is already defined by plugin a (%s/a.lua); rename one of them",
		},
		"another plugin's command": {
			map[string]string{"a.lua": okPlugin, "b.lua": "return {commands = {\n\n['ok-cmd'] = {run = function() end}}}"},
			"plugin b: %s/b.lua:3: command ok-cmd is already defined by plugin a (%s/a.lua); rename one of them",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := testfiles.Tree(t, tc.files)
			e, err := newPluginEnv(t, dir)
			require.Error(t, err)
			var pe *PluginError
			require.ErrorAs(t, err, &pe)
			want := tc.want
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", dir)
			}
			assert.Contains(t, err.Error(), want)
			requireNotInstalled(t, e, "ok_fn")
			assert.NotEqual(t, lua.LNil, e.rt.L.GetGlobal("list_topics"), "built-ins stay")
		})
	}
}

func TestBrokenPluginsNameFileAndLine(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		want string
		kind ErrorKind // for errors raised by Lua; -1 for shape errors
	}{
		"syntax error":             {"local x = 1\nlocal y = = 2\n", "plugin broken: %s:2:11: syntax error near '='", KindSyntax},
		"runtime error":            {"local x = 1\nerror('no config')\n", "plugin broken: %s:2: no config", KindScript},
		"kafka error":              {"kafka.fail('refusing')", "plugin broken: %s: refusing", KindScript},
		"no functions or commands": {"return {version = '1', functions = {}, commands = {}}", "plugin broken: %s: defines no functions and no commands", -1},
		"unknown key":              {"return {\n  functions = {},\n  comands = {},\n}", `plugin broken: %s:3: unknown key "comands" (did you mean "commands"?) (allowed: name, version, description, functions, commands)`, -1},
		"unknown function key":     {"return {functions = {\n  f = {\n    sumary = 'x',\n    fn = print}}}", `plugin broken: %s:3: functions: f: unknown key "sumary" (did you mean "summary"?) (allowed: summary, args, returns, doc, example, fn)`, -1},
		"missing fn":               {"return {functions = {\n  f = {summary = 'x'}}}", "plugin broken: %s:2: functions: f: fn: is required", -1},
		"fn not a function":        {"return {functions = {f = {fn = 'print'}}}", `plugin broken: %s:1: functions: f: fn: must be a function, got "print"`, -1},
		"functions not a table":    {"return {functions = 'f'}", `plugin broken: %s:1: functions: must be a table {NAME = function or {summary=, args=, returns=, doc=, example=, fn=function}}, got "f"`, -1},
		"entry not a function":     {"return {functions = {\n f = 42}}", "plugin broken: %s:2: functions: f: must be a function or {summary=, args=, returns=, doc=, example=, fn=function}, got 42", -1},
		"summary not a string":     {"return {functions = {f = {fn = print, summary = {}}}}", "functions: f: summary: must be a string, got table", -1},
		"bad function name":        {"return {functions = {['my-fn'] = print}}", "plugin broken: %s:1: functions: key my-fn: a function's name must be a Lua name", -1},
		"keyword function name":    {"return {functions = {['end'] = print}}", "functions: key end: a function's name must be a Lua name", -1},
		"array of functions":       {"return {functions = {print}}", "functions: key 1: must be a function name, got 1", -1},
		"bad command name":         {"return {commands = {['a/b'] = print}}", "commands: key a/b: a command's name must be letters, digits, -, _ and .", -1},
		"command without run":      {"return {commands = {x = {usage = 'X'}}}", "plugin broken: %s:1: commands: x: run: is required", -1},
		"misspelled command key":   {"return {commands = {x = {run = print,\n  usgae = 'X'}}}", `plugin broken: %s:2: commands: x: unknown key "usgae" (did you mean "usage"?)`, -1},
		"number key at the top":    {"return {functions = {f = print}, [1] = 'x'}", "plugin broken: %s: unknown key 1 (allowed: name, version, description, functions, commands)", -1},
		"wrong name":               {"return {name = 'other', functions = {f = print}}", "plugin broken: %s:1: name: is \"other\" but the file makes it \"broken\"", -1},
	} {
		t.Run(name, func(t *testing.T) {
			dir := testfiles.Tree(t, map[string]string{"a.lua": okPlugin, "broken.lua": tc.src, "c.lua": "return {functions = {c_fn = print}}"})
			e, err := newPluginEnv(t, dir)
			require.Error(t, err)
			path := filepath.Join(dir, "broken.lua")
			assert.Contains(t, err.Error(), strings.ReplaceAll(tc.want, "%s", path))
			var pe *PluginError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "broken", pe.Plugin)
			assert.Equal(t, path, pe.File)
			var re *RunError
			if tc.kind < 0 {
				assert.False(t, errors.As(err, &re), "a shape error is not a Lua error")
			} else {
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tc.kind, re.Kind)
			}
			requireNotInstalled(t, e, "ok_fn", "c_fn")
		})
	}
}

func TestModulesThatAreNotPluginsAreLibraries(t *testing.T) {
	// --plugin-path was a require path first: a module that returns no
	// functions or commands is a library, loaded once and left to require.
	dir := testfiles.Tree(t, map[string]string{
		"greet.lua":   `_G.greet_loads = (_G.greet_loads or 0) + 1; return {hello = function(n) return "hello " .. n end, version = "2"}`,
		"nothing.lua": `_G.nothing_loaded = true`,
		"str.lua":     `return "a string"`,
		"p.lua":       okPlugin,
	})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)
	assert.Equal(t, lua.LString("hello ops"), e.run(`return require("greet").hello("ops")`))
	assert.Equal(t, lua.LNumber(1), e.run(`require("greet"); return greet_loads`), "run once, at start")
	assert.Equal(t, lua.LTrue, e.run(`return require("nothing") == true and nothing_loaded`))
	assert.Equal(t, lua.LString("a string"), e.run(`return require("str")`))
	require.Len(t, e.rt.Plugins(), 1)
	assert.Equal(t, "p", e.rt.Plugins()[0].Name)
	assert.Equal(t, lua.LNil, e.rt.L.GetGlobal("hello"), "a library's functions are not globals")
}

func TestPluginBadFileName(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"my.tools.lua": okPlugin})
	_, err := newPluginEnv(t, dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "plugin my.tools: "+filepath.Join(dir, "my.tools.lua")+": a plugin's name (its file name) must be letters, digits, - and _")
}

func TestPluginFunctionTakesAClient(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"n.lua": `return {functions = {
  topic_count = function(c) return #(c or kafka.default):list_topics() end}}`})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)
	other, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "o1", "o2"))
	require.NoError(t, err)
	t.Cleanup(other.Close)
	e.run(`create_topics{"d1"}`)
	assert.Equal(t, lua.LNumber(1), e.run(`return topic_count()`))
	assert.Equal(t, lua.LNumber(2), e.run(`return topic_count(kafka.connect{brokers = "`+strings.Join(other.ListenAddrs(), ",")+`"})`))
}

// The example plugin shipped in examples/plugins, against the demo cluster.
func TestExamplePluginTopicTools(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := demo.Start(ctx)
	require.NoError(t, err)
	defer c.Close()
	var stdout, stderr bytes.Buffer
	rt := New(Options{
		Config: engine.Config{Brokers: c.Addrs, Timeout: 15 * time.Second},
		Stdout: &stdout, Stderr: &stderr, Env: func(string) string { return "" },
		PluginPath: []string{filepath.Join("..", "examples", "plugins")},
	})
	defer rt.Close()
	require.NoError(t, rt.LoadPlugins(ctx))
	ps := rt.Plugins()
	require.Len(t, ps, 1)
	require.Equal(t, "topic-tools", ps[0].Name)

	// Every function's example runs, as TestExamples does for the built-ins.
	for _, f := range ps[0].Functions {
		vals, err := rt.DoString(ctx, f.Name+" example", f.Example)
		require.NoError(t, err, f.Name)
		require.NotEmpty(t, vals)
		assert.Equal(t, lua.LTrue, vals[0], f.Name)
	}

	// The demo's topics all hold records; a topic just created (here and
	// by the example) does not,
	// and neither does one whose records were all deleted.
	vals, err := rt.DoString(ctx, "test", `create_topics{{name = "fresh", partitions = 3}, {name = "emptied", partitions = 1}}
return empty_topics()`)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"topic":"emptied","partitions":1},{"topic":"fresh","partitions":3},{"topic":"scratch","partitions":2}]`, mustJSON(t, rt, vals[0]))
	vals, err = rt.DoString(ctx, "test", `return empty_topics{"orders", "fresh"}`)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"topic":"fresh","partitions":3}]`, mustJSON(t, rt, vals[0]))
	vals, err = rt.DoString(ctx, "test", `local n = 0
for _, o in ipairs(list_offsets("audit-log")) do
  delete_records{{topic = "audit-log", partition = o.partition, offset = o.offset}}
  n = n + 1
end
local names = {}
for _, t in ipairs(empty_topics()) do names[#names + 1] = t.topic end
return table.concat(names, ",")`)
	require.NoError(t, err)
	assert.Equal(t, "audit-log,emptied,fresh,scratch", vals[0].String())

	// The demo cluster is healthy: no rows, no failed check.
	vals, err = rt.RunCommand(ctx, "under-replicated", nil)
	require.NoError(t, err)
	assert.Equal(t, "[]", mustJSON(t, rt, vals[0]))
	assert.Empty(t, rt.CheckFailures())
	_, err = rt.RunCommand(ctx, "under-replicated", []string{"no-such-topic"})
	require.Error(t, err, "an unknown topic fails the command")

	// kfake keeps every replica in sync, so a shrunk ISR is simulated by
	// replacing describe_topics with a stub the plugin calls as a global.
	// Lua code cannot replace a built-in (builtins.go); the test's Go
	// code, like the runtime's own, can.
	stub, err := rt.DoString(ctx, "test", `return function(names)
  return {{name = names[1], partitions = {
    {partition = 1, leader = 2, replicas = {2, 0, 1}, isr = {2}},
    {partition = 0, leader = 0, replicas = {0, 1, 2}, isr = {0, 1, 2}}}}}
end`)
	require.NoError(t, err)
	rt.L.SetGlobal("describe_topics", stub[0])
	vals, err = rt.RunCommand(ctx, "under-replicated", []string{"orders"})
	require.NoError(t, err)
	assert.Equal(t, `[{"isr":[2],"leader":2,"missing":2,"partition":1,"replicas":[2,0,1],"topic":"orders"}]`, mustJSON(t, rt, vals[0]))
	assert.Equal(t, []string{"1 under-replicated partition(s)"}, rt.CheckFailures())
}

func mustJSON(t *testing.T, rt *Runtime, v lua.LValue) string {
	t.Helper()
	s, err := output.EncodeJSON(v, rt.null(), "")
	require.NoError(t, err)
	return s
}

func TestPluginVersionMayBeANumber(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"v.lua": `return {version = 1.5, description = "d", functions = {f = print}}`})
	e, err := newPluginEnv(t, dir)
	require.NoError(t, err)
	require.Len(t, e.rt.Plugins(), 1)
	assert.Equal(t, "1.5", e.rt.Plugins()[0].Version)
	assert.Equal(t, "d", e.rt.Plugins()[0].Description)
}
