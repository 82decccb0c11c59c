package luatest

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/luaapi"
	"github.com/kadmin-lua/kadmin-lua/snapshot"
)

// Global is a name `kadmin-lua test` gives a test file beside kadmin-lua's
// own. Globals is the one list of them: install puts them into each test
// file's state from it, `kadmin-lua check` knows a test file's names and
// holds their calls to it, and `kadmin-lua meta` writes their editor
// definitions and luacheck standard from it.
type Global struct {
	// Func declares it as luaapi declares a built-in. Name is "test" for a
	// global, "assert.same" for a field of a table, "expectation:is" for a
	// method of the value expect returns. Params, Options, TableCall,
	// NoArgs and Variadic declare the call; where they do, every call reads
	// its arguments through them before the function runs (the runtime and
	// check read them alike), else Args gives the call's shape. Returns is a
	// result shape, a word ("nothing") or "expectation".
	*luaapi.Func
	// Is names the table a field holds when it is no function: assert.are
	// and assert.is are assert itself, an expectation's never another
	// expectation.
	Is string
	// Results names the values a function returns when it returns more
	// than one, each of the Returns shape (assert.dry_run_matches: dry, real).
	Results []string
	// impl is the Go function installed under the name; nil for what
	// assert.lua defines, which is installed from the table it returns.
	impl func(t *testEnv, L *lua.LState) int
}

// Owner is the table a field or method belongs to ("assert",
// "expectation"), "" for a global; Key its name there.
func (g Global) Owner() (owner, key string, method bool) {
	if i := strings.IndexAny(g.Name, ".:"); i >= 0 {
		return g.Name[:i], g.Name[i+1:], g.Name[i] == ':'
	}
	return "", g.Name, false
}

// The argument types the declarations share.
var (
	fixtureSource = luaapi.OneOf(
		luaapi.NonEmptyStr().Sample("prod.json"),
		luaapi.MapOf[string, any](luaapi.Str(), luaapi.AnyType{}),
	).Described("fixture table, or a fixture or snapshot file (relative to the test file)")
	// anyNumber: a runbook argument given as a number is passed as a
	// string, as a shell would.
	anyNumber = luaapi.Number(-math.MaxFloat64)
	envOption = luaapi.Field{Name: "env", Type: luaapi.MapOf[string, string](luaapi.NonEmptyStr(), luaapi.Str()),
		Doc: "environment variables the runbook sees (it sees none otherwise)"}
	runArgs = luaapi.OneOf(luaapi.Str(), anyNumber, luaapi.Record(
		luaapi.Field{Name: "dry_run", Type: luaapi.Bool(), Doc: "run it under --dry-run"}, envOption,
	)).Described("argument (string or number), or the options table {dry_run=, env=} last")
	dryRunArgs = luaapi.OneOf(luaapi.Str(), anyNumber, luaapi.Record(envOption)).
			Described("argument (string or number), or the options table {env=} last")
	runbookName   = luaapi.NonEmptyStr().Sample("add-partitions")
	snapshotTable = luaapi.MapOf[string, any](luaapi.Str(), luaapi.AnyType{}).Described("snapshot table (snapshot())")
	brokerID      = luaapi.Int32(0).Named("broker id")
	message       = luaapi.Param{Name: "msg", Type: luaapi.Str(), Optional: true, Doc: "said before the failure"}
)

// value is a parameter that takes any value, nil included.
func value(name, doc string) luaapi.Param {
	return luaapi.Param{Name: name, Type: luaapi.AnyType{}, Optional: true, Doc: doc}
}

// The shape run, dry_run and assert.dry_run_matches return.
const runResult = "{exit=int, ok=bool, rows=, values={...}, error=string?, stdout=string, stderr=string, plan={string...}, " +
	"changes={{op=string, args=, items={{key=string, outcome=string, error=string?}...}, applied={string...}, error=string?}...}, checks={string...}}"

// check declares one of assert's checks of a single value: is_true, ...
func check(name, what string) Global {
	return Global{Func: &luaapi.Func{Name: "assert." + name, Params: []luaapi.Param{value("v", "the value"), message},
		Returns: "nothing", Summary: "Fail unless v is " + what + "."}}
}

// expectCheck declares an expectation's check that takes no argument.
func expectCheck(name, what string) Global {
	return Global{Func: &luaapi.Func{Name: "expectation:" + name, NoArgs: true, Returns: "nothing",
		Summary: "Fail unless the value is " + what + "."}}
}

// Globals are the test functions: the runner's own, then expect with an
// expectation's checks, then assert with its fields (the order the editor
// definitions list them in). TestGlobalsAreInstalled keeps the list and a
// test file's state in step, both ways.
var Globals = []Global{
	{Func: &luaapi.Func{Name: "test", Params: []luaapi.Param{
		{Name: "name", Type: luaapi.NonEmptyStr(), Doc: "the test's name, as reports and -run show it"},
		{Name: "fn", Type: luaapi.FuncType{}, Doc: "the test: an error or a failed check fails it"},
	}, Options: []luaapi.Field{
		{Name: "fixture", Type: fixtureSource, Doc: "this test's own fixture"},
		{Name: "timeout", Type: luaapi.Count(1).Named("timeout in ms"), Doc: "this test's own timeout"},
	}, Returns: "nothing",
		Summary: "Register a test: fn runs on a fresh in-process cluster; a failed check or an error fails it."},
		impl: (*testEnv).luaTest},
	{Func: &luaapi.Func{Name: "fixture", Params: []luaapi.Param{{Name: "source", Type: fixtureSource, Doc: "the fixture"}},
		Returns: "nothing", Summary: "The cluster each test of the file starts from: a fixture table, or a fixture or snapshot file."},
		impl: (*testEnv).luaFixture},
	{Func: &luaapi.Func{Name: "run", Variadic: true, Params: []luaapi.Param{
		{Name: "name", Type: runbookName, Doc: "the runbook: a file beside the test (or above a tests/ directory), a built-in runbook or a plugin command"},
		{Name: "args", Type: runArgs, Doc: "its arguments, as on a command line, then the options table"},
	}, Args: "(name, arg...[, {dry_run=, env=}])", Returns: runResult,
		Summary: "Run a runbook as kadmin-lua run does, on the test's cluster."},
		impl: func(t *testEnv, L *lua.LState) int { return t.luaRun(L, false) }},
	{Func: &luaapi.Func{Name: "dry_run", Variadic: true, Params: []luaapi.Param{
		{Name: "name", Type: runbookName, Doc: "the runbook, found as run finds it"},
		{Name: "args", Type: dryRunArgs, Doc: "its arguments, then the options table"},
	}, Args: "(name, arg...[, {env=}])", Returns: runResult, Summary: "run under --dry-run."},
		impl: func(t *testEnv, L *lua.LState) int { return t.luaRun(L, true) }},
	{Func: &luaapi.Func{Name: "fault", TableCall: true, Options: []luaapi.Field{
		{Name: "api", Type: luaapi.NonEmptyStr().Checked("Kafka request name", checkAPIName).Sample("Metadata"), Required: true,
			Doc: "the Kafka request, in any case, with or without underscores: CreatePartitions, create_partitions"},
		{Name: "error", Type: luaapi.NonEmptyStr().Checked("Kafka error name", checkErrorName).Sample("NOT_CONTROLLER"),
			Doc: "answer with this Kafka error (NOT_CONTROLLER, REQUEST_TIMED_OUT, ...)"},
		{Name: "latency_ms", Type: luaapi.NumberBetween(1, maxLatencyMillis), Doc: "delay the requests by this long instead"},
		{Name: "times", Type: luaapi.OneOf(luaapi.Enum("always"), luaapi.Count(1)).Described(`count >= 1, or "always"`),
			Doc: `how many requests (1; "always" until removed)`},
		{Name: "topic", Type: luaapi.Str(), Doc: "only requests about this topic"},
		{Name: "group", Type: luaapi.Str(), Doc: "only requests about this group"},
		{Name: "resource", Type: luaapi.Str(), Doc: "only requests about this resource"},
		{Name: "broker", Type: brokerID, Doc: "only requests to this broker"},
	}, Args: "({api=, error=|latency_ms=, times=, topic=, group=, resource=, broker=})", Returns: "{hits=, remove=}",
		Summary: "Fail or delay the next requests of a Kafka API; the handle has hits() and remove()."},
		impl: (*testEnv).luaFault},
	{Func: &luaapi.Func{Name: "broker_down", Params: []luaapi.Param{{Name: "id", Type: brokerID, Doc: "the broker"}}, Returns: "nothing",
		Summary: "Take a broker down: its connections fail, its partitions move to their next live replica."},
		impl: func(t *testEnv, L *lua.LState) int { return t.luaBroker(L, "broker_down") }},
	{Func: &luaapi.Func{Name: "broker_up", Params: []luaapi.Param{{Name: "id", Type: brokerID, Doc: "the broker"}}, Returns: "nothing",
		Summary: "Bring a broker taken down back on its address."},
		impl: func(t *testEnv, L *lua.LState) int { return t.luaBroker(L, "broker_up") }},
	{Func: &luaapi.Func{Name: "snapshot", Options: []luaapi.Field{
		{Name: "records", Type: luaapi.Count(0).Between(0, snapshot.MaxRecordsPerPartition), Doc: "also read the first N records of each partition"},
	}, Returns: "{[string]=json}", Summary: "The test's cluster now, as a fixture table."},
		impl: (*testEnv).luaSnapshot},
	{Func: &luaapi.Func{Name: "changes", Params: []luaapi.Param{
		{Name: "before", Type: snapshotTable, Doc: "a snapshot()"},
		{Name: "after", Type: snapshotTable, Doc: "a later snapshot()"},
	}, Returns: "{{action=string, kind=string, name=string, change=string}...}",
		Summary: "The plan rows that take the cluster from one snapshot to another."},
		impl: (*testEnv).luaChanges},
	{Func: &luaapi.Func{Name: "audit", NoArgs: true,
		Returns: "{{op=string, args=, items={{key=string, outcome=string, error=string?}...}, applied={string...}, error=string?}...}",
		Summary: "The changes the test's audit log holds."},
		impl: (*testEnv).luaAudit},
	{Func: &luaapi.Func{Name: "cluster", NoArgs: true, Returns: "{brokers={string...}}",
		Summary: "Where the test's cluster listens: kafka.connect{brokers = cluster().brokers}."},
		impl: (*testEnv).luaCluster},

	{Func: &luaapi.Func{Name: "expect", Params: []luaapi.Param{value("got", "the value the checks read")}, Returns: "expectation",
		Summary: "Checks that read got first: expect(got):equals(want); expect(got).never negates the next check."}},
	{Func: &luaapi.Func{Name: "expectation:equals", Params: []luaapi.Param{value("want", "the value expected")}, Returns: "nothing",
		Summary: "Fail unless the value is the same as want (tables by content, with a diff)."}},
	{Func: &luaapi.Func{Name: "expectation:same", Params: []luaapi.Param{value("want", "the value expected")}, Returns: "nothing",
		Summary: "expectation:equals."}},
	{Func: &luaapi.Func{Name: "expectation:is", Params: []luaapi.Param{value("want", "the value expected")}, Returns: "nothing",
		Summary: "Fail unless the value == want."}},
	expectCheck("is_true", "true"),
	expectCheck("is_false", "false"),
	expectCheck("is_nil", "nil"),
	expectCheck("is_not_nil", "not nil"),
	expectCheck("truthy", "neither nil nor false"),
	expectCheck("falsy", "nil or false"),
	{Func: &luaapi.Func{Name: "expectation:matches", Params: []luaapi.Param{{Name: "pattern", Type: luaapi.Str(), Doc: "a Lua pattern"}},
		Returns: "nothing", Summary: "Fail unless the value is a string matching pattern."}},
	{Func: &luaapi.Func{Name: "expectation:contains", Params: []luaapi.Param{value("v", "the element or substring")}, Returns: "nothing",
		Summary: "Fail unless the value (a table or a string) contains v."}},
	{Func: &luaapi.Func{Name: "expectation:has_length", Params: []luaapi.Param{{Name: "n", Type: luaapi.Number(0), Doc: "the length"}},
		Returns: "nothing", Summary: "Fail unless #value is n."}},
	{Func: &luaapi.Func{Name: "expectation:fails", Params: []luaapi.Param{{Name: "pattern", Type: luaapi.Str(), Optional: true, Doc: "a Lua pattern the error matches"}},
		Returns: "value", Summary: "Call the value (a function); fail unless it raises an error (matching pattern). Returns the error."}},
	{Func: &luaapi.Func{Name: "expectation.never", Summary: "The same checks, negated."}, Is: "expectation"},

	{Func: &luaapi.Func{Name: "assert", Args: "(v[, msg])", Returns: "v, msg",
		Summary: "Lua's assert, with busted's checks as fields: same, equal, is_true, is_false, is_nil, is_not_nil, truthy, falsy, matches, contains, has_error."}},
	{Func: &luaapi.Func{Name: "assert.same", Params: []luaapi.Param{value("want", "the value expected"), value("got", "the value got"), message},
		Returns: "nothing", Summary: "Fail unless got is the same as want (tables by content, with a diff)."}},
	{Func: &luaapi.Func{Name: "assert.equal", Params: []luaapi.Param{value("want", "the value expected"), value("got", "the value got"), message},
		Returns: "nothing", Summary: "Fail unless got == want."}},
	check("is_true", "true"),
	check("is_false", "false"),
	check("is_nil", "nil"),
	check("is_not_nil", "not nil"),
	check("truthy", "neither nil nor false"),
	check("falsy", "nil or false"),
	{Func: &luaapi.Func{Name: "assert.matches", Params: []luaapi.Param{{Name: "pattern", Type: luaapi.Str(), Doc: "a Lua pattern"}, value("s", "the string"), message},
		Returns: "nothing", Summary: "Fail unless s is a string matching pattern."}},
	{Func: &luaapi.Func{Name: "assert.contains", Params: []luaapi.Param{value("list", "a table or a string"), value("v", "the element or substring"), message},
		Returns: "nothing", Summary: "Fail unless list (a table or a string) contains v."}},
	{Func: &luaapi.Func{Name: "assert.has_error", Params: []luaapi.Param{
		{Name: "fn", Type: luaapi.FuncType{}, Doc: "called with no arguments"},
		{Name: "pattern", Type: luaapi.Str(), Optional: true, Doc: "a Lua pattern the error matches"},
	}, Returns: "value", Summary: "Call fn; fail unless it raises an error (matching pattern). Returns the error."}},
	{Func: &luaapi.Func{Name: "assert.are", Summary: "assert itself: assert.are.same reads as busted's."}, Is: "assert"},
	{Func: &luaapi.Func{Name: "assert.is", Summary: "assert itself: assert.is.equal reads as busted's."}, Is: "assert"},
	{Func: &luaapi.Func{Name: "assert.dry_run_matches", Variadic: true, Params: []luaapi.Param{
		{Name: "name", Type: runbookName, Doc: "the runbook, found as run finds it"},
		{Name: "args", Type: dryRunArgs, Doc: "its arguments, then the options table"},
	}, Args: "(name, arg...[, {env=}])", Returns: runResult,
		Summary: "Run a runbook dry then for real; fail unless the dry run announced exactly what the real run did. Returns both results."},
		Results: []string{"dry", "real"}, impl: (*testEnv).luaDryRunMatches},
}
