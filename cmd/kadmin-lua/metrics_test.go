package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

// parseOpenMetrics reads a metrics file with the Prometheus OpenMetrics
// 1.0 parser (which also insists on # EOF) and, to be sure node_exporter's
// textfile collector reads it too, with the Prometheus text-format parser.
// It returns each family's samples as "labels value" strings, and the
// families' help.
func parseOpenMetrics(t *testing.T, path string) (samples map[string][]string, help map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	samples, help = map[string][]string{}, map[string]string{}
	dec := expfmt.NewDecoder(strings.NewReader(string(raw)), expfmt.FmtOpenMetrics_1_0_0)
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "OpenMetrics parser on:\n%s", raw)
		require.Equal(t, dto.MetricType_GAUGE, mf.GetType(), mf.GetName())
		help[mf.GetName()] = mf.GetHelp()
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			samples[mf.GetName()] = append(samples[mf.GetName()],
				strings.Join(labels, ",")+" "+model.SampleValue(m.GetGauge().GetValue()).String())
		}
	}
	tp := expfmt.NewTextParser(model.LegacyValidation)
	text, err := tp.TextToMetricFamilies(strings.NewReader(string(raw)))
	require.NoError(t, err, "text-format parser (node_exporter's) on:\n%s", raw)
	assert.Len(t, text, len(samples), "both parsers see the same families")
	return samples, help
}

func TestMetricsFileIsOpenMetrics(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(3, "orders", "payments"))
	dir := t.TempDir()
	prom := filepath.Join(dir, "health.prom")
	script := writeFile(t, "health.lua", `
local n = #list_topics()
kafka.metric("kafka_topics", n, {}, 'Topics "seen"\nby the script')
kafka.metric("kafka_topic_partitions", 3, {topic = "orders"}, [[back\slash]])
kafka.metric("kafka_topic_partitions", 3, {topic = "pay\"ments\n"})
kafka.metric("kafka_ratio", 0.125, {}, "")
kafka.metric("kafka_big", 2^60)
kafka.check(n > 5, "fewer than 6 topics")
return n`)
	cli := newCLI(t)
	before := time.Now()
	require.Equal(t, ExitCheck, cli.run("-b", c.addrs, "run", "--metrics-file", prom, script))
	assert.Equal(t, "2\n", cli.stdout.String(), "the run prints as a plain run does")
	assert.Equal(t, "check failed: fewer than 6 topics\nkadmin-lua: 1 check failed\n", cli.stderr.String())

	samples, help := parseOpenMetrics(t, prom)
	assert.Equal(t, []string{" 2"}, samples["kafka_topics"])
	assert.Equal(t, "Topics 'seen'\nby the script", help["kafka_topics"], "a double quote becomes a single one")
	assert.Equal(t, `back\slash`, help["kafka_topic_partitions"])
	assert.Equal(t, []string{"topic=orders 3", "topic=pay\"ments\n 3"}, samples["kafka_topic_partitions"])
	assert.Equal(t, []string{" 0.125"}, samples["kafka_ratio"])
	require.Len(t, samples["kafka_big"], 1)
	assert.Equal(t, float64(1<<60), sampleValue(t, samples["kafka_big"][0]), "exact, in exponent form")
	assert.Equal(t, []string{"script=health.lua 1"}, samples["kadmin_lua_check_failures"])
	assert.Equal(t, []string{"script=health.lua 4"}, samples["kadmin_lua_run_exit_code"])
	assert.Len(t, samples["kadmin_lua_run_duration_seconds"], 1)
	assert.NotContains(t, samples, "kadmin_lua_last_success_timestamp_seconds", "no run has succeeded yet")
	lastRun := sampleValue(t, samples["kadmin_lua_last_run_timestamp_seconds"][0])
	assert.InDelta(t, float64(before.Unix()), lastRun, 10)

	// A run that succeeds adds the success time; a later failing run (a new
	// process, as under cron) keeps it.
	okScript := writeFile(t, "health.lua", `kafka.metric("kafka_topics", #list_topics()) return 0`)
	require.Equal(t, ExitOK, newCLI(t).run("-b", c.addrs, "run", "--metrics-file", prom, okScript))
	samples, _ = parseOpenMetrics(t, prom)
	require.Len(t, samples["kadmin_lua_last_success_timestamp_seconds"], 1)
	success := samples["kadmin_lua_last_success_timestamp_seconds"][0]
	assert.Equal(t, []string{"script=health.lua 0"}, samples["kadmin_lua_run_exit_code"])

	failScript := writeFile(t, "health.lua", `error("boom")`)
	cli = newCLI(t)
	require.Equal(t, ExitScript, cli.run("-b", c.addrs, "run", "--metrics-file", prom, failScript))
	assert.Contains(t, cli.stderr.String(), "boom")
	samples, _ = parseOpenMetrics(t, prom)
	assert.Equal(t, []string{success}, samples["kadmin_lua_last_success_timestamp_seconds"], "kept from the file")
	assert.Equal(t, []string{"script=health.lua 1"}, samples["kadmin_lua_run_exit_code"])
	assert.NotContains(t, samples, "kafka_topics", "a failed run's file holds only what it declared")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
	st, err := os.Stat(prom)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm(), "node_exporter, another user, can read it")
}

func sampleValue(t *testing.T, sample string) float64 {
	t.Helper()
	var v model.SampleValue
	require.NoError(t, v.UnmarshalJSON([]byte(`"`+sample[strings.LastIndexByte(sample, ' ')+1:]+`"`)))
	return float64(v)
}

func TestMetricsFileFlagMistakes(t *testing.T) {
	// Each write renames a new file over the metrics file: over a FIFO or
	// a device (--metrics-file /dev/null, as root) that would replace it.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "lag.prom")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	defer func() {
		st, err := os.Lstat(fifo)
		require.NoError(t, err)
		assert.NotZero(t, st.Mode()&os.ModeNamedPipe, "the FIFO is left as it was")
	}()
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"missing directory": {[]string{"run", "--metrics-file", "/no/such/dir/x.prom", "x.lua"}, "--metrics-file: no directory /no/such/dir"},
		"empty":             {[]string{"run", "--metrics-file", "", "x.lua"}, "--metrics-file needs a file name"},
		"a FIFO":            {[]string{"run", "--metrics-file", fifo, "x.lua"}, "--metrics-file: " + fifo + " is a named pipe (FIFO), not a regular file: kadmin-lua writes this file whole"},
		"a directory":       {[]string{"run", "--metrics-file", dir, "x.lua"}, "--metrics-file: " + dir + " is a directory, not a regular file"},
		"max-runs alone":    {[]string{"run", "--max-runs", "3", "x.lua"}, "--max-runs needs --every"},
		"every zero":        {[]string{"run", "--every", "0s", "x.lua"}, "--every must be a positive duration"},
		"parallel alone":    {[]string{"run", "--parallel", "3", "x.lua"}, "--parallel needs --profiles"},
		"max-runs zero":     {[]string{"run", "--every", "1s", "--max-runs", "0", "x.lua"}, "--max-runs must be at least 1"},
	} {
		t.Run(name, func(t *testing.T) {
			cli := newCLI(t)
			require.Equal(t, ExitUsage, cli.run(append([]string{"-b", "127.0.0.1:1"}, c.args...)...))
			assert.Contains(t, cli.stderr.String(), c.want)
			assert.Contains(t, cli.stderr.String(), "Run 'kadmin-lua --help' for usage.")
		})
	}
}

// What a writer killed mid-write left beside the metrics file (kill -9:
// no chance to remove it) is removed by the next write once it is stale;
// a fresh one, perhaps another writer's, is left alone.
func TestMetricsFileRemovesStaleTemporaries(t *testing.T) {
	c := newCluster(t)
	dir := t.TempDir()
	prom := filepath.Join(dir, "job.prom")
	stale := filepath.Join(dir, ".job.prom.tmp-123")
	fresh := filepath.Join(dir, ".job.prom.tmp-456")
	other := filepath.Join(dir, ".other.prom.tmp-789")
	for _, p := range []string{stale, fresh, other} {
		require.NoError(t, os.WriteFile(p, []byte("half"), 0o600))
	}
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, os.Chtimes(other, old, old))
	cli := newCLI(t)
	require.Equal(t, ExitOK, cli.run("-b", c.addrs, "run", "--metrics-file", prom, writeFile(t, "one.lua", "return 1")), cli.stderr.String())
	assert.NoFileExists(t, stale)
	assert.FileExists(t, fresh)
	assert.FileExists(t, other, "another file's temporaries are not ours")
	assert.FileExists(t, prom)
}

// pythonParsers reads a metrics file as Python's prometheus_client does,
// opened as Python opens a text file (universal newlines), with its
// Prometheus text parser and its OpenMetrics parser; it returns what each
// saw as "name{labels} value" lines, sorted.
func pythonParsers(t *testing.T, path string) (text, openMetrics []string) {
	t.Helper()
	const prog = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families as text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
data = open(sys.argv[1]).read()
out = {}
for name, parse in (("text", text), ("om", om)):
    out[name] = sorted("%s%s %r" % (s.name, json.dumps(s.labels, sort_keys=True), float(s.value))
                       for f in parse(data) for s in f.samples)
print(json.dumps(out))
`
	// Debian's python3, which has python3-prometheus-client (tools/deps.sh).
	cmd := exec.Command("/usr/bin/python3", "-c", prog, path)
	b, err := cmd.Output()
	var stderr []byte
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "Python's parsers:\n%s", stderr)
	var got map[string][]string
	require.NoError(t, json.Unmarshal(b, &got))
	return got["text"], got["om"]
}

// Names and texts that break parsers (a script file name with a byte that
// is not UTF-8 and a CR, a profile name with a CR and a C1 control, label
// values and HELP texts with CR, VT, U+0085, U+2028, tabs, quotes,
// backslashes and newlines) leave a file that Go's OpenMetrics and text
// parsers and Python's two parsers all read whole, each seeing the same
// samples.
func TestMetricsFileReadByEveryParser(t *testing.T) {
	c := newCluster(t)
	dir := t.TempDir()
	prom := filepath.Join(dir, "hostile.prom")
	script := filepath.Join(t.TempDir(), "he\xffalth\r.lua")
	require.NoError(t, os.WriteFile(script, []byte(`
kafka.metric("kafka_group_lag", 7, {group = "g\r1\194\133\226\128\168\t\"q\"\\back\nline"}, "lag\rof\11groups\226\128\168\"x\"\\")
kafka.metric("kafka_groups", 1, {}, "tab\there")
return 0`), 0o600))
	cli := newCLI(t)
	writeConfig(t, cli, fmt.Sprintf(`{"profiles": {"p\rx\u009by": {"brokers": [%q]}}}`, c.addrs))
	require.Equal(t, ExitOK, cli.run("run", "--profiles", "p*", "--metrics-file", prom, script), cli.stderr.String())

	raw, err := os.ReadFile(prom)
	require.NoError(t, err)
	assert.True(t, utf8.Valid(raw), "UTF-8")
	assert.NotContains(t, string(raw), "\r")
	samples, help := parseOpenMetrics(t, prom)
	require.Len(t, samples["kafka_group_lag"], 1)
	assert.Equal(t, "group=g\\r1\\u0085\\u2028\\t\"q\"\\back\nline,profile=p\\rx\\u009by 7", samples["kafka_group_lag"][0],
		"what a terminal or a parser would obey is escaped; quotes, backslashes and newlines are exact")
	assert.Equal(t, `lag\rof\vgroups\u2028'x'\`, help["kafka_group_lag"])
	assert.Equal(t, `tab\there`, help["kafka_groups"])
	assert.Equal(t, []string{`profile=p\rx\u009by,script=he\xffalth\r.lua 0`}, samples["kadmin_lua_run_exit_code"])

	var goSamples int
	for _, s := range samples {
		goSamples += len(s)
	}
	text, om := pythonParsers(t, prom)
	assert.Len(t, text, goSamples, "Python's text parser sees every sample:\n%s", raw)
	assert.Equal(t, text, om, "Python's OpenMetrics parser sees the same")
	assert.Contains(t, text, `kadmin_lua_run_exit_code{"profile": "p\\rx\\u009by", "script": "he\\xffalth\\r.lua"} 0.0`)
	assert.Contains(t, text, `kafka_group_lag{"group": "g\\r1\\u0085\\u2028\\t\"q\"\\back\nline", "profile": "p\\rx\\u009by"} 7.0`)

	// The last success survives a new process: the escaped names are read back.
	cli = newCLI(t)
	writeConfig(t, cli, fmt.Sprintf(`{"profiles": {"p\rx\u009by": {"brokers": [%q]}}}`, c.addrs))
	require.NoError(t, os.WriteFile(script, []byte(`error("boom")`), 0o600))
	require.Equal(t, ExitScript, cli.run("run", "--profiles", "p*", "--metrics-file", prom, script))
	samples, _ = parseOpenMetrics(t, prom)
	assert.Len(t, samples["kadmin_lua_last_success_timestamp_seconds"], 1, "kept from the file")
}
