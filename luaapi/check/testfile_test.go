package check

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
	"github.com/kadmin-lua/kadmin-lua/luaapi/luatest"
)

// One mistake per line of a test file, each where it is; the test
// functions themselves are no unknown globals.
const seededTest = `fixture{brokers = 3, topics = {{name = "orders", partitions = 6}}}
tset("typo", function() end)
test("x", function()
  local r = run("add-partitions", "orders", "12", {dryrun = true})
  expect(r.exit):iss(0)
  expect(r.exit).never:equal(1)
  local e = expect(r.rows)
  e:has_lenght(2)
  assert.sme(1, 1)
  assert.are.sme(1, 1)
  assert.same(1, 1, "m", 4)
  fault{api = "Metadta", error = "NOT_CONTROLLER"}
  fault{api = "Metadata", eror = "NOT_CONTROLLER"}
  broker_down("one")
  expect(1):has_length("x")
  local f = fault{api = "Metadata", error = "NOT_CONTROLLER", times = 2}
  expect(f.hits()):is(0)
  local dry, real = assert.dry_run_matches("add-partitions", "orders", 9)
  expect(changes(snapshot(), snapshot())):equals{}
  print(dry, real, cluster().brokers, #audit(), dry_run("add-partitions", "orders", "7").exit)
end, {timout = 5})
`

func TestCheckKnowsTheTestFunctionsInATestFile(t *testing.T) {
	r := checkSrc(t, "seeded_test.lua", seededTest)
	assert.Equal(t, []string{
		`2:1: unknown global 'tset' (did you mean 'test'?)`,
		`3:1: test: options: unknown key "timout" (did you mean "timeout"?) (allowed: fixture, timeout)`,
		`4:13: run: args #3: unknown key "dryrun" (did you mean "dry_run"?) (allowed: dry_run, env)`,
		`5:18: unknown method 'iss' of an expectation (did you mean 'is'?)`,
		`6:24: unknown method 'equal' of an expectation (did you mean 'equals'?)`,
		`8:5: unknown method 'has_lenght' of an expectation (did you mean 'has_length'?)`,
		`9:10: unknown field 'sme' of assert (did you mean 'same'?)`,
		`10:14: unknown field 'sme' of assert.are (did you mean 'same'?)`,
		`11:10: assert.same: takes at most 3 arguments, assert.same([want][, got][, msg]), got 4`,
		`12:3: fault: api: unknown Kafka request Metadta (Kafka's names: CreateTopics, Metadata, OffsetCommit, ...)`,
		`13:3: fault: unknown key "eror" (did you mean "error"?) (allowed: api, error, latency_ms, times, topic, group, resource, broker)`,
		`14:3: broker_down: id: must be a broker id between 0 and 2147483647, got "one"`,
		`15:13: expectation:has_length: n: must be a finite number >= 0, got "x"`,
	}, findings(r))

	// Only a test file has them: elsewhere test() is an unknown global.
	r = checkSrc(t, "runbook.lua", "test(\"x\", function() end)\nassert.same(1, 1)\n")
	assert.Equal(t, []string{"1:1: unknown global 'test' (a test function: kadmin-lua test gives it to *_test.lua files only)"}, findings(r))
}

// A finding on a test function's call is the error the test runner
// raises for that call: both read it through the declaration in
// luatest.Globals.
func TestTestCallFindingsAreWhatTheRunnerRaises(t *testing.T) {
	calls := []string{ // one of each way a call is declared
		`fault{api = "Metadata", eror = "NOT_CONTROLLER"}`, // a table of named arguments
		`fault{api = "Metadta", error = "NOT_CONTROLLER"}`, // a name checked by the runner's own reader
		`run("x", "a", {dryrun = true})`,                   // a variadic argument, then options
		`broker_down("one")`,                               // a Kafka width
		`cluster(1)`,                                       // no arguments
		`assert.are.same(1, 1, "m", 4)`,                    // a check of assert.lua's, through an alias
		`expect({}):has_length("three")`,                   // an expectation's method
		`test("inner", function() end, {fixtures = "f"})`,  // an options table
		`fixture(5)`, // one of two kinds
	}
	var src strings.Builder
	want := map[string]string{}
	for _, call := range calls {
		r := checkSrc(t, "c_test.lua", call)
		require.Len(t, r.Findings, 1, call)
		want[call] = r.Findings[0].Message
		src.WriteString("test(" + strconv.Quote(call) + ", function() " + call + " end)\n")
	}
	dir := testfiles.Tree(t, map[string]string{"c_test.lua": src.String()})
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := luatest.Run(ctx, luatest.Options{Paths: []string{dir}, Stdout: &out})
	require.NoError(t, err)
	require.Len(t, s.Results, len(calls), out.String())
	for _, r := range s.Results {
		assert.True(t, r.Failed, r.Name)
		assert.Contains(t, r.Message, want[r.Name], r.Name)
	}
}
