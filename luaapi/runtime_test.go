package luaapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

func newBareRuntime(t *testing.T) *Runtime {
	r := New(Options{})
	t.Cleanup(r.Close)
	return r
}

// gopher-lua v1.1.2 detached captured locals of every frame when pcall
// caught an error (yuin/gopher-lua#448); our patched copy must not.
func TestPcallKeepsCapturedLocals(t *testing.T) {
	r := newBareRuntime(t)
	vals, err := r.DoString(context.Background(), "t", `
		local n = 0
		local function inc() n = n + 1 end
		inc()
		pcall(error, "x")
		inc()
		local ok = pcall(create_topics, 42) -- an error raised from Go
		inc()
		return n
	`)
	require.NoError(t, err)
	assert.Equal(t, lua.LNumber(3), vals[0])
}

func TestSyntaxErrorAtEOFHasLine(t *testing.T) {
	r := newBareRuntime(t)
	_, err := r.DoString(context.Background(), "script.lua", "if x then\n  print(1)\n")
	var re *RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, KindSyntax, re.Kind)
	assert.Contains(t, re.Message, "script.lua:3:")
	assert.Contains(t, re.Message, "EOF")
}

func TestEvalLineExpressionsAndContinuation(t *testing.T) {
	r := newBareRuntime(t)
	vals, inc, err := r.EvalLine(context.Background(), "1 + 2")
	require.NoError(t, err)
	assert.False(t, inc)
	assert.Equal(t, lua.LNumber(3), vals[0])
	_, inc, err = r.EvalLine(context.Background(), "for i = 1, 3 do")
	require.NoError(t, err)
	assert.True(t, inc)
	_, inc, err = r.EvalLine(context.Background(), "x = 5")
	require.NoError(t, err)
	assert.False(t, inc)
	vals, _, _ = r.EvalLine(context.Background(), "x")
	assert.Equal(t, lua.LNumber(5), vals[0])
}

func TestSleepIsCancellable(t *testing.T) {
	r := newBareRuntime(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel) // what Ctrl-C does
	start := time.Now()
	_, err := r.DoString(ctx, "t", `kafka.sleep(60000)`)
	var re *RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, KindCanceled, re.Kind, re.Message)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestCheckAndFail(t *testing.T) {
	r := newBareRuntime(t)
	_, err := r.DoString(context.Background(), "t", `kafka.check(1 == 2, "math works"); kafka.check(true, "fine")`)
	require.NoError(t, err)
	assert.Equal(t, []string{"math works"}, r.CheckFailures())
	_, err = r.DoString(context.Background(), "t", `kafka.fail("giving up")`)
	var re *RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, KindScript, re.Kind)
	assert.Equal(t, "giving up", re.Message)
}

func TestJSONRoundTrip(t *testing.T) {
	r := newBareRuntime(t)
	vals, err := r.DoString(context.Background(), "t", `
		local s = kafka.json.encode({b = 1, a = {1, 2.5, "x"}, e = {}, n = kafka.json.null})
		local d = kafka.json.decode('{"x": null, "y": [1, {"z": true}], "o": {}}')
		return s, d.x == kafka.json.null, d.y[2].z, kafka.json.encode(d.o)
	`)
	require.NoError(t, err)
	assert.Equal(t, `{"a":[1,2.5,"x"],"b":1,"e":[],"n":null}`, vals[0].String())
	assert.Equal(t, lua.LTrue, vals[1])
	assert.Equal(t, lua.LTrue, vals[2])
	assert.Equal(t, `{}`, vals[3].String())
}

func TestSandboxedLibraries(t *testing.T) {
	r := newBareRuntime(t)
	vals, err := r.DoString(context.Background(), "t", `return os.exit, io.popen, os.execute, debug, type(os.time()), type(string.format)`)
	require.NoError(t, err)
	assert.Equal(t, []lua.LValue{lua.LNil, lua.LNil, lua.LNil, lua.LNil, lua.LString("number"), lua.LString("function")}, vals)
}

func TestFormatTable(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "fmt-a", partitions = 2}, {name = "fmt-bb", partitions = 10}}`)
	vals, err := e.rt.DoString(context.Background(), "t", `return list_topics()`)
	require.NoError(t, err)
	out, err := e.rt.Format(vals, "table")
	require.NoError(t, err)
	lines := splitLines(out)
	require.Len(t, lines, 3)
	assert.Regexp(t, `^NAME\s+ID\s+PARTITIONS\s+REPLICATION_FACTOR\s+INTERNAL$`, lines[0])
	assert.Regexp(t, `^fmt-a\s+\S+\s+2\s+3\s+false$`, lines[1])
	// columns line up
	assert.Equal(t, len(lines[1])-len("false"), len(lines[0])-len("INTERNAL"))
	js, err := e.rt.Format([]lua.LValue{e.run(`return list_topics{match="none"}`)}, "json")
	require.NoError(t, err)
	assert.Equal(t, "[]\n", js)
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i, c := range s {
		if c == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func TestFormatNestedRecordsAsSubTables(t *testing.T) {
	r := newBareRuntime(t)
	vals, err := r.DoString(context.Background(), "t", `return {
		{group = "g1", total_lag = 3, partitions = {{topic = "t", partition = 0, lag = 3}}},
		{group = "g2", total_lag = 0, partitions = {}, members = {{member_id = "m", assignment = {{topic = "t", partition = 0}, {topic = "t", partition = 1}, {topic = "u", partition = 0}}}}},
	}`)
	require.NoError(t, err)
	out, err := r.Format(vals, "table")
	require.NoError(t, err)
	// Two kinds of sub-table under one set of rows: each is labelled.
	assert.Equal(t, "GROUP  TOTAL_LAG\n"+
		"g1     3\n"+
		"  partitions:\n"+
		"  TOPIC  PARTITION  LAG\n"+
		"  t      0          3\n"+
		"g2     0\n"+
		"  members:\n"+
		"  MEMBER_ID  ASSIGNMENT\n"+
		"  m          t[0,1] u[0]\n", out)

	// One kind (lag's partitions) needs no label.
	vals, err = r.DoString(context.Background(), "t", `return {{group = "g1", partitions = {{topic = "t", partition = 0, lag = 1}}}}`)
	require.NoError(t, err)
	out, err = r.Format(vals, "table")
	require.NoError(t, err)
	assert.Equal(t, "GROUP\ng1\n  TOPIC  PARTITION  LAG\n  t      0          1\n", out)
}

func TestFormatSingleRecordAsOneRowTable(t *testing.T) {
	e := newEnv(t)
	vals, err := e.rt.DoString(context.Background(), "t", `return describe_cluster()`)
	require.NoError(t, err)
	out, err := e.rt.Format(vals, "table")
	require.NoError(t, err)
	lines := splitLines(out)
	require.Len(t, lines, 6, out)
	assert.Regexp(t, `^CLUSTER_ID\s+CONTROLLER\s+QUORUM$`, lines[0])
	assert.Regexp(t, `^  ID\s+HOST\s+PORT\s+RACK\s+STATE$`, lines[2])
	assert.Regexp(t, `^  0\s+127\.0\.0\.1\s+\d+`, lines[3])
	// A user's own table stays Lua.
	vals, err = e.rt.DoString(context.Background(), "t", `return {a = 1}`)
	require.NoError(t, err)
	out, err = e.rt.Format(vals, "table")
	require.NoError(t, err)
	assert.Equal(t, "{\n  a = 1,\n}\n", out)
}

// Issue 7: the kafka.* helpers read their arguments through their
// declarations too, with errors naming the function and the argument.
func TestLibraryFunctionsCheckTheirArguments(t *testing.T) {
	r := newBareRuntime(t)
	_, err := r.DoString(context.Background(), "t", `cyclic = {} cyclic.a = cyclic`)
	require.NoError(t, err)
	for src, want := range map[string]string{
		`kafka.sleep(-1)`:                             `kafka.sleep: ms: must be a duration in ms between 0 and 9223372036854, got -1`,
		`kafka.sleep(0/0)`:                            `kafka.sleep: ms: must be a duration in ms between 0 and 9223372036854, got NaN`,
		`kafka.sleep(2^63)`:                           `kafka.sleep: ms: must be a duration in ms`,
		`kafka.sleep()`:                               `kafka.sleep: ms: is required`,
		`kafka.sleep(1, 2)`:                           `kafka.sleep: takes at most 1 argument`,
		`kafka.env(42)`:                               `kafka.env: name: must be a variable name, got 42`,
		`kafka.env("A", "b", "c")`:                    `kafka.env: takes at most 2 arguments`,
		`kafka.json.encode(cyclic)`:                   `kafka.json.encode: value.a: cyclic table (it contains itself)`,
		`kafka.json.encode({}, {indent = "yes"})`:     `kafka.json.encode: options: indent: must be true or false, got "yes"`,
		`kafka.json.decode(42)`:                       `kafka.json.decode: text: must be a string, got 42`,
		`kafka.pp(1, cyclic)`:                         `kafka.pp: value.a: cyclic table`,
		`kafka.connect{brokers = 1}`:                  `kafka.connect: brokers: must be a host:port, or an array of them, got 1`,
		`kafka.connect{brokers = "h:1", tmieout = 5}`: `kafka.connect: unknown key "tmieout" (did you mean "timeout"?)`,
		`kafka.connect{timeout = 0/0}`:                `kafka.connect: timeout: must be a timeout in ms between 1 and`,
		`kafka.connect{tls = "yes"}`:                  `kafka.connect: tls: must be true or false, got "yes"`,
		`kafka.connect{sasl_mechanism = "NTLM"}`:      `kafka.connect: sasl_mechanism: must be "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI" or "AWS_MSK_IAM", got "NTLM"`,
		`kafka.connect("localhost:9092")`:             `kafka.connect: takes one table`,
		`kafka.dry_run("yes")`:                        `kafka.dry_run: on: must be true or false, got "yes"`,
		`kafka.now(1)`:                                `kafka.now: takes no arguments`,
		`kafka.check(true, {})`:                       `kafka.check: message: must be a string, got table`,
		`kafka.log.info(cyclic)`:                      `kafka.log.info: a.a: cyclic table`,
		`help(42)`:                                    `help: fn: must be a function or function name, got 42`,
	} {
		_, err := r.DoString(context.Background(), "t", src)
		var re *RunError
		require.ErrorAs(t, err, &re, src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.False(t, r.dryRun, `kafka.dry_run("yes") changed nothing`)

	// What was valid stays valid.
	vals, err := r.DoString(context.Background(), "t", `
		local c = kafka.connect{brokers = {"h:1", "h:2"}, timeout = 5000, sasl_mechanism = "scram-sha-256", sasl_username = "u"}
		kafka.sleep("1")
		local ok, err = pcall(kafka.fail, {code = "X"})
		kafka.check(nil, "nil fails the check")
		return kafka.env("KADMIN_NO_SUCH_VAR", 7), kafka.json.encode(nil), kafka.json.encode({indent = true}),
			kafka.dry_run(), kafka.dry_run(false), ok, type(c)`)
	require.NoError(t, err)
	assert.Equal(t, []lua.LValue{lua.LNumber(7), lua.LString("null"), lua.LString(`{"indent":true}`), lua.LFalse, lua.LFalse, lua.LFalse, lua.LString("table")}, vals)
	assert.Equal(t, []string{"nil fails the check"}, r.CheckFailures())
}

// Up to three records in a cell print whole (a config's synonyms, in the
// configs' sub-table); more are counted.
func TestFormatFewRecordsInACell(t *testing.T) {
	r := newBareRuntime(t)
	vals, err := r.DoString(context.Background(), "t", `return {{type = "topic", configs = {
		{name = "retention.ms", synonyms = {{name = "retention.ms", value = "1"}, {name = "log.retention.ms", value = "2"}}, n = {1, 2}},
		{name = "x", synonyms = {{a = 1}, {a = 2}, {a = 3}, {a = 4}}, n = {}},
	}}}`)
	require.NoError(t, err)
	out, err := r.Format(vals, "table")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 5, out)
	assert.Contains(t, lines[3], "{name=retention.ms value=1} {name=log.retention.ms value=2}", out)
	assert.Contains(t, lines[3], "1,2")
	assert.Contains(t, lines[4], "[4 items]")
}
