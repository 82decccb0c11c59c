package meta

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The generated files held to the tools authors use: a Lua language
// server's command-line checker reads the LuaLS definitions and
// .luarc.json, and Debian's luacheck reads the standard. tools/deps.sh
// installs both (make test runs it).

// tool finds a checker, on PATH or where cargo installs. Without it the
// test fails, except under -short.
func tool(t *testing.T, name, install string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, ".cargo", "bin", name); isExecutable(p) {
			return p
		}
	}
	if testing.Short() {
		t.Skipf("%s is not installed (%s); this check runs without -short, as CI does", name, install)
	}
	t.Fatalf("%s is not installed: %s (tools/deps.sh does it; make test runs it)", name, install)
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// A runbook folder as `kadmin-lua meta --luals DIR` leaves it, with the
// given scripts.
func lualsWorkspace(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	f := Generate(nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, LuaLSFile), []byte(f.LuaLS), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, LuaLSTestFile), []byte(f.LuaLSTest), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, LuaRCFile), []byte(f.LuaRC), 0o644))
	for name, src := range scripts {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	return dir
}

type diagnostic struct {
	File, Code, Message string
	Line                int // 1-based
	Severity            int // 1 error, 2 warning
}

// emmyluaCheck runs EmmyLua's command-line checker (emmylua_check, of the
// EmmyLua analyzer: a Lua language server reading LuaLS annotations and
// .luarc.json) over dir.
func emmyluaCheck(t *testing.T, dir string) []diagnostic {
	t.Helper()
	bin := tool(t, "emmylua_check", "cargo install --locked emmylua_check")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// It exits 1 when it found an error; the JSON says what.
	out, err := exec.CommandContext(ctx, bin, "-f", "json", dir).Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		require.NoError(t, err, "emmylua_check: %s", out)
	}
	var files []struct {
		File        string `json:"file"`
		Diagnostics []struct {
			Code     string `json:"code"`
			Message  string `json:"message"`
			Severity int    `json:"severity"`
			Range    struct {
				Start struct{ Line int } `json:"start"`
			} `json:"range"`
		} `json:"diagnostics"`
	}
	require.NoError(t, json.Unmarshal(out, &files), "%s", out)
	var ds []diagnostic
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.File)
		for _, d := range f.Diagnostics {
			ds = append(ds, diagnostic{File: rel, Code: d.Code, Message: d.Message, Line: d.Range.Start.Line + 1, Severity: d.Severity})
		}
	}
	return ds
}

const cleanRunbook = `-- A clean runbook: every call as the declarations say.
local c = kafka.connect{brokers = "localhost:9092"}
local res = c:create_topics({{name = "orders", partitions = 6, replication_factor = 3,
  configs = {["cleanup.policy"] = "compact"}}}, {if_not_exists = true})
for _, r in ipairs(res) do
  if r.error then print(r.error.code, r.error.message) end
  print(r.name, r.partitions)
end
for _, g in ipairs(lag("orders-consumer", {partial = true})) do
  print(g.group, g.total_lag + 1)
end
lag{partial = true}
delete_topics("old", {if_exists = true})
create_acls{{principal = "User:alice", operation = "read", resource_type = "topic", resource_name = "orders"}}
alter_configs{{topic = "orders", set = {["retention.ms"] = 86400000}}}
kafka.log.info("done")
local doc = kafka.json.decode(kafka.json.encode({a = 1}))
print(doc, arg[1], kafka.default:brokers(), kafka.now() + 1)
local ok, err = pcall(create_topics, "x")
if not ok then print(err) end
kafka.check(#list_topics() > 0, "cluster has topics")
`

// Each line holds one deliberate mistake.
const badRunbook = `create_topics({{name = "orders", partitions = true}})
lagg()
delete_topics("x", {if_exists = "yes"})
create_acls{{principal = "User:a", operation = "reed", resource_type = "topic"}}
local c = kafka.connect{brokers = "x:1"}
c:delete_topics(42)
c:lagg()
`

// badLines runs emmylua_check over a workspace of a clean script and a
// bad one, holds the clean one and the definitions to no diagnostic, and
// returns the bad one's diagnostic codes by line.
func badLines(t *testing.T, clean, cleanSrc, bad, badSrc string) map[int][]string {
	t.Helper()
	dir := lualsWorkspace(t, map[string]string{clean: cleanSrc, bad: badSrc})
	found := map[int][]string{}
	for _, d := range emmyluaCheck(t, dir) {
		assert.NotEqual(t, clean, d.File, "the clean script: %+v", d)
		assert.NotContains(t, []string{LuaLSFile, LuaLSTestFile}, d.File, "the definitions themselves: %+v", d)
		if d.File == bad {
			found[d.Line] = append(found[d.Line], d.Code)
		}
	}
	return found
}

func TestLuaLSDefinitionsTypeCheckARunbook(t *testing.T) {
	found := badLines(t, "clean.lua", cleanRunbook, "bad.lua", badRunbook)
	for line, code := range map[int]string{
		1: "param-type-mismatch", // partitions = true
		2: "undefined-global",    // lagg
		3: "param-type-mismatch", // if_exists = "yes"
		4: "param-type-mismatch", // operation = "reed": not one of the enum's literals
		6: "param-type-mismatch", // a number for topic names, on a client
		7: "undefined-field",     // c:lagg()
	} {
		assert.Contains(t, found[line], code, "bad.lua:%d: %v", line, found)
	}
}

// A test file written as the test definitions say, and one with a mistake
// on each line.
const cleanTestFile = `fixture{brokers = 3, topics = {{name = "orders", partitions = 6}}}
test("every test function", function()
  local r = run("add-partitions", "orders", "12", {env = {TZ = "UTC"}})
  expect(r.exit):is(0)
  expect(r.rows).never:is_nil()
  expect(#r.changes):is(r.changes[1] and 1 or 0)
  local dry, real = assert.dry_run_matches("add-partitions", "orders", 14)
  assert.equal(dry.exit, real.exit, "both ran")
  assert.are.same({}, dry_run("add-partitions", "orders", "15").checks)
  local f = fault{api = "Metadata", error = "NOT_CONTROLLER", times = 2}
  f.remove()
  broker_down(1)
  broker_up(1)
  local before = snapshot()
  expect(changes(before, snapshot({records = 5}))):has_length(0)
  expect(#audit()):is(0)
  assert.matches("127", cluster().brokers[1])
  expect(function() error("x") end):fails("x")
  local failed = not pcall(error, "x")
  assert(failed, "Lua's assert")
end, {timeout = 5000})
`

const badTestFile = `tset("x", function() end)
test(1, function() end)
expect(1):iss(0)
assert.sme(1, 1)
fault{api = 1, error = "NOT_CONTROLLER"}
run("x", true)
local _, real = assert.dry_run_matches("x"); print(real.rowz)
`

func TestLuaLSTestDefinitionsTypeCheckATestFile(t *testing.T) {
	found := badLines(t, "clean_test.lua", cleanTestFile, "bad_test.lua", badTestFile)
	for line, code := range map[int]string{
		1: "undefined-global",     // tset
		2: "param-type-mismatch",  // a number for the test's name
		3: "undefined-field",      // an expectation's iss
		4: "undefined-field",      // assert.sme
		5: "assign-type-mismatch", // api = 1, in the table of named arguments
		6: "param-type-mismatch",  // a runbook argument true
		7: "undefined-field",      // the second result is a run result too
	} {
		assert.Contains(t, found[line], code, "bad_test.lua:%d: %v", line, found)
	}
}

// The shipped runbooks, their library and tests and the example plugin
// use no global, no client method and no test function the definitions
// lack.
func TestLuaLSDefinitionsKnowEveryNameTheShippedRunbooksUse(t *testing.T) {
	scripts := map[string]string{}
	for _, glob := range []string{"../../scripts/*.lua", "../../scripts/lib/*.lua", "../../scripts/tests/*.lua", "../../examples/plugins/*.lua"} {
		files, err := filepath.Glob(glob)
		require.NoError(t, err)
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			rel, _ := filepath.Rel("../..", f)
			scripts[rel] = string(src)
		}
	}
	require.NotEmpty(t, scripts)
	dir := lualsWorkspace(t, scripts)
	// emmylua_check also warns of what the runbooks' own tables might
	// hold (`rows[#rows + 1]` on a local {}); a named field it cannot find
	// would be ours.
	namedField := regexp.MustCompile("^Undefined field `[A-Za-z_]")
	for _, d := range emmyluaCheck(t, dir) {
		assert.NotEqual(t, LuaLSTestFile, d.File, "the test definitions themselves: %+v", d)
		assert.NotEqual(t, 1, d.Severity, "an error: %+v", d)
		assert.NotEqual(t, "undefined-global", d.Code, "%+v", d)
		if d.Code == "undefined-field" {
			assert.NotRegexp(t, namedField, d.Message, "%+v", d)
		}
	}
}

func luacheck(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin := tool(t, "luacheck", "apt-get install -y lua-check")
	rc := filepath.Join(t.TempDir(), luacheckFile)
	require.NoError(t, os.WriteFile(rc, []byte(Generate(nil).Luacheck), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Style is the author's (line length, an empty branch that says why
	// it is empty); names and fields are what the standard is for.
	cmd := exec.CommandContext(ctx, bin, append([]string{"--config", rc, "--no-color", "--codes", "--no-max-line-length", "--ignore", "542", "--"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestLuacheckPassesTheShippedRunbooks(t *testing.T) {
	out, err := luacheck(t, "../../scripts", "../../examples")
	require.NoError(t, err, out)
	assert.Contains(t, out, "0 warnings / 0 errors")
}

// The test standard applies to *_test.lua files alone: there assert has
// busted's fields and the test functions are globals; a misspelt one is
// still reported, and a runbook has none of them.
func TestLuacheckTestStandardInTestFilesOnly(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "clean_test.lua"), []byte(cleanTestFile), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad_test.lua"), []byte(badTestFile), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runbook.lua"), []byte("test(\"x\", function() end)\n"), 0o644))
	out, err := luacheck(t, dir)
	require.Error(t, err, out)
	assert.Regexp(t, `clean_test.lua +OK`, out)
	assert.Contains(t, out, "bad_test.lua:1:1: (W113) accessing undefined variable 'tset'")
	assert.Contains(t, out, "bad_test.lua:4:1: (W143) accessing undefined field 'sme' of global 'assert'")
	assert.Contains(t, out, "runbook.lua:1:1: (W113) accessing undefined variable 'test'")
	assert.Contains(t, out, "3 warnings")
}

func TestLuacheckStandardFindsMisspeltNames(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.lua")
	require.NoError(t, os.WriteFile(bad, []byte("lagg()\nprint(kafka.conect)\nprint(os.exit)\nprint(kafka.default.lag, kafka.json.null, io.stdout.write)\n"), 0o644))
	out, err := luacheck(t, bad)
	require.Error(t, err, out)
	assert.Contains(t, out, "bad.lua:1:1: (W113) accessing undefined variable 'lagg'")
	assert.Contains(t, out, "bad.lua:2:7: (W143) accessing undefined field 'conect' of global 'kafka'")
	assert.Contains(t, out, "bad.lua:3:7: (W143) accessing undefined field 'exit' of global 'os'")
	assert.Contains(t, out, "3 warnings")
}
