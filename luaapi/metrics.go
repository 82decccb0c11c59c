package luaapi

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

// Metric is one figure a script declared with kafka.metric: a gauge
// sample with its labels. The CLI writes a run's metrics, with its own
// kadmin_lua_* figures, to --metrics-file for Prometheus.
type Metric struct {
	Name   string
	Help   string // the family's HELP; "" when the script gave none
	Value  float64
	Labels map[string]string
}

// ReservedMetricPrefix starts the names of the figures kadmin-lua writes
// itself (run duration, last success, ...); scripts cannot use it.
const ReservedMetricPrefix = "kadmin_lua_"

// maxMetricSeries bounds the series one run may declare: a script that
// loops without end must not grow the metrics file (and memory) without
// bound.
const maxMetricSeries = 100_000

var (
	metricNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`) })
	labelNameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`) })
)

func init() {
	register(&Func{Name: "kafka.metric", Area: "library",
		Params: []Param{
			{Name: "name", Type: metricName, Doc: "the metric's name: letters, digits, _ and :, not starting with a digit"},
			{Name: "value", Type: finiteNumber, Doc: "the figure"},
			{Name: "labels", Type: metricLabels, Optional: true, Doc: "label names to values (strings or numbers)"},
			{Name: "help", Type: metricHelp, Optional: true, Doc: "what the figure means (the HELP line)"},
		},
		Returns: "nothing",
		Summary: "Declare a figure (a gauge) that --metrics-file writes for Prometheus after the run.",
		Doc: `Each call sets one series: the name with its labels. Calling again with the same name and labels replaces the value; the first help given for a name is kept. Every figure is a gauge: its value as of this run.
Names follow OpenMetrics ([a-zA-Z_:][a-zA-Z0-9_:]*); names starting with kadmin_lua_ are kadmin-lua's own (run duration, last success, check failures) and are refused. Label names are [a-zA-Z_][a-zA-Z0-9_]* and may not start with __; values are strings (numbers are written in decimal). When the run's cluster is a profile (run --profiles), every series also gets the label profile=NAME, replacing a label of that name.
Without --metrics-file the figures are kept for nothing: a script declares them the same way under cron, in a loop or at the REPL. See docs/scheduling.md.`,
		Example: `kafka.metric("kafka_topics", #list_topics(), {}, "Topics in the cluster")
kafka.metric("kafka_consumergroup_lag", 42, {group = "billing", topic = "payments"})`,
		Native: (*Runtime).libMetric})
}

// metricName is an OpenMetrics metric name outside kadmin-lua's own prefix.
var metricName = NonEmptyStr().MaxLen(200).Checked("metric name", func(s string) error {
	switch {
	case !metricNameRE().MatchString(s):
		return fmt.Errorf("must be a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), got %q", s)
	case strings.HasPrefix(s, ReservedMetricPrefix):
		return fmt.Errorf("%q starts with %s, which is kept for kadmin-lua's own figures", s, ReservedMetricPrefix)
	}
	return nil
}).Sample("kafka_sample")

// finiteNumber is a metric's value: any finite number.
var finiteNumber = Custom("finite number", "1", func(_ *reader, v lua.LValue, at string) (any, error) {
	n, ok := v.(lua.LNumber)
	if !ok || math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return nil, argErr(at, "must be a finite number, got %s", describe(v))
	}
	return float64(n), nil
}, lua.LTNumber)

// metricHelp is a HELP text: UTF-8, on one line once written (newlines are
// escaped).
var metricHelp = Str().MaxLen(1024).Checked("help text", func(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("must be UTF-8 text")
	}
	return nil
})

var labelName = NonEmptyStr().MaxLen(200).Checked("label name", func(s string) error {
	switch {
	case !labelNameRE().MatchString(s):
		return fmt.Errorf("must be a label name ([a-zA-Z_][a-zA-Z0-9_]*), got %q", s)
	case strings.HasPrefix(s, "__"):
		return fmt.Errorf("%q starts with __, which Prometheus keeps for itself", s)
	}
	return nil
}).Sample("group")

var labelValue = Custom("string or number", `"v"`, func(_ *reader, v lua.LValue, at string) (any, error) {
	switch v := v.(type) {
	case lua.LString:
		switch {
		case len(v) > 1024:
			return nil, argErr(at, "is %d bytes long; at most 1024 are allowed in a label value", len(v))
		case !utf8.ValidString(string(v)):
			return nil, argErr(at, "must be UTF-8 text")
		}
		return string(v), nil
	case lua.LNumber:
		f := float64(v)
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			return nil, argErr(at, "must be a string or a finite number, got %s", describe(v))
		case f == math.Trunc(f) && math.Abs(f) < 1<<53:
			return strconv.FormatInt(int64(f), 10), nil
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return nil, argErr(at, "must be a string or a number, got %s", describe(v))
}, lua.LTString, lua.LTNumber)

var metricLabels = MapOf[string, string](labelName, labelValue).Described("{label = value, ...}")

// metricSet is the figures one run declared, in the order first declared.
type metricSet struct {
	index map[string]int // series key -> position in list
	help  map[string]string
	list  []Metric
}

func seriesKey(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(name)
	for _, k := range keys {
		b.WriteString("\x00" + k + "\x00" + labels[k])
	}
	return b.String()
}

func (r *Runtime) libMetric(c *Call) int {
	name, value := param[string](c, "name"), param[float64](c, "value")
	labels := param[map[string]string](c, "labels")
	if labels == nil {
		labels = map[string]string{}
	}
	if err := r.setMetric(name, param[string](c, "help"), value, labels); err != nil {
		return libError(c.L, "kafka.metric", err)
	}
	return 0
}

// setMetric sets one series of the run's figures (kafka.metric's, and
// kadmin-lua's own such as probe's).
func (r *Runtime) setMetric(name, help string, value float64, labels map[string]string) *engine.Error {
	if r.metrics == nil {
		r.metrics = &metricSet{index: map[string]int{}, help: map[string]string{}}
	}
	m := r.metrics
	if _, ok := m.help[name]; !ok || m.help[name] == "" {
		m.help[name] = help
	}
	key := seriesKey(name, labels)
	if i, ok := m.index[key]; ok {
		m.list[i].Value = value
		return nil
	}
	if len(m.list) >= maxMetricSeries {
		return &engine.Error{Code: engine.CodeInvalidArgument, Message: fmt.Sprintf("more than %d series in one run", maxMetricSeries)}
	}
	m.index[key] = len(m.list)
	m.list = append(m.list, Metric{Name: name, Value: value, Labels: labels})
	return nil
}

// Metrics returns the figures the run declared with kafka.metric, each
// with its family's help, in the order they were first declared.
func (r *Runtime) Metrics() []Metric {
	if r.metrics == nil {
		return nil
	}
	out := make([]Metric, len(r.metrics.list))
	for i, m := range r.metrics.list {
		m.Help = r.metrics.help[m.Name]
		out[i] = m
	}
	return out
}
