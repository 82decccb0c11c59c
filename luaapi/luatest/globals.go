package luatest

// Global is a name `kadmin-lua test` adds to a test file's globals, beside
// kadmin-lua's own: for editors' definitions and `kadmin-lua check` of
// *_test.lua files, which would otherwise take them for unknown globals.
// TestGlobalsAreInstalled keeps the list and the runtime in step.
type Global struct {
	Name    string // "assert.dry_run_matches" for a field of a table
	Args    string // the parameters, as help() writes them
	Returns string
	Summary string
}

// Globals are the test functions, in the order docs/authoring.md lists them.
var Globals = []Global{
	{"test", "(name, fn[, {fixture=, timeout=}])", "", "Register a test: fn runs on a fresh in-process cluster; a failed check or an error fails it."},
	{"fixture", "(table | file)", "", "The cluster each test of the file starts from: a fixture table, or a fixture or snapshot file."},
	{"run", "(name, arg...[, {dry_run=, env=}])", "{exit=, ok=, rows=, values=, error=, stdout=, stderr=, plan=, changes=, checks=}", "Run a runbook as kadmin-lua run does, on the test's cluster."},
	{"dry_run", "(name, arg...[, {env=}])", "{exit=, ok=, rows=, values=, error=, stdout=, stderr=, plan=, changes=, checks=}", "run under --dry-run."},
	{"fault", "({api=, error=|latency_ms=, times=, topic=, group=, resource=, broker=})", "{hits=function, remove=function}", "Fail or delay the next requests of a Kafka API."},
	{"broker_down", "(id)", "", "Take a broker down: its connections fail, its partitions move to their next live replica."},
	{"broker_up", "(id)", "", "Bring a broker taken down back on its address."},
	{"snapshot", "([{records=}])", "fixture table", "The test's cluster now, as a fixture table."},
	{"changes", "(before, after)", "{{action=, kind=, name=, change=}...}", "The plan rows that take the cluster from one snapshot to another."},
	{"audit", "()", "{{op=, args=, items=, applied=}...}", "The changes the test's audit log holds."},
	{"cluster", "()", "{brokers={...}}", "Where the test's cluster listens."},
	{"expect", "(got)", "expectation", "Checks that read got first: expect(got):equals(want), :is, :matches, :contains, :has_length, :fails, .never."},
	{"assert", "(v[, msg])", "v, msg", "Lua's assert, with busted's checks as fields: same, equal, is_true, is_false, is_nil, is_not_nil, truthy, falsy, matches, contains, has_error."},
	{"assert.dry_run_matches", "(name, arg...)", "dry, real", "Run a runbook dry then for real; fail unless the dry run announced exactly what the real run did."},
}
