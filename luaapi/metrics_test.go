package luaapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func TestMetricKeepsEachSeriesOnce(t *testing.T) {
	rt := New(Options{})
	defer rt.Close()
	_, err := rt.DoString(context.Background(), "m", `
kafka.metric("kafka_consumergroup_lag", 10, {group = "billing", topic = "payments"}, "Records behind")
kafka.metric("kafka_consumergroup_lag", 7, {topic = "orders", group = "billing"}, "another help, ignored")
kafka.metric("kafka_consumergroup_lag", 12, {topic = "payments", group = "billing"})  -- same series: replaced
kafka.metric("kafka_topics", 3)
kafka.metric("kafka_partition_lag", 1.5, {partition = 3, ratio = 0.25})
kafka.metric("kafka_topics", 4, nil, "Topics")
`)
	require.NoError(t, err)
	assert.Equal(t, []Metric{
		{Name: "kafka_consumergroup_lag", Help: "Records behind", Value: 12, Labels: map[string]string{"group": "billing", "topic": "payments"}},
		{Name: "kafka_consumergroup_lag", Help: "Records behind", Value: 7, Labels: map[string]string{"group": "billing", "topic": "orders"}},
		{Name: "kafka_topics", Help: "Topics", Value: 4, Labels: map[string]string{}},
		{Name: "kafka_partition_lag", Help: "", Value: 1.5, Labels: map[string]string{"partition": "3", "ratio": "0.25"}},
	}, rt.Metrics())

	fresh := New(Options{})
	defer fresh.Close()
	assert.Empty(t, fresh.Metrics(), "a new runtime starts with no figures")
}

func TestMetricRefusesWhatPrometheusCannotRead(t *testing.T) {
	rt := New(Options{})
	defer rt.Close()
	for src, want := range map[string]string{
		`kafka.metric("2xx", 1)`:                            `kafka.metric: name: must be a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), got "2xx"`,
		`kafka.metric("kafka lag", 1)`:                      `name: must be a metric name`,
		`kafka.metric("kadmin_lua_runs", 1)`:                `"kadmin_lua_runs" starts with kadmin_lua_, which is kept for kadmin-lua's own figures`,
		`kafka.metric("x", 0/0)`:                            `value: must be a finite number, got NaN`,
		`kafka.metric("x", 1/0)`:                            `value: must be a finite number, got +Inf`,
		`kafka.metric("x", "12")`:                           `value: must be a finite number, got "12"`,
		`kafka.metric("x", 1, {["bad-name"] = "v"})`:        `must be a label name ([a-zA-Z_][a-zA-Z0-9_]*), got "bad-name"`,
		`kafka.metric("x", 1, {__name__ = "v"})`:            `"__name__" starts with __, which Prometheus keeps for itself`,
		`kafka.metric("x", 1, {"positional"})`:              `labels: key 1: must be a label name`,
		`kafka.metric("x", 1, {g = true})`:                  `labels: g: must be a string or a number, got true`,
		`kafka.metric("x", 1, {g = "\255"})`:                `labels: g: must be UTF-8 text`,
		`kafka.metric("x", 1, {}, "\255")`:                  `help: must be UTF-8 text`,
		`kafka.metric("x", 1, {}, "h", "extra")`:            `takes at most 4 arguments`,
		`kafka.metric("x")`:                                 `value: is required`,
		`kafka.metric("x", 1, {g = string.rep("v", 2000)})`: `at most 1024 are allowed in a label value`,
	} {
		_, err := rt.DoString(context.Background(), "m", src)
		require.Error(t, err, src)
		re := err.(*RunError)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Empty(t, rt.Metrics(), "a refused call declares nothing")
}

func TestMetricSeriesAreBounded(t *testing.T) {
	rt := New(Options{})
	defer rt.Close()
	_, err := rt.DoString(context.Background(), "m", `for i = 1, 100001 do kafka.metric("x", i, {i = i}) end`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kafka.metric: more than 100000 series in one run")
	assert.Len(t, rt.Metrics(), maxMetricSeries)
}

// A shared client outlives the runtimes that use it: one connection for
// every run of a loop.
func TestSharedClientOutlivesRuntimes(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "kept"))
	require.NoError(t, err)
	defer c.Close()
	shared := NewSharedClient(engine.Config{Brokers: c.ListenAddrs(), Timeout: 10 * time.Second})
	var first *engine.Client
	for i := range 3 {
		rt := New(Options{Shared: shared, Config: engine.Config{Brokers: []string{"ignored:1"}}})
		vals, err := rt.DoString(context.Background(), "m", `return list_topics()[1].name, kafka.default:brokers()`)
		require.NoError(t, err, "run %d", i)
		assert.Equal(t, "kept", vals[0].String())
		assert.Equal(t, strings.Join(c.ListenAddrs(), ","), vals[1].String(), "the shared client's config is the default cluster")
		cl, err := rt.dflt.get()
		require.NoError(t, err)
		if first == nil {
			first = cl
		}
		assert.Same(t, first, cl, "run %d uses the same connection", i)
		rt.Close()
	}
	// Closing the runtimes left it open; Close closes it.
	_, err = shared.conn.get()
	require.NoError(t, err)
	shared.Close()
	_, err = shared.conn.get()
	assert.ErrorContains(t, err, "client is closed")
}

// Dry-run plan lines name the cluster they are for: the profile when the
// client came from one, else its seed brokers.
func TestDryRunPlanNamesItsCluster(t *testing.T) {
	a, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	defer a.Close()
	b, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	defer b.Close()
	var stderr strings.Builder
	rt := New(Options{
		Config: engine.Config{Brokers: a.ListenAddrs(), Timeout: 10 * time.Second, DryRun: true},
		Resolve: func(name string) (engine.Config, error) {
			return engine.Config{Brokers: b.ListenAddrs(), Timeout: 10 * time.Second}, nil
		},
		Cluster: "prod-eu", Stderr: &stderr,
	})
	defer rt.Close()
	_, err = rt.DoString(context.Background(), "m", `
create_topics{{name = "t1", partitions = 2}}
kafka.connect{profile = "dr"}:create_topics{{name = "t2", partitions = 2}}
kafka.connect{brokers = kafka.default:brokers()}:create_topics{{name = "t3", partitions = 2}}
`)
	require.NoError(t, err)
	out := stderr.String()
	assert.Contains(t, out, "dry-run: create_topics: create topic t1 (partitions 2, replication factor broker default, 0 configs) (on prod-eu)\n")
	assert.Contains(t, out, "dry-run: create_topics: create topic t2 (partitions 2, replication factor broker default, 0 configs) (on dr)\n")
	assert.Contains(t, out, "dry-run: create_topics: create topic t3 (partitions 2, replication factor broker default, 0 configs) (on "+a.ListenAddrs()[0]+")\n")
}
