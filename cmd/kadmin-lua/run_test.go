package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestExitOKPrintsReturnedValues(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-e", "return 1 + 1, 'two'"))
	assert.Equal(t, "2\ntwo\n", c.stdout.String())
	assert.Empty(t, c.stderr.String())
}

func TestEvalStatementPrintsNothing(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-e", "x = 1; print('hi', x)"))
	assert.Equal(t, "hi\t1\n", c.stdout.String())
}

// A chunk that begins with a statement keyword is compiled as it is; one
// that only looks like it (do_it(), returned) is tried as an expression.
func TestEvalStatementKeywords(t *testing.T) {
	for code, statement := range map[string]bool{"return 1": true, "  local x = 1": true, "do end": true,
		"if x then end": true, "returned": false, "do_it()": false, "1 + 1": false, "function() end": false} {
		assert.Equal(t, statement, startsStatement(code), code)
	}
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-e", "returned = 3; return returned"))
	assert.Equal(t, "3\n", c.stdout.String())
}

func TestExitScriptError(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("-e", `error("x")`))
	assert.Equal(t, "kadmin-lua: (command line):1: x\n", c.stderr.String())
	assert.Empty(t, c.stdout.String())
}

func TestExitScriptErrorFromKafkaFail(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("-e", `kafka.fail("lag too high")`))
	assert.Contains(t, c.stderr.String(), "lag too high")
}

func TestExitUsageOnSyntaxErrorWithFileLine(t *testing.T) {
	c := newCLI(t)
	path := writeFile(t, "bad.lua", "local x = 1\nlocal y = = 2\n")
	require.Equal(t, ExitUsage, c.run("run", path))
	assert.Contains(t, c.stderr.String(), "kadmin-lua: "+path+":2:")
	assert.Contains(t, c.stderr.String(), "syntax error")
}

func TestExitUsageOnSyntaxErrorAtEOF(t *testing.T) {
	c := newCLI(t)
	path := writeFile(t, "eof.lua", "if true then\n  print(1)\n")
	require.Equal(t, ExitUsage, c.run("run", path))
	assert.Contains(t, c.stderr.String(), path+":3:")
}

func TestExitUsageOnCommandLineMistakes(t *testing.T) {
	for name, args := range map[string][]string{
		"unknown flag":    {"--no-such-flag"},
		"unknown command": {"frobnicate"},
		"run no file":     {"run"},
		"bad output":      {"-o", "xml", "-e", "return 1"},
		"bad timeout":     {"--timeout", "soon", "-e", "return 1"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			require.Equal(t, ExitUsage, c.run(args...))
			assert.True(t, strings.HasPrefix(c.stderr.String(), "kadmin-lua: "), c.stderr.String())
			assert.Contains(t, c.stderr.String(), "Run 'kadmin-lua --help' for usage.")
			assert.Empty(t, c.stdout.String())
		})
	}
}

// A Lua function typed as a command says how to run it; another unknown
// command does not.
func TestFunctionAsCommandHints(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitUsage, c.run("lag"))
	assert.Contains(t, c.stderr.String(), "lag is a Lua function, not a command: run it with kadmin-lua -e 'lag()', or type it in the REPL (kadmin-lua).")
	require.Equal(t, ExitUsage, c.run("describe_consumer_groups"))
	assert.Contains(t, c.stderr.String(), "describe_groups is a Lua function", "an alias names the function")
	require.Equal(t, ExitUsage, c.run("frobnicate"))
	assert.NotContains(t, c.stderr.String(), "Lua function")
}

func TestHelpExitsZero(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--help"))
	out := c.stdout.String()
	assert.Contains(t, out, "--brokers")
	assert.Contains(t, out, "--sasl-username")
	assert.NotContains(t, out, "--sasl-password", "the password is never a flag")
}

func TestExitKafkaOnExistingTopic(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	_, err := adm.CreateTopic(ctx(t), 1, 1, nil, "orders")
	require.NoError(t, err)

	c := newCLI(t)
	code := c.run("-b", cl.addrs, "-e", `create_topics{{name="orders", partitions=3}, {name="fresh", partitions=2}}`)
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "TOPIC_ALREADY_EXISTS")
	assert.Contains(t, topicNames(t, adm), "fresh", "the good item was applied")
}

func TestExitKafkaOnUnreachableBroker(t *testing.T) {
	c := newCLI(t)
	code := c.run("-b", closedPort(t), "--timeout", "1s", "-e", "return list_topics()")
	require.Equal(t, ExitKafka, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "kadmin-lua: list_topics: ")
}

func TestExitCheckFailed(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitCheck, c.run("-e", `kafka.check(false, "consumers keep up"); kafka.check(true, "fine")`))
	assert.Contains(t, c.stderr.String(), "consumers keep up")
	assert.Contains(t, c.stderr.String(), "kadmin-lua: 1 check failed")
}

func TestScriptErrorWinsOverFailedCheck(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("-e", `kafka.check(false, "a"); error("b")`))
}

func TestJSONOutputEmptyArray(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-o", "json", "-e", `return list_topics{match="none"}`), c.stderr.String())
	assert.Equal(t, "[]\n", c.stdout.String())
}

func TestJSONOutputArrayOfRecords(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--output", "json", "-e",
		`create_topics{{name="b", partitions=2}, {name="a", partitions=1}}; return list_topics()`), c.stderr.String())
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &got))
	require.Len(t, got, 2)
	assert.Equal(t, "a", got[0]["name"])
	assert.Equal(t, float64(2), got[1]["partitions"])
}

// -o ndjson: a compact JSON line per row; -o yaml: YAML holding what the
// JSON holds; both also for kafka.pp and for the commands' own data.
func TestNDJSONAndYAMLOutput(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-o", "ndjson", "-e",
		`create_topics{{name="b", partitions=2}, {name="a", partitions=1}}; kafka.pp({x = 1}); return list_topics(), list_topics{match="none"}`), c.stderr.String())
	lines := strings.Split(strings.TrimSuffix(c.stdout.String(), "\n"), "\n")
	require.Len(t, lines, 3, c.stdout.String())
	assert.Equal(t, `{"x":1}`, lines[0])
	assert.Regexp(t, `^\{"id":"[^"]+","internal":false,"name":"a","partitions":1,"replication_factor":3\}$`, lines[1])
	assert.Contains(t, lines[2], `"name":"b"`)

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-o", "yaml", "-e", `return describe_topics("a"), list_topics{match="none"}`), c.stderr.String())
	assert.Regexp(t, `^- error: null\n  id: \S+\n  internal: false\n  name: a\n  partitions:\n    - elr: \[\]\n      error: null\n      isr:\n        - \d\n`, c.stdout.String())
	assert.True(t, strings.HasSuffix(c.stdout.String(), "\n[]\n"), c.stdout.String())

	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("-o", "yaml", "version"), c.stderr.String())
	assert.Regexp(t, `(?m)^franz_go: v\S+$`, c.stdout.String())
	c = newCLI(t)
	require.Equal(t, ExitOK, c.run("-o", "ndjson", "version"), c.stderr.String())
	assert.Regexp(t, `^\{.*"franz_go":"v[^"]+".*\}\n$`, c.stdout.String())

	c = newCLI(t)
	assert.Equal(t, ExitUsage, c.run("-o", "xml", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), `--output must be one of table, json, ndjson, yaml, got "xml"`)
}

func TestTableOutput(t *testing.T) {
	cl := newCluster(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-e", `create_topics{{name="t1", partitions=4}}; return list_topics()`), c.stderr.String())
	lines := strings.Split(strings.TrimSpace(c.stdout.String()), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	assert.Contains(t, lines[0], "PARTITIONS")
	assert.Contains(t, c.stdout.String(), "t1")
}

func TestRunFileArgs(t *testing.T) {
	c := newCLI(t)
	path := writeFile(t, "args.lua", `#!/usr/bin/env kadmin-lua
local a, b = ...
print(arg[0], arg[1], arg[2], a, b, select("#", ...))
return arg[3]`)
	// Flags after FILE belong to the script, not to kadmin-lua.
	require.Equal(t, ExitOK, c.run("-o", "json", "run", path, "a", "b", "--yes"), c.stderr.String())
	assert.Equal(t, path+"\ta\tb\ta\tb\t3\n\"--yes\"\n", c.stdout.String())
}

func TestRunMissingFile(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("run", t.TempDir()+"/nope.lua"))
	assert.Contains(t, c.stderr.String(), "cannot read script")
	assert.Contains(t, c.stderr.String(), "/kadmin-lua/plugins does not exist) or a runbook")

	// Under cron: no HOME, no XDG_CONFIG_HOME; the error says why no
	// plugin command was found.
	delete(c.env, "HOME")
	require.Equal(t, ExitScript, c.run("run", "nightly-fix"))
	assert.Contains(t, c.stderr.String(), "nor is it a plugin command (no plugin directory: neither XDG_CONFIG_HOME nor HOME is set (as under cron); use --plugin-path or KADMIN_PLUGIN_PATH)")
	dir := t.TempDir()
	require.Equal(t, ExitScript, c.run("--plugin-path", dir, "run", "nightly-fix"))
	assert.Contains(t, c.stderr.String(), "plugin directories searched: "+dir)
}

func TestStdinScriptWhenNotATerminal(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	c := newCLI(t)
	c.stdin = strings.NewReader(`create_topics{{name="from-stdin", partitions=2}}
print("created")
return #list_topics()`)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs), c.stderr.String())
	assert.Equal(t, "created\n1\n", c.stdout.String())
	assert.Equal(t, []string{"from-stdin"}, topicNames(t, adm))
}

func TestStdinScriptSyntaxErrorNamesStdin(t *testing.T) {
	c := newCLI(t)
	c.stdin = strings.NewReader("print(1)\nx = = 2\n")
	require.Equal(t, ExitUsage, c.run())
	assert.Contains(t, c.stderr.String(), "kadmin-lua: stdin:2:")
}

func TestDryRunCreatesNothing(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "--dry-run", "-o", "json", "-e",
		`return create_topics{{name="planned", partitions=3}}`), c.stderr.String())
	assert.Contains(t, c.stdout.String(), `"dry_run": true`)
	assert.NotContains(t, topicNames(t, adm), "planned")
}

func TestAuditLogIntentAndOutcomePerMutationWithoutSecrets(t *testing.T) {
	cl, adm := saslCluster(t)
	_, err := adm.CreateTopic(ctx(t), 1, 1, nil, "taken")
	require.NoError(t, err)
	audit := t.TempDir() + "/audit.jsonl"

	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "secret"
	code := c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "--audit-log", audit, "-e", `
		local n = #list_topics()
		create_topics({"checked-only"}, {validate_only=true}) -- changes nothing: not audited
		create_topics({{name="new1", partitions=2}, {name="taken"}}, {partial=true})
		delete_topics{"new1"}
		return n`)
	require.Equal(t, ExitOK, code, c.stderr.String())

	b, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "secret")
	var entries []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		entries = append(entries, e)
	}
	require.Len(t, entries, 4, "an intent and an outcome per mutation, none for list_topics:\n%s", b)
	assert.Equal(t, "intent", entries[0]["type"])
	assert.Equal(t, "create_topics", entries[0]["op"])
	assert.Equal(t, "admin", entries[0]["user"])
	assert.Contains(t, string(mustJSON(t, entries[0]["args"])), "new1")
	assert.Contains(t, string(mustJSON(t, entries[0]["before"])), `"taken":{"exists":true`)
	assert.Equal(t, "outcome", entries[1]["type"])
	assert.Equal(t, entries[0]["id"], entries[1]["id"])
	items := entries[1]["items"].([]any)
	require.Len(t, items, 2)
	outcomes := map[string]string{}
	for _, it := range items {
		m := it.(map[string]any)
		outcomes[m["key"].(string)] = m["outcome"].(string)
	}
	assert.Equal(t, map[string]string{"new1": "ok", "taken": "TOPIC_ALREADY_EXISTS"}, outcomes)
	assert.Equal(t, "delete_topics", entries[2]["op"])
	assert.NotContains(t, topicNames(t, adm), "new1")
	assert.NotContains(t, string(b), "checked-only")
}

// An audit log removed while the process runs (rm, not a rotation) stops
// every mutation after it: AUDIT_LOG, exit 1, nothing sent. (/dev/full
// used to stand for an unwritable log; a device is no longer accepted.)
func TestAuditLogUnwritableSendsNothingAndExits1(t *testing.T) {
	cl, adm := saslCluster(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	var creates atomic.Int32
	cl.ControlKey(int16(kmsg.CreateTopics), func(kmsg.Request) (kmsg.Response, error, bool) {
		cl.KeepControl()
		if creates.Add(1) == 1 {
			_ = os.Remove(audit) // after the first intent line
		}
		return nil, nil, false
	})
	c := newCLI(t)
	c.env["KADMIN_SASL_PASSWORD"] = "secret"
	code := c.run("-b", cl.addrs, "--sasl-mechanism", "PLAIN", "--sasl-username", "admin", "--audit-log", audit, "-e", `
		create_topics{"logged"}
		create_topics{"unlogged"}`)
	assert.Equal(t, ExitScript, code, c.stderr.String())
	assert.Contains(t, c.stderr.String(), "AUDIT_LOG")
	assert.Contains(t, c.stderr.String(), "was removed")
	assert.Contains(t, c.stderr.String(), "nothing was sent")
	assert.Equal(t, int32(1), creates.Load())
	names := topicNames(t, adm)
	assert.Contains(t, names, "logged")
	assert.NotContains(t, names, "unlogged")
}

func TestAuditLogOthersCanWriteIsAUsageError(t *testing.T) {
	cl := newCluster(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	require.NoError(t, os.WriteFile(audit, nil, 0o600))
	require.NoError(t, os.Chmod(audit, 0o664))
	c := newCLI(t)
	assert.Equal(t, ExitUsage, c.run("-b", cl.addrs, "--audit-log", audit, "-e", `create_topics{"never"}`))
	assert.Contains(t, c.stderr.String(), audit+" may be written by group or others")
	assert.NotContains(t, topicNames(t, cl.admin(t)), "never")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestEmbeddedCluster(t *testing.T) {
	c := newCLI(t)
	// --embedded wins over -b: the closed port is never dialed.
	require.Equal(t, ExitOK, c.run("--embedded", "-b", closedPort(t), "-o", "json", "-e",
		`create_topics{{name="demo-made", partitions=2}}; return describe_topics{"demo-made"}[1].partitions`), c.stderr.String())
	var parts []map[string]any
	require.NoError(t, json.Unmarshal([]byte(c.stdout.String()), &parts))
	assert.Len(t, parts, 2)
}

func TestPluginPath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/greet.lua", []byte(`return {hello = function(n) return "hello " .. n end}`), 0o600))
	c := newCLI(t)
	require.Equal(t, ExitOK, c.run("--plugin-path", dir, "-e", `return require("greet").hello("ops")`), c.stderr.String())
	assert.Equal(t, "hello ops\n", c.stdout.String())
}

func TestTerminalStdinIsNeverRunAsAScript(t *testing.T) {
	// On a terminal the REPL owns stdin; a line that would fail a check in
	// script mode (exit 4) is not run as a script.
	c := newCLI(t)
	c.terminal = true
	c.stdin = strings.NewReader(`kafka.check(false, "script mode")` + "\n")
	code := c.run()
	assert.NotEqual(t, ExitCheck, code)
	assert.NotContains(t, c.stderr.String(), "kadmin-lua: 1 check failed")
}

func TestRunBuiltInRunbookWhenNoSuchFile(t *testing.T) {
	cl := newCluster(t)
	adm := cl.admin(t)
	_, err := adm.CreateTopic(ctx(t), 2, 3, nil, "grow-me")
	require.NoError(t, err)
	c := newCLI(t)
	// No add-partitions.lua in the working directory: the built-in runbook
	// runs, and its require("lib.args") is found in the binary too.
	require.Equal(t, ExitOK, c.run("-b", cl.addrs, "-o", "json", "run", "add-partitions.lua", "grow-me", "5"), c.stderr.String())
	assert.Contains(t, c.stdout.String(), `"after": 5`)
	td, err := adm.ListTopics(ctx(t), "grow-me")
	require.NoError(t, err)
	assert.Len(t, td["grow-me"].Partitions, 5)
}

func TestRunBuiltInRunbookBadArgumentsExit1(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("run", "add-partitions", "only-a-topic"))
	assert.Contains(t, c.stderr.String(), "usage")
}

// zeros is an endless stdin, as < /dev/zero gives.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Reads that never end are refused at once, not grown until the kernel
// kills the process: a script file, stdin and the config file.
func TestEndlessInputsAreRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	c := newCLI(t)
	require.Equal(t, ExitScript, c.run("run", "/dev/zero"))
	assert.Contains(t, c.stderr.String(), "cannot read script: /dev/zero: larger than 16 MiB; refusing to read more")

	c.stdin = zeros{}
	require.Equal(t, ExitScript, c.run())
	assert.Contains(t, c.stderr.String(), "reading script from stdin: larger than 16 MiB")

	c.stdin = strings.NewReader("")
	require.NotEqual(t, ExitOK, c.run("--config", "/dev/zero", "--profile", "p", "-e", "return 1"))
	assert.Contains(t, c.stderr.String(), "reading config file: read /dev/zero: is a device, not a regular file")
}
