package luatest

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Globals and a test file's state agree both ways: every name listed is
// there (a function, or the table its Is names), and nothing is there that
// is not listed: the globals added, assert's fields, an expectation's
// methods.
func TestGlobalsAreInstalled(t *testing.T) {
	before := luaapi.New(luaapi.Options{Stdout: io.Discard, Stderr: io.Discard})
	defer before.Close()
	rt := luaapi.New(luaapi.Options{Stdout: io.Discard, Stderr: io.Discard})
	defer rt.Close()
	(&testEnv{r: &runner{}, rt: rt, collect: &collected{}}).install()

	v, err := rt.DoString(context.Background(), "check", "return assert, expect(1), expect(1).never")
	require.NoError(t, err)
	assertTable := v[0].(*lua.LTable)
	expectation := v[1].(*lua.LTable).Metatable.(*lua.LTable)
	assert.Same(t, expectation, v[2].(*lua.LTable).Metatable, "never is an expectation")
	tables := map[string]*lua.LTable{"assert": assertTable, "expectation": expectation}

	installed := map[string]lua.LValue{}
	rt.L.G.Global.ForEach(func(k, v lua.LValue) {
		if before.L.G.Global.RawGet(k) == lua.LNil {
			installed[lua.LVAsString(k)] = v
		}
	})
	assertTable.ForEach(func(k, v lua.LValue) { installed["assert."+lua.LVAsString(k)] = v })
	expectation.ForEach(func(k, v lua.LValue) {
		if k.String() != "__index" {
			installed["expectation:"+lua.LVAsString(k)] = v
		}
	})
	installed["expectation.never"] = v[2]

	listed := map[string]bool{}
	for _, g := range Globals {
		listed[g.Name] = true
		assert.Nil(t, luaapi.Lookup(g.Name), "%s is a kadmin-lua function already", g.Name)
		got, ok := installed[g.Name]
		if !assert.True(t, ok, "%s is listed, not installed", g.Name) {
			continue
		}
		switch {
		case g.Is == "assert": // assert.are, assert.is
			assert.Same(t, assertTable, got, g.Name)
		case g.Is != "": // an expectation's never
			assert.Same(t, tables[g.Is], got.(*lua.LTable).Metatable, g.Name)
		case g.Name == "assert":
			assert.Same(t, assertTable, got)
		default:
			assert.Equal(t, lua.LTFunction, got.Type(), g.Name)
		}
	}
	for name := range installed {
		assert.True(t, listed[name], "%s is installed, not listed in Globals", name)
	}
}

// A call of a test function is read through its declaration before it
// runs, as a built-in's is: the refusal names the function and the
// argument, and a Lua-defined check is held to its declaration too.
func TestTestFunctionsReadTheirArgumentsThroughTheirDeclarations(t *testing.T) {
	calls := map[string]string{
		`fault{api = "Metadata", eror = "NOT_CONTROLLER"}`: `fault: unknown key "eror" (did you mean "error"?)`,
		`fault{api = "Metadta", error = "NOT_CONTROLLER"}`: `fault: api: unknown Kafka request Metadta`,
		`fault{api = "Metadata", latency_ms = 0}`:          `fault: latency_ms: must be a finite number between 1 and 600000, got 0`,
		`run("x", "a", {dryrun = true})`:                   `run: args #2: unknown key "dryrun" (did you mean "dry_run"?)`,
		`dry_run("x", {dry_run = true})`:                   `dry_run: args #1: unknown key "dry_run"`,
		`broker_down("one")`:                               `broker_down: id: must be a broker id between 0 and 2147483647, got "one"`,
		`snapshot{record = 1}`:                             `snapshot: options: unknown key "record" (did you mean "records"?)`,
		`cluster(1)`:                                       `cluster: takes no arguments, got 1`,
		`assert.same(1, 1, "m", 4)`:                        `assert.same: takes at most 3 arguments`,
		`assert.are.equal(1, 1, 2)`:                        `assert.equal: msg: must be a string, got 2`,
		`assert.has_error("not a function")`:               `assert.has_error: fn: must be a function`,
		`expect(1, 2)`:                                     `expect: takes at most 1 argument`,
		`expect({}):has_length("three")`:                   `expectation:has_length: n: must be a finite number >= 0`,
		`expect(true).never:is_true(false)`:                `expectation:is_true: takes no arguments, got 1`,
		`test("inner", function() end, {timeout = 0})`:     `test: options: timeout: must be a timeout in ms between 1 and`,
		`expect(function() error("x") end):fails(1, 2)`:    `expectation:fails: takes at most 1 argument`,
		`assert.matches(nil, "s")`:                         `assert.matches: pattern: is required`,
		`test("inner", function() end, {fixtures = "f"})`:  `test: options: unknown key "fixtures" (did you mean "fixture"?)`,
		`expect(function() error("boom") end):fails("bo")`: "",
		`assert.same({a = 1}, {a = 1}, "same")`:            "",
	}
	src := ""
	for call := range calls {
		src += "test(" + strconv.Quote(call) + ", function() " + call + " end)\n"
	}
	dir := testfiles.Tree(t, map[string]string{"decl_test.lua": src})
	s, out := runTests(t, Options{Paths: []string{dir}})
	failed := map[string]string{}
	for _, r := range s.Results {
		if r.Failed {
			failed[r.Name] = r.Message
		}
	}
	for call, want := range calls {
		if want == "" {
			assert.NotContains(t, failed, call, out)
			continue
		}
		assert.Contains(t, failed[call], want, "%s\n%s", call, out)
	}
}
