package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kadmin-lua/kadmin-lua/internal/boundedfile"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// metricsFile is --metrics-file: after each run (each iteration of a loop,
// every cluster of a fleet) it is replaced, atomically, by OpenMetrics text
// that Prometheus' node_exporter textfile collector reads: the figures the
// script declared with kafka.metric and kadmin-lua's own, named
// kadmin_lua_*. Every figure is a gauge. The text is also valid in the
// Prometheus text format (0.0.4), which is what the textfile collector
// parses: no counters, no units, and HELP texts without double quotes.
type metricsFile struct {
	path   string
	script string // the script's file name: the script label of kadmin-lua's figures
	// lastSuccess is when a run last ended with exit 0, by profile ("" for
	// the default cluster). It starts from the file a previous process
	// wrote, so a cron job's figure survives its failing runs.
	lastSuccess map[string]float64
}

// The figures kadmin-lua writes about each run.
const (
	metricDuration    = luaapi.ReservedMetricPrefix + "run_duration_seconds"
	metricExit        = luaapi.ReservedMetricPrefix + "run_exit_code"
	metricChecks      = luaapi.ReservedMetricPrefix + "check_failures"
	metricLastRun     = luaapi.ReservedMetricPrefix + "last_run_timestamp_seconds"
	metricLastSuccess = luaapi.ReservedMetricPrefix + "last_success_timestamp_seconds"
	metricNotified    = luaapi.ReservedMetricPrefix + "notify_deliveries"
	metricNotifyFail  = luaapi.ReservedMetricPrefix + "notify_failures"
)

var ownHelp = map[string]string{
	metricDuration:    "How long the last run took, in seconds.",
	metricExit:        "The last run's exit code: 0 ok, 1 script error, 2 usage, 3 Kafka error, 4 a check failed.",
	metricChecks:      "How many kafka.check calls failed in the last run.",
	metricLastRun:     "When the last run ended, in seconds since the Unix epoch.",
	metricLastSuccess: "When a run last ended with exit 0, in seconds since the Unix epoch.",
	metricNotified:    "How many kafka.notify POSTs a webhook accepted in the last run.",
	metricNotifyFail:  "How many kafka.notify deliveries failed (every attempt refused, timed out or answered with an error) in the last run.",
}

// openMetricsFile checks that path's directory exists (a typo is a usage
// error at start, not a failure after the first run) and reads the last
// success times an earlier process left in it.
func openMetricsFile(path, script string) (*metricsFile, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usageErr(fmt.Errorf("--metrics-file: no directory %s", dir))
	}
	if err := boundedfile.Replaceable(path); err != nil { // each write renames over it
		return nil, usageErr(fmt.Errorf("--metrics-file: %w", err))
	}
	m := &metricsFile{path: path, script: metricText(filepath.Base(script)), lastSuccess: map[string]float64{}}
	m.readLastSuccess()
	return m, nil
}

var (
	lastSuccessLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^` + metricLastSuccess + `\{(.*)\} (\S+)$`) })
	labelPair       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`) })
)

// readLastSuccess reads this script's last success times from the file as
// this writer wrote it; anything else in it is ignored.
func (m *metricsFile) readLastSuccess() {
	f, err := boundedfile.Open(m.path) // not a FIFO: it would block the start
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		g := lastSuccessLine().FindStringSubmatch(sc.Text())
		if g == nil {
			continue
		}
		v, err := strconv.ParseFloat(g[2], 64)
		if err != nil {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair().FindAllStringSubmatch(g[1], -1) {
			labels[p[1]] = unescapeLabel(p[2])
		}
		if labels["script"] == m.script {
			m.lastSuccess[labels["profile"]] = v
		}
	}
}

// write replaces the file with the figures of outs: a temporary file in
// the same directory (named so that the textfile collector, which reads
// *.prom, skips it), renamed over the old one, so a scrape reads either the
// old file or the new one, never half of one.
func (m *metricsFile) write(outs []outcome, now time.Time) error {
	text := m.render(outs, now)
	dir, base := filepath.Split(m.path)
	removeStaleTemps(dir, base, now)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil { // node_exporter often runs as another user
		tmp.Close()
		return err
	}
	// On disk before the rename: after a crash the file is the old one
	// or the new one, never an empty one.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := boundedfile.Replaceable(m.path); err != nil { // replaced since the start
		return err
	}
	return os.Rename(tmp.Name(), m.path)
}

// staleTempAge: a temporary metrics file older than this was left by a
// process killed while writing (kill -9 gives no chance to remove it); a
// live writer renames its own within milliseconds.
const staleTempAge = time.Minute

// removeStaleTemps removes what killed writers left beside the file.
func removeStaleTemps(dir, base string, now time.Time) {
	if dir == "" {
		dir = "."
	}
	entries, _ := os.ReadDir(dir) // not Glob: the file's name may hold [ or *
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "."+base+".tmp-") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleTempAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

type series struct {
	labels map[string]string
	value  float64
}

type family struct {
	help   string
	series map[string]series // by rendered labels: one sample per label set
}

// render is the OpenMetrics text for outs: families sorted by name, each
// with its HELP and TYPE, samples sorted by labels, then # EOF.
func (m *metricsFile) render(outs []outcome, now time.Time) string {
	fams := map[string]*family{}
	add := func(name, help string, labels map[string]string, v float64) {
		f := fams[name]
		if f == nil {
			f = &family{help: help, series: map[string]series{}}
			fams[name] = f
		}
		if f.help == "" {
			f.help = help
		}
		f.series[renderLabels(labels)] = series{labels: labels, value: v}
	}
	end := unixSeconds(now)
	for _, o := range outs {
		profile := metricText(o.target.name)
		own := map[string]string{"script": m.script}
		if profile != "" {
			own["profile"] = profile
		}
		if o.code == ExitOK {
			m.lastSuccess[profile] = end
		}
		add(metricDuration, ownHelp[metricDuration], own, o.took.Seconds())
		add(metricExit, ownHelp[metricExit], own, float64(o.code))
		add(metricChecks, ownHelp[metricChecks], own, float64(len(o.checks)))
		add(metricLastRun, ownHelp[metricLastRun], own, end)
		add(metricNotified, ownHelp[metricNotified], own, float64(o.notifyDeliveries))
		add(metricNotifyFail, ownHelp[metricNotifyFail], own, float64(o.notifyFailures))
		if t, ok := m.lastSuccess[profile]; ok {
			add(metricLastSuccess, ownHelp[metricLastSuccess], own, t)
		}
		addCost(add, own, o.cost)
		for _, mt := range o.metrics {
			labels := make(map[string]string, len(mt.Labels)+1)
			for k, v := range mt.Labels {
				labels[k] = v
			}
			if profile != "" {
				labels["profile"] = profile
			}
			add(mt.Name, mt.Help, labels, mt.Value)
		}
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		f := fams[n]
		if f.help != "" {
			fmt.Fprintf(&b, "# HELP %s %s\n", n, escapeHelp(f.help))
		}
		fmt.Fprintf(&b, "# TYPE %s gauge\n", n)
		keys := make([]string, 0, len(f.series))
		for k := range f.series {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s%s %s\n", n, k, formatValue(f.series[k].value))
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// renderLabels is {a="x",b="y"} with names sorted, or "" for none.
func renderLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + `="` + escapeLabel(labels[k]) + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}

var (
	labelEscaper   = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	labelUnescaper = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n")
	// OpenMetrics escapes " in HELP and the Prometheus text format does
	// not accept \": a double quote becomes a single one, read alike by both.
	helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `'`)
)

func escapeLabel(s string) string   { return labelEscaper.Replace(metricText(s)) }
func unescapeLabel(s string) string { return labelUnescaper.Replace(s) }
func escapeHelp(s string) string    { return helpEscaper.Replace(metricText(s)) }

// metricText is a label value or HELP text that every parser reads whole:
// the one escaping rule (luaapi.TerminalText) with the tab escaped too, so
// nothing but the newline (which the format escapes) is left of what
// Python's parsers take for a line end or a field separator (CR, VT, FF,
// U+0085, U+2028, tabs), and bytes that are not UTF-8 (a script's file
// name), which Go's parsers refuse, become \xff. Printable text is kept
// as it is, so metricText(metricText(s)) == metricText(s).
func metricText(s string) string {
	return strings.ReplaceAll(luaapi.TerminalText(s), "\t", `\t`)
}

// formatValue writes a number as both formats read it: integers in
// decimal, others in the shortest form that reads back the same.
func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	if a := math.Abs(v); a >= 1e-4 && a < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'e', -1, 64)
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }
