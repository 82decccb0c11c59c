package scripts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/demo"
	"github.com/kadmin-lua/kadmin-lua/engine/schemas"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/internal/testnet"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// env is a fresh demo cluster (docs/demo.md) and an independent kadm client
// for checking what the runbooks really did.
type env struct {
	t   *testing.T
	c   *demo.Cluster
	adm *kadm.Client
	// audit, when set, is the audit log runs write (--audit-log).
	audit *auditlog.Log
	// state, when set, is the state store runs share (--state).
	state *state.Store
	// timeout, when set, is each call's (--timeout); 10 s otherwise.
	timeout time.Duration
	// decompress, when set, bounds what runs decompress (the defaults
	// otherwise).
	decompress engine.DecompressLimits
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := demo.Start(ctx)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return &env{t: t, c: c, adm: kadm.NewClient(cl)}
}

// result is how one `kadmin-lua [--dry-run] run scripts/NAME.lua ARGS...`
// ended: the error (nil, or a *luaapi.RunError whose Kind gives the exit
// code), the failed checks (exit 4 when there are any), the returned value as
// -o json prints it, and what went to stdout and stderr.
type result struct {
	err    *luaapi.RunError
	checks []string
	json   string
	rows   []map[string]any
	stdout string
	stderr string
	// metrics are the figures the script declared with kafka.metric, by
	// name and labels: "name{k=v,k=v}".
	metrics map[string]float64
}

// run runs a script the way the CLI's `run` command does: a new runtime bound
// to the cluster, DoFile with the arguments, the values formatted per -o json.
func (e *env) run(dryRun bool, script string, args ...string) result {
	e.t.Helper()
	var stdout, stderr bytes.Buffer
	timeout := e.timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	rt := luaapi.New(luaapi.Options{
		Config: engine.Config{Brokers: e.c.Addrs, Timeout: timeout, DryRun: dryRun, Audit: e.audit, State: e.state, Decompress: e.decompress,
			Registry: &schemas.Config{URLs: []string{e.c.RegistryURL}}},
		Stdout: &stdout, Stderr: &stderr, Output: "json",
	})
	defer rt.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	vals, err := rt.DoFile(ctx, script, args)
	var r result
	if err != nil {
		re, ok := err.(*luaapi.RunError)
		require.True(e.t, ok, "want *luaapi.RunError, got %T: %v", err, err)
		r.err = re
	} else if len(vals) > 0 {
		out, ferr := rt.Format(vals, "json")
		require.NoError(e.t, ferr)
		r.json = out
		_ = json.Unmarshal([]byte(out), &r.rows) // runbooks return arrays of records
	}
	r.checks = rt.CheckFailures()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	r.metrics = map[string]float64{}
	for _, m := range rt.Metrics() {
		var labels []string
		for k, v := range m.Labels {
			labels = append(labels, k+"="+v)
		}
		slices.Sort(labels)
		r.metrics[m.Name+"{"+strings.Join(labels, ",")+"}"] = m.Value
		assert.NotEmpty(e.t, m.Help, "%s declares %s with its help", script, m.Name)
	}
	return r
}

// ok runs a script that must not raise and returns its result.
func (e *env) ok(dryRun bool, script string, args ...string) result {
	e.t.Helper()
	r := e.run(dryRun, script, args...)
	require.Nil(e.t, r.err, "%s %v: %+v\nstderr: %s", script, args, r.err, r.stderr)
	return r
}

// usage runs a script with bad arguments: it must end with kafka.fail (exit
// 1), name the problem and give the usage line.
func (e *env) usage(script string, want string, args ...string) {
	e.t.Helper()
	r := e.run(false, script, args...)
	require.NotNil(e.t, r.err, "%s %v should have failed", script, args)
	assert.Equal(e.t, luaapi.KindScript, r.err.Kind)
	assert.Contains(e.t, r.err.Message, want)
	assert.Contains(e.t, r.err.Message, "usage: "+script)
}

func (e *env) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// topics lists topics through a brand-new client (a kgo client that listed
// before may answer from its cache).
func (e *env) topics() kadm.TopicDetails {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.c.Addrs...))
	require.NoError(e.t, err)
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(e.ctx())
	require.NoError(e.t, err)
	return td
}

func (e *env) partitions(topic string) int {
	e.t.Helper()
	td, ok := e.topics()[topic]
	require.True(e.t, ok, "topic %s should exist", topic)
	return len(td.Partitions)
}

func (e *env) config(topic, key string) string {
	e.t.Helper()
	rc, err := e.adm.DescribeTopicConfigs(e.ctx(), topic)
	require.NoError(e.t, err)
	c, err := rc.On(topic, nil)
	require.NoError(e.t, err)
	for _, kv := range c.Configs {
		if kv.Key == key {
			return kv.MaybeValue()
		}
	}
	return ""
}

// committed gives a group's committed offsets on topic by partition.
func (e *env) committed(group, topic string) map[int32]int64 {
	e.t.Helper()
	out := map[int32]int64{}
	os, err := e.adm.FetchOffsets(e.ctx(), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out
	}
	require.NoError(e.t, err)
	for p, o := range os[topic] {
		out[p] = o.At
	}
	return out
}

func num(v any) int { f, _ := v.(float64); return int(f) }

// Every runbook has a test and a usage comment, and docs/runbooks.md lists it.
func TestEveryScriptIsTestedAndDocumented(t *testing.T) {
	scripts, err := filepath.Glob("*.lua")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)

	tests := map[string]bool{}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		for name, obj := range af.Scope.Objects {
			if obj.Kind == ast.Fun && strings.HasPrefix(name, "Test") {
				tests[name] = true
			}
		}
	}
	docs, err := os.ReadFile(filepath.Join("..", "docs", "runbooks.md"))
	require.NoError(t, err)

	for _, s := range scripts {
		name := strings.TrimSuffix(s, ".lua")
		var camel strings.Builder
		for _, part := range strings.Split(name, "-") {
			camel.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
		assert.True(t, tests["Test"+camel.String()], "%s has no test: write Test%s in scripts_test.go", s, camel.String())

		src, err := os.ReadFile(s)
		require.NoError(t, err)
		text := string(src)
		assert.True(t, strings.HasPrefix(text, "-- "+s+": "), "%s must start with a comment \"-- %s: what it does\"", s, s)
		header := text[:strings.Index(text, "\nlocal ")]
		for _, want := range []string{"-- Usage:    kadmin-lua run scripts/" + s, "-- Arguments:", "-- Exit codes:", "-- Example:"} {
			assert.Contains(t, header, want, "%s's header comment", s)
		}
		assert.Contains(t, string(docs), "scripts/"+s, "docs/runbooks.md should list %s", s)
	}
}

func TestHelpPrintsTheHeader(t *testing.T) {
	e := &env{t: t, c: &demo.Cluster{Addrs: []string{"127.0.0.1:1"}}} // --help never connects
	r := e.ok(false, "add-partitions.lua", "--help")
	assert.True(t, strings.HasPrefix(r.stdout, "add-partitions.lua: raise a topic to COUNT partitions."), r.stdout)
	assert.Contains(t, r.stdout, "Exit codes:")
	assert.Empty(t, r.json)
}

func TestAddPartitions(t *testing.T) {
	e := newEnv(t)
	const s = "add-partitions.lua"

	r := e.ok(true, s, "orders", "12")
	assert.Equal(t, 6, e.partitions("orders"), "dry-run changed nothing")
	require.Len(t, r.rows, 1)
	assert.Equal(t, true, r.rows[0]["dry_run"])
	assert.Equal(t, 12, num(r.rows[0]["after"]))
	assert.Contains(t, r.stderr, "dry-run: create_partitions: raise orders to 12 partitions")

	r = e.ok(false, s, "orders", "12")
	assert.Equal(t, 12, e.partitions("orders"))
	assert.Equal(t, map[string]any{"topic": "orders", "before": 6.0, "after": 12.0, "changed": true, "dry_run": false}, r.rows[0])
	assert.Contains(t, r.stderr, "INFO orders: 6 -> 12 partitions")

	r = e.ok(false, s, "orders", "12") // already there: nothing to do
	assert.Equal(t, false, r.rows[0]["changed"])
	assert.Equal(t, 12, e.partitions("orders"))

	r = e.run(false, s, "orders", "3")
	require.NotNil(t, r.err)
	assert.Equal(t, luaapi.KindScript, r.err.Kind)
	assert.Contains(t, r.err.Message, "orders has 12 partitions; Kafka cannot lower a partition count (asked for 3)")
	assert.Equal(t, 12, e.partitions("orders"))

	r = e.run(false, s, "no-such-topic", "3")
	require.NotNil(t, r.err)
	assert.Equal(t, luaapi.KindKafka, r.err.Kind)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", r.err.Code)

	e.usage(s, `COUNT must be a positive integer, got "x"`, "orders", "x")
	e.usage(s, `COUNT must be a positive integer, got "0"`, "orders", "0")
	e.usage(s, "expected 2 arguments, got 1", "orders")
	e.usage(s, "unknown flag --max", "orders", "12", "--max", "3")
	assert.Equal(t, 12, e.partitions("orders"))
}

func writeSpec(t *testing.T, spec string) string {
	p := filepath.Join(t.TempDir(), "topics.json")
	require.NoError(t, os.WriteFile(p, []byte(spec), 0o600))
	return p
}

func TestEnsureTopics(t *testing.T) {
	e := newEnv(t)
	const s = "ensure-topics.lua"
	spec := writeSpec(t, `[
  {"name": "orders", "partitions": 12, "configs": {"retention.ms": 86400000, "cleanup.policy": "delete"}},
  {"name": "payments", "replication_factor": 3, "configs": {"cleanup.policy": ["compact"]}},
  {"name": "audit-log", "partitions": 1, "replication_factor": 2},
  {"name": "shipments", "partitions": 4, "replication_factor": 3, "configs": {"retention.ms": 604800000}}
]`)
	status := func(r result) map[string]string {
		out := map[string]string{}
		for _, row := range r.rows {
			out[row["name"].(string)] = row["status"].(string)
		}
		return out
	}
	want := map[string]string{"orders": "update", "payments": "ok", "audit-log": "drift", "shipments": "create"}

	// --dry-run: the diff, nothing changed, the drift fails a check.
	r := e.ok(true, s, spec)
	assert.Equal(t, want, status(r))
	assert.NotContains(t, e.topics(), "shipments")
	assert.Equal(t, 6, e.partitions("orders"))
	partitionsOf := func(r result, name string) any {
		for _, row := range r.rows {
			if row["name"] == name {
				return row["partitions"]
			}
		}
		return nil
	}
	assert.Equal(t, 6.0, partitionsOf(r, "orders"), "a dry run's row shows the topic as it is")
	assert.Equal(t, "259200000", e.config("orders", "retention.ms"))
	assert.Equal(t, []string{"audit-log has replication factor 3, the spec says 2 (plan_reassignment can move it)"}, r.checks)
	assert.Contains(t, r.json, `"setting": "retention.ms"`)
	assert.Contains(t, r.stderr, "dry-run: alter_configs: topic:orders: set retention.ms=86400000")

	// For real: created, raised, altered; the drift still fails its check.
	r = e.ok(false, s, spec)
	assert.Equal(t, want, status(r))
	assert.Equal(t, 4, e.partitions("shipments"))
	assert.Equal(t, "604800000", e.config("shipments", "retention.ms"))
	assert.Equal(t, 12, e.partitions("orders"))
	assert.Equal(t, 12.0, partitionsOf(r, "orders"), "an applied row shows the state after the change")
	assert.Equal(t, "86400000", e.config("orders", "retention.ms"))
	assert.Equal(t, "lz4", e.config("orders", "compression.type"), "configs the spec does not name are kept")
	assert.Equal(t, "compact", e.config("payments", "cleanup.policy"))
	assert.Len(t, r.checks, 1)
	assert.Contains(t, r.stderr, "4 topics: 1 created, 1 updated, 1 in sync, 1 with drift to fix by hand")

	// Again: converged, only the drift is left.
	r = e.ok(false, s, spec)
	assert.Equal(t, map[string]string{"orders": "ok", "payments": "ok", "audit-log": "drift", "shipments": "ok"}, status(r))
	assert.Len(t, r.checks, 1)

	// Fewer partitions than the topic has is drift, never a change.
	r = e.ok(false, s, writeSpec(t, `[{"name": "orders", "partitions": 3}]`))
	assert.Equal(t, map[string]string{"orders": "drift"}, status(r))
	assert.Equal(t, []string{"orders has 12 partitions, the spec says 3 (Kafka cannot lower a partition count)"}, r.checks)
	assert.Equal(t, 12, e.partitions("orders"))

	// A mistake anywhere in the file changes nothing, not even the good specs before it.
	for _, c := range []struct{ spec, want string }{
		{`[{"name": "fresh-1"}, {"name": "fresh-2", "partitions": "x"}]`, `topic #2 (fresh-2): partitions must be a positive integer, got "x"`},
		{`[{"name": "fresh-1"}, {"name": "fresh-2", "partition": 3}]`, `topic #2 (fresh-2): unknown key "partition"`},
		{`[{"name": "fresh-1"}, {"partitions": 3}]`, `topic #2: name must be a non-empty string`},
		{`[{"name": "fresh-1"}, {"name": "fresh-1"}]`, `topic #2 (fresh-1): listed twice (also topic #1)`},
		{`[{"name": "fresh-1", "configs": {"retention.ms": {"a": 1}}}]`, `config retention.ms must be a string, number, boolean or array of strings`},
		{`{"name": "fresh-1"}`, `must be a JSON array of topic specs`},
		{`[{"name": "fresh-1"`, `not valid JSON`},
	} {
		r := e.run(false, s, writeSpec(t, c.spec))
		require.NotNil(t, r.err, c.spec)
		assert.Equal(t, luaapi.KindScript, r.err.Kind, c.spec)
		assert.Contains(t, r.err.Message, c.want, c.spec)
	}
	assert.NotContains(t, e.topics(), "fresh-1")
	e.usage(s, "cannot read", filepath.Join(t.TempDir(), "missing.json"))
	e.usage(s, "expected 1 argument, got 0")
}

func TestCheckLag(t *testing.T) {
	e := newEnv(t)
	const s = "check-lag.lua"

	r := e.ok(false, s, "--max", "20")
	assert.Equal(t, []string{"orders-processor: lags 56 records (max 20)"}, r.checks)
	require.Len(t, r.rows, 2)
	assert.Equal(t, map[string]any{"group": "billing", "state": "Empty", "status": "INCOMPLETE", "total_lag": 15.0, "max": 20.0, "records_lost": 0.0, "trend": "unknown", "complete": 0.0, "ok": true}, r.rows[0])
	assert.Equal(t, false, r.rows[1]["ok"])
	assert.Contains(t, r.stderr, "1 of 2 groups over 20 records, ERR, missing or unreadable: orders-processor")

	assert.Equal(t, map[string]float64{
		"kafka_consumergroup_lag{group=billing,topic=payments}":        15,
		"kafka_consumergroup_lag{group=orders-processor,topic=orders}": 56,
		"kafka_consumergroup_total_lag{group=billing}":                 15,
		"kafka_consumergroup_total_lag{group=orders-processor}":        56,
		"kafka_consumergroup_records_lost{group=billing}":              0,
		"kafka_consumergroup_records_lost{group=orders-processor}":     0,
		"kafka_consumergroup_lag_ok{group=billing}":                    1,
		"kafka_consumergroup_lag_ok{group=orders-processor}":           0,
		"kafka_consumergroup_window_complete{group=billing}":           0,
		"kafka_consumergroup_window_complete{group=orders-processor}":  0,
	}, r.metrics, "no status while the window is incomplete: one sample")

	r = e.ok(false, s, "--max=100")
	assert.Empty(t, r.checks)
	assert.Contains(t, r.stderr, "2 groups within 100 records")

	r = e.ok(false, s, "billing", "no-such-group", "--max", "15")
	assert.Equal(t, []string{"no-such-group: NOTFOUND: the group does not exist"}, r.checks)
	assert.Equal(t, 0.0, r.metrics["kafka_consumergroup_status{group=no-such-group}"])
	assert.Equal(t, 0.0, r.metrics["kafka_consumergroup_lag_ok{group=no-such-group}"])
	assert.NotContains(t, r.metrics, "kafka_consumergroup_total_lag{group=no-such-group}", "no lag figure for a group whose lag cannot be read")
	require.Len(t, r.rows, 2)
	assert.Equal(t, true, r.rows[0]["ok"])

	// In time: the demo's records are minutes old, so a day passes and a
	// second fails; the age is the metric.
	r = e.ok(false, s, "--max-seconds", "86400")
	assert.Empty(t, r.checks)
	assert.Contains(t, r.stderr, "2 groups within 86400 seconds")
	assert.Positive(t, r.metrics["kafka_consumergroup_max_lag_seconds{group=orders-processor}"])
	assert.Contains(t, r.metrics, "kafka_consumergroup_at_risk_partitions{group=billing}")
	r = e.ok(false, s, "billing", "--max-seconds", "1")
	require.Len(t, r.checks, 1)
	assert.Regexp(t, `^billing: lags \d+ seconds \(max 1\)$`, r.checks[0])
	assert.Positive(t, r.rows[0]["max_lag_seconds"])

	// Records deleted before billing read them: lost, and with
	// --fail-on-loss a failed check.
	_, err := e.adm.DeleteRecords(e.ctx(), kadm.Offsets{"payments": {0: {Topic: "payments", Partition: 0, At: 30}}})
	require.NoError(t, err)
	r = e.ok(false, s, "billing", "--max", "1000")
	assert.Empty(t, r.checks, "lost records fail only with --fail-on-loss")
	assert.Equal(t, 2.0, r.rows[0]["records_lost"])
	r = e.ok(false, s, "billing", "--max", "1000", "--fail-on-loss")
	assert.Equal(t, []string{"billing: lost 2 records: deleted before it read them"}, r.checks)
	assert.Equal(t, 2.0, r.metrics["kafka_consumergroup_records_lost{group=billing}"])

	// No limit: Burrow's rules alone, which one sample cannot fail.
	r = e.ok(false, s)
	assert.Empty(t, r.checks)
	assert.Contains(t, r.stderr, "2 groups not judged by Burrow's rules: no --state FILE keeps the samples for the next run (run --every keeps them in memory); no limit is given: nothing but a missing group can fail them")
	assert.Contains(t, r.stderr, "2 groups within Burrow's rules (2 not judged yet)")
	e.usage(s, `--max must be a non-negative integer, got "-1"`, "--max", "-1")
	e.usage(s, "--max needs a value", "--max")
	e.usage(s, `--max-seconds must be a non-negative integer, got "x"`, "--max-seconds", "x")
}

// check-lag --alert sends each group's verdict in one POST to the webhook
// in $KADMIN_ALERT_URL; with a shared state store the next run sends only
// what changed.
func TestCheckLagAlerts(t *testing.T) {
	e := newEnv(t)
	e.state = state.New(state.Options{})
	hook := testnet.NewWebhook(t)
	t.Setenv("KADMIN_ALERT_URL", hook.URL+"/api/v2/alerts")
	const s = "check-lag.lua"

	r := e.ok(false, s, "--max", "20", "--alert", "alertmanager")
	assert.Contains(t, r.stderr, "alerts: opened")
	bodies := hook.Bodies()
	require.Len(t, bodies, 1)
	var sent []struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	}
	require.NoError(t, json.Unmarshal([]byte(bodies[0]), &sent))
	require.Len(t, sent, 1, "billing is OK and was never open: nothing to resolve")
	assert.Equal(t, map[string]string{"alertname": "KafkaConsumerGroupLag", "group": "orders-processor", "severity": "critical"}, sent[0].Labels)
	assert.Equal(t, "orders-processor: lags 56 records (max 20)", sent[0].Annotations["summary"])

	r = e.ok(false, s, "--max", "20", "--alert", "alertmanager")
	assert.Contains(t, r.stderr, "alerts: unchanged")
	assert.Len(t, hook.Bodies(), 1, "still open: not sent again")

	r = e.ok(false, s, "--max", "100", "--alert", "alertmanager")
	assert.Contains(t, r.stderr, "alerts: resolved")
	require.Len(t, hook.Bodies(), 2)

	e.usage(s, `--alert must be alertmanager, slack or json, got "pager"`, "--max", "1", "--alert", "pager")
	t.Setenv("KADMIN_ALERT_URL", "")
	e.usage(s, "--alert needs the webhook's URL in $KADMIN_ALERT_URL", "--alert", "slack")
}
