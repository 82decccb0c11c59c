package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/fixture"
	"github.com/kadmin-lua/kadmin-lua/internal/testfiles"
)

// kadmin-lua test: a good suite exits 0, a bad one 1 with the failure and
// the closing line; -run and --junit as Go's and CI's; nothing to run is a
// usage error.
func TestTestCommand(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"good_test.lua": `fixture{topics = {{name = "orders", partitions = 2}}}
test("two partitions", function() expect(#describe_topics("orders")[1].partitions):is(2) end)`,
		"bad_test.lua": `test("wrong count", function() expect(#list_topics()):is(5) end)
test("right count", function() expect(#list_topics()):is(0) end)`,
	})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("test", filepath.Join(dir, "good_test.lua")), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "good_test.lua: two partitions")
	assert.Contains(t, c.stdout.String(), "1 passed, 0 failed")

	junit := filepath.Join(t.TempDir(), "report.xml")
	require.Equal(t, ExitScript, c.run("test", dir, "-junit", junit))
	out := c.stdout.String()
	assert.Contains(t, out, "FAIL  "+filepath.Join(dir, "bad_test.lua")+": wrong count")
	assert.Contains(t, out, filepath.Join(dir, "bad_test.lua")+":1: expected 5, got 0")
	assert.Contains(t, out, "2 passed, 1 failed")
	assert.Contains(t, c.stderr.String(), "kadmin-lua: 1 of 3 tests failed")
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `failures="1"`)

	require.Equal(t, ExitOK, c.run("test", dir, "-run", "right|two"), c.stdout.String())
	assert.Contains(t, c.stdout.String(), "2 passed, 0 failed")

	assert.Equal(t, ExitUsage, c.run("test", t.TempDir()))
	assert.Contains(t, c.stderr.String(), "no *_test.lua files")
}

// --fixture gives the files without a fixture theirs.
func TestTestCommandFixtureFlag(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{
		"f_test.lua": `test("the fixture's topic", function() expect(list_topics()[1].name):is("payments") end)`,
		"prod.json":  `{"topics": [{"name": "payments", "partitions": 3}]}`,
	})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--fixture", filepath.Join(dir, "prod.json"), "test", dir), c.stdout.String())
}

// --dry-run holds in a test as in every run mode: nothing is changed,
// nothing is written to the audit log, and a runbook's run is dry too.
func TestTestCommandDryRun(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"d_test.lua": `fixture{topics = {{name = "orders", partitions = 2}}}
test("dry", function()
  local r = create_topics{"new"}
  expect(r[1].dry_run):is(true)
  expect(#list_topics()):is(1)
  local run = run("add-partitions", "orders", "4")
  expect(run.rows[1].dry_run):is(true)
  expect(#describe_topics("orders")[1].partitions):is(2)
  expect(audit()):has_length(0)
end)`})
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--dry-run", "test", dir), c.stdout.String())
	assert.Contains(t, c.stdout.String(), "1 passed, 0 failed")
}

// -run becomes --run for test only: a script's own -run stays its own.
func TestGoStyleTestFlags(t *testing.T) {
	root := (&app{st: newCLI(t).state(nil)}).rootCmd()
	assert.Equal(t, []string{"--fixture", "f.json", "test", "--run", "x", "--junit=r.xml", "d"},
		goStyleTestFlags(root, []string{"--fixture", "f.json", "test", "-run", "x", "-junit=r.xml", "d"}))
	assert.Equal(t, []string{"run", "s.lua", "-run"}, goStyleTestFlags(root, []string{"run", "s.lua", "-run"}))
}

// snapshot -o FILE writes a fixture that --fixture starts a copy from,
// describing the same topics, configs, groups and offsets.
func TestSnapshotAndFixtureFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "demo.json")
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--embedded", "snapshot", "-o", file), c.stderr.String())
	assert.Contains(t, c.stderr.String(), "snapshot: wrote "+file+": 3 brokers, 3 topics")
	st, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	f, err := fixture.Read(file)
	require.NoError(t, err)

	const script = `local out = {}
for _, t in ipairs(describe_topics{"orders", "payments"}) do out[#out+1] = t.name .. ":" .. #t.partitions end
local cfg = describe_configs{{topic = "orders"}}[1].configs["retention.ms"]
local lag = lag("orders-processor")[1]
return {topics = out, retention = cfg.value, source = cfg.source, lag = lag.total_lag, cluster = describe_cluster().cluster_id}`
	require.Equal(t, ExitOK, c.run("--embedded", "-o", "json", "-e", script), c.stderr.String())
	var demo, copied map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &demo))
	require.Equal(t, ExitOK, c.run("--fixture", file, "-o", "json", "-e", script), c.stderr.String())
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &copied))
	assert.Equal(t, "copy-of-"+f.ClusterID, copied["cluster"], "a copy never answers with the original's id")
	delete(demo, "cluster")
	delete(copied, "cluster")
	assert.Equal(t, demo, copied)

	assert.Equal(t, ExitUsage, c.run("--embedded", "snapshot", "-o", "json"))
	assert.Contains(t, c.stderr.String(), "-o names its file")
	assert.Equal(t, ExitUsage, c.run("--embedded", "--fixture", file, "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "give --embedded or --fixture, not both")
}

// A malformed fixture is refused with its line, exit 2.
func TestFixtureFlagRefusesABadFile(t *testing.T) {
	dir := testfiles.Tree(t, map[string]string{"bad.json": "{\n \"brokers\": 2,\n \"topics\": [{\"name\": \"t\", \"replicas\": [[0, 9]]}]\n}"})
	c := newCLI(t)
	assert.Equal(t, ExitUsage, c.run("--fixture", filepath.Join(dir, "bad.json"), "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), filepath.Join(dir, "bad.json")+`:3: topics #1 "t": replicas #1 (partition 0): broker 9 does not exist (brokers: 0, 1)`)
}

// rehearse runs a runbook on a copy, prints what it changed as plan rows,
// and changes nothing on the cluster it copied.
func TestRehearseChangesOnlyTheCopy(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-e", `create_topics{{name = "orders", partitions = 2, replication_factor = 1}}`), c.stderr.String())
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "rehearse", "add-partitions", "orders", "5"), c.stderr.String())
	out := c.stdout.String()
	assert.Contains(t, out, "create_partitions  topic  orders  raise topic orders partitions 2 -> 5")
	assert.Contains(t, out, "Rehearsal: 1 change.")
	assert.Contains(t, c.stderr.String(), "nothing was changed there")
	md, err := cl.admin(t).Metadata(t.Context(), "orders")
	require.NoError(t, err)
	assert.Len(t, md.Topics["orders"].Partitions, 2, "the cluster itself is untouched")

	// The runbook's exit code is rehearse's; a runbook reaching for
	// another cluster is refused.
	dir := testfiles.Tree(t, map[string]string{"away.lua": `kafka.connect{brokers = "` + cl.addrs + `"}:list_topics()`})
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "rehearse", "add-partitions", "orders", "2"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "No changes: Rehearsal changed nothing.")
	assert.Equal(t, ExitScript, c.run("-b", cl.addrs, "rehearse", filepath.Join(dir, "away.lua")))
	assert.Contains(t, c.stderr.String(), "is not the rehearsal's copy")
}

// new writes a runbook whose tests pass.
func TestNewThenTest(t *testing.T) {
	dir := t.TempDir()
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("new", "runbook", "rotate", "--dir", dir), c.stderr.String())
	assert.Contains(t, c.stdout.String(), "Run its tests: kadmin-lua test "+filepath.Join(dir, "rotate_test.lua"))
	require.Equal(t, ExitOK, c.run("test", dir), c.stdout.String())
	assert.True(t, strings.Contains(c.stdout.String(), " passed, 0 failed"))
	assert.Equal(t, ExitUsage, c.run("new", "runbook", "rotate", "--dir", dir))
	assert.Contains(t, c.stderr.String(), "exists already")
	assert.Equal(t, ExitUsage, c.run("new", "runbook"))
}
