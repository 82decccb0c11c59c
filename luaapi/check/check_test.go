package check

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/starter"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/scripts"
)

func findings(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%d:%d: %s", f.Line, f.Col, f.Message))
	}
	return out
}

func checkSrc(t *testing.T, name, src string) *Report {
	t.Helper()
	c := New(nil)
	t.Cleanup(c.Close)
	return c.Check(name, []byte(src))
}

// One mistake per line, each where it is.
const seeded = `-- seeded.lua: a runbook with mistakes.
-- Usage: kadmin-lua run seeded.lua TOPIC [--force] [--count N] [--quiet]
local args = require("lib.args")
local a = args.parse{usage = "seeded.lua TOPIC [--force] [--verbose]", min = 1, max = 1, flags = {force = "boolean", count = "integr"}}
if not a then return end
local topic = a[1]
print(a[2], a.flags.forse)
lagg()
if verbse then print("x") end
create_topics({{name = topic, partitions = 0}})
delete_topics(topic, {if_exists = "yes"})
local c = kafka.conect{brokers = "x:1"}
local d = kafka.connect{brokers = "x:1", tiemout = 5}
d:delete_topics(42)
d:lagg()
create_partitions{orders = 70000000000}
list_offsets(topic, "newest")
describe_quorum(1)
lag({"g"}, {partial = true}, 3)
local ok = pcall(delete_groups, {"g"}, {if_exist = true})
print(os.exit, string.fromat)
create_topics = nil
seen = (seen or 0) + 1
lag{partal = true}
`

func TestCheckFindsSeededMistakesAtTheirLines(t *testing.T) {
	r := checkSrc(t, "seeded.lua", seeded)
	want := []string{
		`2:66: the header's Usage line names --quiet, which args.parse's flags do not declare: given, it is refused as an unknown flag`,
		`4:59: args.parse's usage names --verbose, which args.parse's flags do not declare: given, it is refused as an unknown flag`,
		`4:126: flag --count: kind "integr" is not one lib/args.lua reads (boolean, integer, list, number, string)`,
		`7:9: a[2] is never set: args.parse allows at most 1 argument(s)`,
		`7:21: flag --forse is not declared in args.parse's flags, so it is always nil (did you mean --force?)`,
		`8:1: unknown global 'lagg' (did you mean 'lag'?)`,
		`9:4: unknown global 'verbse' (it is nil: nothing sets it)`,
		`10:1: create_topics: spec #1: partitions: must be a partition count between 1 and 2147483647, got 0`,
		`11:1: delete_topics: options: if_exists: must be true or false, got "yes"`,
		`12:17: unknown field 'conect' of kafka (did you mean 'connect'?)`,
		`13:17: kafka.connect: unknown key "tiemout" (did you mean "timeout"?)`,
		`14:3: delete_topics: names: must be a topic name, or an array of them, got 42`,
		`15:3: unknown method 'lagg' of a client (did you mean 'lag'?)`,
		`16:1: create_partitions: totals: orders: must be a partition count between 1 and 2147483647, got 70000000000`,
		`17:1: list_offsets: at: must be one of "earliest", "latest"`,
		`18:1: describe_quorum: takes no arguments, got 1`,
		`19:1: lag: takes at most 2 arguments, lag([groups][, {`,
		`20:18: delete_groups: options: unknown key "if_exist" (did you mean "if_exists"?)`,
		`21:10: unknown field 'exit' of os`,
		`21:23: unknown field 'fromat' of string (did you mean 'format'?)`,
		`22:1: cannot replace built-in create_topics (use a local of your own: local create_topics = ...)`,
		`24:1: lag: options: unknown key "partal" (did you mean "partial"?)`,
	}
	got := findings(r)
	require.Len(t, got, len(want), strings.Join(got, "\n"))
	for i := range want {
		assert.True(t, strings.HasPrefix(got[i], want[i]), "finding %d:\n got %s\nwant %s...", i, got[i], want[i])
	}
	// seen = (seen or 0) + 1 is a global the script sets: no finding.
	assert.NotContains(t, strings.Join(got, "\n"), "'seen'")
}

// What a script can change: every call of a mutating function, with its
// line, destructive ones marked; pcall(f, ...) and methods too.
func TestCheckListsWhatAScriptCanChange(t *testing.T) {
	r := checkSrc(t, "changes.lua", `local c = kafka.connect{brokers = "x:1"}
create_topics{"a"}
local rows = list_topics()
c:delete_topics("a", {if_exists = true})
local ok = pcall(delete_groups, "g")
local function helper(client) return client:alter_configs{{topic = "a", set = {x = "1"}}} end
kafka.default:create_partitions{a = 3}
`)
	assert.Empty(t, r.Findings)
	var got []string
	for _, ch := range r.Changes {
		got = append(got, fmt.Sprintf("%d:%d %s %v", ch.Line, ch.Col, ch.Function, ch.Destructive))
	}
	assert.Equal(t, []string{"2:1 create_topics false", "4:3 delete_topics true", "5:18 delete_groups true",
		"6:45 alter_configs false", "7:15 create_partitions true"}, got)
}

// A method's arguments are checked where the receiver is evidently a
// client; elsewhere (a function's parameter) only what it can change is
// listed.
func TestCheckMethodsOnEvidentClients(t *testing.T) {
	r := checkSrc(t, "m.lua", `local c = kafka.connect{brokers = "x:1"}
c:create_topics{{name = "t", partitions = 0}}
kafka.default:lag(nil, {partal = true})
local k = require("kafka")
k.connect{}:delete_topics(1)
local function f(client) client:create_topics{{name = "t", partitions = 0}} end
c = nil
`)
	assert.Equal(t, []string{
		"2:3: create_topics: spec #1: partitions: must be a partition count between 1 and 2147483647, got 0",
		`3:15: lag: options: unknown key "partal" (did you mean "partial"?) (allowed: time, read_committed, no_commit, only_lagging, sort, top, at_risk, observe, summary, iterate, match, exclude, states, partial)`,
		"5:13: delete_topics: names: must be a topic name, or an array of them, got 1",
	}, findings(r))
	assert.Len(t, r.Changes, 3)
}

func TestCheckSyntaxError(t *testing.T) {
	r := checkSrc(t, "s.lua", "local x = 1\nlocal y = = 2\nprint(x, y)\n")
	assert.Equal(t, []string{"2:11: syntax error near '='"}, findings(r))
	r = checkSrc(t, "s.lua", "#!/usr/bin/env kadmin-lua run\nlagg()\n")
	assert.Equal(t, []string{"2:1: unknown global 'lagg' (did you mean 'lag'?)"}, findings(r), "a shebang line is allowed, as run allows it")
}

// Values check cannot see are not guessed at: variables, calls, a table
// built from them.
func TestCheckDoesNotGuess(t *testing.T) {
	r := checkSrc(t, "g.lua", `local n = tonumber(arg[1])
local name = arg[2]
create_topics({{name = name, partitions = n, configs = {[arg[3]] = arg[4]}}}, {if_not_exists = arg[5] == "y"})
create_topics(unpack({"a", "b"}))
lag(nil, {partial = true})
local opts = {}
delete_topics(name, opts)
local t = {}
t.lagg = print
t.lagg()
string.trim = function(s) return s end
print(string.trim(" x "))
kafka.default.note = "mine"
`)
	assert.Empty(t, findings(r))
}

// Check says what the call would raise: a finding on a literal call is the
// runtime's own error for it.
func TestCallFindingsAreWhatTheRuntimeRaises(t *testing.T) {
	rt := luaapi.New(luaapi.Options{})
	defer rt.Close()
	for _, src := range []string{
		`create_topics({{name = "t", partitions = 0}})`,
		`create_topics({{name = "t", partitions = 3}}, {if_not_exist = true})`,
		`delete_topics("x", {if_exists = "yes"})`,
		`create_partitions{orders = 70000000000}`,
		`list_offsets("t", "newest")`,
		`describe_quorum(1)`,
		`lag({"g"}, {partial = true}, 3)`,
		`lag{partal = true}`,
		`alter_configs{{topic = "t", set = {a = "1"}, remove = {"x"}}}`,
		`create_acls{{principal = "alice", operation = "read", resource_type = "topic", resource_name = "t"}}`,
		`kafka.sleep(-1)`,
		`reset_offsets{group = "g", to = "earliest", dry = true}`,
	} {
		r := checkSrc(t, "c.lua", src)
		require.Len(t, r.Findings, 1, src)
		_, err := rt.DoString(context.Background(), "c.lua", src)
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), r.Findings[0].Message, src)
	}
}

// No false finding on anything shipped: the runbooks, their library and
// their tests, the example plugin, what kadmin-lua new writes, every
// declared function's example.
func TestCheckFindsNothingInWhatShips(t *testing.T) {
	rt := luaapi.New(luaapi.Options{PluginPath: []string{"../../examples/plugins"}})
	defer rt.Close()
	require.NoError(t, rt.LoadPlugins(context.Background()))
	c := New(rt.Plugins())
	defer c.Close()
	n := 0
	require.NoError(t, fs.WalkDir(scripts.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(scripts.FS, p)
		require.NoError(t, err)
		r := c.Check(filepath.Join("../../scripts", p), src)
		assert.Empty(t, findings(r), p)
		n++
		return nil
	}))
	assert.GreaterOrEqual(t, n, 9)
	examples, err := filepath.Glob("../../examples/*/*.lua")
	require.NoError(t, err)
	require.NotEmpty(t, examples)
	for _, p := range examples {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Empty(t, findings(c.Check(p, src)), p)
	}
	// The shipped runbooks' tests, and what kadmin-lua new writes: the
	// runbook or plugin, its test, lib/args.lua.
	tests, err := filepath.Glob("../../scripts/tests/*_test.lua")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(tests), 8)
	dir := t.TempDir()
	for _, kind := range starter.Kinds {
		wrote, err := starter.Write(kind, "new-"+kind, dir, false)
		require.NoError(t, err)
		tests = append(tests, wrote...)
	}
	for _, p := range tests {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Empty(t, findings(c.Check(p, src)), p)
	}
	for _, f := range luaapi.Funcs() {
		assert.Empty(t, findings(c.Check(f.Name+" example", []byte(f.Example))), f.Name)
	}
	// Without the plugin loaded, a call of its function is an unknown global.
	bare := New(nil)
	defer bare.Close()
	assert.Equal(t, []string{"1:8: unknown global 'empty_topics' (it is nil: nothing sets it)"},
		findings(bare.Check("p.lua", []byte("return empty_topics()"))))
	assert.Empty(t, findings(c.Check("p.lua", []byte("return empty_topics()"))))
}

// The shipped runbooks' blast radius, as a reviewer reads it.
func TestCheckListsTheRunbooksChanges(t *testing.T) {
	src, err := fs.ReadFile(scripts.FS, "reset-offsets.lua")
	require.NoError(t, err)
	r := checkSrc(t, "reset-offsets.lua", string(src))
	require.Len(t, r.Changes, 1)
	assert.Equal(t, "reset_offsets", r.Changes[0].Function)
	assert.True(t, r.Changes[0].Destructive)
	assert.Contains(t, strings.Split(string(src), "\n")[r.Changes[0].Line-1], "reset_offsets")
}

// A plugin's table is held to the loader's declaration, as far as it is
// written literally; its functions may not shadow built-ins.
func TestCheckPluginTable(t *testing.T) {
	r := checkSrc(t, "bad-plugin.lua", `local function f() return 1 end
return {
  version = "1",
  functions = {
    lag = f,
    ok_fn = {fn = f, sumary = "typo"},
  },
  commands = {
    ["do-it"] = {usage = "X", run = f},
  },
}
`)
	assert.Equal(t, []string{
		`5:5: plugin function lag would shadow the built-in lag; rename it`,
		`6:22: plugin table: functions: ok_fn: unknown key "sumary" (did you mean "summary"?) (allowed: summary, args, returns, doc, example, fn)`,
	}, findings(r))
	r = checkSrc(t, "cmd-plugin.lua", `return {commands = {go = {usage = "X"}}}`)
	assert.Equal(t, []string{`1:21: plugin table: commands: go: run: is required`}, findings(r))
}
