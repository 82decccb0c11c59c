package luatest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
)

func runTests(t *testing.T, o Options) (*Summary, string) {
	t.Helper()
	var out bytes.Buffer
	o.Stdout = &out
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Run(ctx, o)
	require.NoError(t, err)
	return s, out.String()
}

// A runbook and its test, as `kadmin-lua new runbook` would lay them out.
const growRunbook = `-- grow.lua: raise TOPIC to COUNT partitions.
local topic, count = arg[1], tonumber(arg[2])
local before = #describe_topics(topic)[1].partitions
if count == before then
  kafka.log.info("nothing to do")
  return {topic = topic, changed = false}
end
create_partitions{[topic] = count}
return {topic = topic, before = before, after = count, changed = true}
`

// A good suite passes: fixtures as tables, runbooks run by name, faults,
// a broker down, assertions, snapshots and their changes.
func TestAGoodSuitePasses(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"grow.lua": growRunbook,
		"grow_test.lua": `
fixture{brokers = 3, topics = {{name = "orders", partitions = 6, replication_factor = 3, configs = {["retention.ms"] = 86400000}}}}

test("raises the partition count", function()
  local r = run("grow", "orders", "24")
  expect(r.exit):is(0)
  expect(r.rows):equals{topic = "orders", before = 6, after = 24, changed = true}
  expect(#describe_topics("orders")[1].partitions):is(24)
  expect(r.changes[1].op):is("create_partitions")
end)

test("does nothing when the count is reached", function()
  local r = run("grow", "orders", 6)
  assert.same({topic = "orders", changed = false}, r.rows)
  assert.matches("nothing to do", r.stderr)
  expect(r.changes):has_length(0)
end)

test("the dry run announces what the run does", function()
  local dry, real = assert.dry_run_matches("grow", "orders", "12")
  expect(dry.plan):contains("create_partitions: raise orders to 12 partitions")
  expect(real.rows.after):is(12)
end)

test("retries through a controller change", function()
  local f = fault{api = "CreatePartitions", error = "NOT_CONTROLLER", times = 2}
  run("grow", "orders", "8")
  expect(f.hits()):is(2)
  expect(#describe_topics("orders")[1].partitions):is(8)
end)

test("each test has a fresh cluster", function()
  expect(#describe_topics("orders")[1].partitions):is(6)
end)

test("a snapshot before and after says what changed", function()
  local before = snapshot()
  run("grow", "orders", "7")
  expect(changes(before, snapshot())):equals{
    {action = "create_partitions", kind = "topic", name = "orders", change = "raise topic orders partitions 6 -> 7"}}
end)

test("a latency delays requests and they still succeed", function()
  local f = fault{api = "DescribeConfigs", latency_ms = 50, times = 2}
  expect(describe_configs{{topic = "orders"}}[1].configs["retention.ms"].value):is("86400000")
  expect(describe_configs{{topic = "orders"}}[1].name):is("orders")
  describe_configs{{topic = "orders"}}
  expect(f.hits()):is(2)
end)

test("a bad fault is refused", function()
  expect(function() fault{api = "Nope", error = "NOT_CONTROLLER"} end):fails("unknown Kafka request Nope")
  expect(function() fault{api = "Metadata", error = "NOT_AN_ERROR"} end):fails("unknown Kafka error")
  expect(function() fault{api = "Metadata"} end):fails("give an error")
end)

test("a broker down", function()
  broker_down(0)
  expect(describe_cluster().brokers[1].state).never:is("live")
  expect(describe_topics("orders")[1].partitions[1].offline_replicas):equals{0}
  broker_up(0)
  expect(describe_cluster().brokers[1].state):is("live")
end)

test("errors are values to check", function()
  local err = expect(function() create_topics{{name = "orders"}} end):fails("TOPIC_ALREADY_EXISTS")
  expect(err.code):is("TOPIC_ALREADY_EXISTS")
  expect(nil).never:is_not_nil()
end)

test("a per-test fixture", function()
  expect(#list_topics()):is(1)
  expect(lag("g")[1].total_lag):is(1)
end, {fixture = {topics = {{name = "t", records = 2}}, groups = {{name = "g", lag = {t = {1}}}}}})
`})
	s, out := runTests(t, Options{Paths: []string{dir}})
	assert.Equal(t, 0, s.Failed, out)
	assert.Equal(t, 11, s.Passed, out)
	assert.Regexp(t, `(?m)^ok    .*grow_test.lua: raises the partition count \(\d+ms\)$`, out)
	assert.Regexp(t, `(?m)^11 passed, 0 failed \(.*\)$`, out)
}

// A bad suite fails each bad test with a message saying what was expected
// and what came, at the test's line; the others still pass.
func TestABadSuiteFailsWithClearMessages(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"bad_test.lua": `fixture{topics = {{name = "orders", partitions = 3}}}
test("passes", function() expect(1):is(1) end)
test("a table differs", function()
  expect({name = "orders", partitions = 3, configs = {a = "1"}}):equals{name = "orders", partitions = 4, configs = {a = "2"}}
end)
test("a plain assert", function()
  assert(#list_topics() == 2, "two topics expected")
end)
test("an error", function()
  describe_topics("nope")
end)
test("a failed check", function()
  kafka.check(false, "lag too high")
end)
test("a loop that never ends", function()
  while true do end
end, {timeout = 300})
`})
	s, out := runTests(t, Options{Paths: []string{dir}})
	assert.Equal(t, 1, s.Passed, out)
	assert.Equal(t, 5, s.Failed, out)
	file := filepath.Join(dir, "bad_test.lua")
	for _, want := range []string{
		"FAIL  " + file + ": a table differs",
		"      " + file + ":4: expected the same values, they differ at:",
		`        configs.a: expected "2", got "1"`,
		"        partitions: expected 4, got 3",
		"      " + file + ":7: two topics expected",
		"FAIL  " + file + ": an error",
		"UNKNOWN_TOPIC_OR_PARTITION",
		"kafka.check failed: lag too high",
		"      " + file + ":15: timed out after 300ms: the test was stopped",
		"1 passed, 5 failed",
	} {
		assert.Contains(t, out, want)
	}
}

// A fixture that does not hold together fails its file at the fixture's
// line; a file that does not load fails as a whole.
func TestBadFixturesAndFilesAreNamed(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"a_test.lua": `
fixture{brokers = 2, topics = {{name = "t", replicas = {{0, 5}}}}}
test("x", function() end)`,
		"b_test.lua": `test("x", function() end`,
		"c_test.lua": `fixture("snap.json")
test("x", function() end)`,
		"snap.json":  "{\n  \"topics\": [{\"name\": \"t\", \"partitions\": \"many\"}]\n}",
		"d_test.lua": `-- no tests`,
		"e_test.lua": `while true do end`,
	})
	s, out := runTests(t, Options{Paths: []string{dir}, Timeout: 200 * time.Millisecond})
	assert.Equal(t, 5, s.Failed, out)
	assert.Contains(t, out, filepath.Join(dir, "e_test.lua")+": loading the file took over 200ms")
	assert.Contains(t, out, filepath.Join(dir, "a_test.lua")+`:2: topics #1 "t": replicas #1 (partition 0): broker 5 does not exist (brokers: 0, 1)`)
	assert.Contains(t, out, filepath.Join(dir, "b_test.lua")+": (file)")
	assert.Contains(t, out, filepath.Join(dir, "snap.json")+":2: topics #1: partitions: expected int, got string")
	assert.Contains(t, out, "the file registers no test")
}

// A test reaches no cluster but its own unless the run allows it.
func TestATestReachesNoOtherCluster(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"c_test.lua": `
test("another cluster is refused", function()
  local err = expect(function() kafka.connect{brokers = "prod-kafka:9092"} end):fails()
  expect(tostring(err)):matches("not this test's cluster")
end)
test("its own is fine", function()
  local c = kafka.connect{brokers = cluster().brokers}
  expect(#c:describe_cluster().brokers):is(3)
end)`})
	s, out := runTests(t, Options{Paths: []string{dir}})
	assert.Equal(t, 2, s.Passed, out)
}

// -run selects tests by name; --junit writes what CI reads.
func TestRunPatternAndJUnit(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"j_test.lua": `
test("alpha passes", function() end)
test("beta fails", function() error("boom") end)
test("gamma skipped", function() error("never run") end)`})
	s, out := runTests(t, Options{Paths: []string{dir}, Run: regexp.MustCompile("alpha|beta")})
	assert.Equal(t, 1, s.Passed, out)
	assert.Equal(t, 1, s.Failed, out)
	assert.NotContains(t, out, "gamma")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, WriteJUnit(junit, s))
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `<testsuites tests="2" failures="1"`)
	assert.Contains(t, string(b), `<testcase name="beta fails" classname="`+filepath.Join(dir, "j_test.lua")+`"`)
	assert.Contains(t, string(b), `boom</failure>`)
}

// A dry run that says one thing while the run does another is caught.
func TestDryRunThatLiesIsCaught(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"liar.lua": `if kafka.dry_run() then
  kafka.log.info("nothing to do")
  return
end
create_topics{"surprise"}`,
		"liar_test.lua": `test("announces what it does", function() assert.dry_run_matches("liar") end)`,
	})
	s, out := runTests(t, Options{Paths: []string{dir}})
	assert.Equal(t, 1, s.Failed, out)
	assert.Contains(t, out, "the dry run of liar did not announce what its real run did:")
	assert.Contains(t, out, "done, not announced: create_topics: surprise")
}

func TestDiscoverFindsTestFiles(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"a_test.lua": "", "sub/b_test.lua": "", "c.lua": "", ".hidden/d_test.lua": ""})
	files, err := Discover([]string{dir})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "a_test.lua"), filepath.Join(dir, "sub", "b_test.lua")}, files)
	_, err = Discover([]string{t.TempDir()})
	require.ErrorContains(t, err, "no *_test.lua files")
	_, err = Discover([]string{filepath.Join(dir, "nope_test.lua")})
	require.ErrorContains(t, err, "no such file")
}
