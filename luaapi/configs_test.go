package luaapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
)

// topicConfigs reads a topic's configs through the independent client:
// key -> value, for configs set on the topic itself.
func topicConfigs(t *testing.T, e *env, topic string) map[string]string {
	t.Helper()
	rc, err := e.adm.DescribeTopicConfigs(e.ctx(), topic)
	require.NoError(t, err)
	cfg, err := rc.On(topic, nil)
	require.NoError(t, err)
	out := map[string]string{}
	for _, c := range cfg.Configs {
		if c.Source == kmsg.ConfigSourceDynamicTopicConfig {
			out[c.Key] = c.MaybeValue()
		}
	}
	return out
}

// rawConfigs describes a resource with a plain DescribeConfigs request
// through a separate client (kadm has no helper for groups or client
// metrics): key -> value.
func rawConfigs(t *testing.T, e *env, typ kmsg.ConfigResourceType, name string) map[string]string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = typ, name
	req.Resources = append(req.Resources, rr)
	resp, err := req.RequestWith(e.ctx(), cl)
	require.NoError(t, err)
	require.Len(t, resp.Resources, 1)
	require.Zero(t, resp.Resources[0].ErrorCode)
	out := map[string]string{}
	for _, c := range resp.Resources[0].Configs {
		if c.Value != nil {
			out[c.Name] = *c.Value
		}
	}
	return out
}

func TestAlterConfigsTopicSetDeleteAppendSubtract(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "cfg", configs = {["segment.bytes"] = 1048576}}}`)
	out := e.json(`return alter_configs{topic = "cfg", set = {["retention.ms"] = 3600000, ["compression.type"] = "zstd"}, delete = {"segment.bytes"}}`)
	assert.Equal(t, `[{"name":"cfg","type":"topic"}]`, out)
	assert.Equal(t, map[string]string{"retention.ms": "3600000", "compression.type": "zstd"}, topicConfigs(t, e, "cfg"))

	// Incremental: configs not named keep their values. (kfake appends
	// without Kafka's de-duplication and does not split a subtracted
	// list, so each step here is one that both agree on.)
	e.run(`alter_configs({{topic = "cfg", append = {["cleanup.policy"] = "compact"}}})`)
	e.run(`alter_configs{topic = "cfg", append = {["cleanup.policy"] = {"delete"}}}`)
	got := topicConfigs(t, e, "cfg")
	assert.Equal(t, "3600000", got["retention.ms"])
	assert.Equal(t, "compact,delete", got["cleanup.policy"])
	e.run(`alter_configs{topic = "cfg", subtract = {["cleanup.policy"] = "compact"}}`)
	assert.Equal(t, "delete", topicConfigs(t, e, "cfg")["cleanup.policy"])

	// And describe_configs sees it.
	e.run(`
		local r = describe_configs{topic = "cfg"}
		assert(#r == 1 and r[1].type == "topic" and r[1].name == "cfg")
		local c = r[1].configs["retention.ms"]
		assert(c.value == "3600000" and c.source == "DYNAMIC_TOPIC_CONFIG", c.source)
		assert(c.sensitive == false and c.read_only == false)
		assert(r[1].configs["segment.bytes"].source == "DEFAULT_CONFIG", r[1].configs["segment.bytes"].source)
	`)
}

func TestAlterConfigsValidateOnlyAndDryRun(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"v"}`)
	e.run(`alter_configs({topic = "v", set = {["retention.ms"] = 1000}}, {validate_only = true})`)
	assert.Empty(t, topicConfigs(t, e, "v"))
	re := e.runErr(`alter_configs({topic = "v", append = {["retention.ms"] = 5}}, {validate_only = true})`)
	assert.Equal(t, "INVALID_REQUEST", re.Code, "append to a non-list config")
	assert.Contains(t, re.Message, "alter_configs: topic:v: INVALID_REQUEST")

	e.run(`
		kafka.dry_run(true)
		local r = alter_configs{topic = "v", set = {["retention.ms"] = 1000, ["sasl.jaas.config"] = "x password=hunter2"}, delete = {"x"}}
		assert(r[1].dry_run == true)
	`)
	assert.Empty(t, topicConfigs(t, e, "v"))
	assert.Contains(t, e.stderr.String(), "dry-run: alter_configs: topic:v: set retention.ms=1000; set sasl.jaas.config=***; delete x")
	assert.NotContains(t, e.stderr.String(), "hunter2")
}

func TestAlterConfigsBatchErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"ok-topic"}`)
	e.run(`
		local ok, err = pcall(alter_configs, {
			{topic = "missing", set = {["retention.ms"] = 1}},
			{topic = "ok-topic", set = {["retention.ms"] = 2000}},
			{broker = 99, set = {["log.retention.ms"] = 1}},
		})
		assert(not ok)
		assert(err.code == "BROKER_NOT_AVAILABLE", err.code)
		assert(#err.results == 3)
		assert(err.results[1].type == "broker" and err.results[1].name == "99")
		assert(err.results[2].name == "missing" and err.results[2].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
		assert(err.results[3].name == "ok-topic" and err.results[3].error == nil)
	`)
	assert.Equal(t, "2000", topicConfigs(t, e, "ok-topic")["retention.ms"])
}

func TestAlterConfigsRetriesRetriableErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"busy"}`)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.IncrementalAlterConfigs}, Resource: "busy", Err: kerr.RequestTimedOut, Count: 2})
	defer h.Remove()
	// kfake applies the alter and still answers REQUEST_TIMED_OUT, as a
	// real broker can: sending it again is safe.
	e.run(`alter_configs{topic = "busy", set = {["retention.ms"] = 5000}}`)
	assert.Equal(t, 2, h.Hits())
	assert.Equal(t, "5000", topicConfigs(t, e, "busy")["retention.ms"])
}

func TestConfigsBrokerAndDefault(t *testing.T) {
	e := newEnv(t)
	// A broker resource must be sent to that broker.
	var nodes []int32
	for _, n := range []int32{0, 1, 2} {
		h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.IncrementalAlterConfigs, kmsg.DescribeConfigs}, Nodes: []int32{n}, Observe: true, Count: -1,
			When: func(r kmsg.Request) bool { nodes = append(nodes, n); return true }})
		defer h.Remove()
	}
	e.run(`
		local r = describe_configs{{broker = 1}, {broker = "default"}}
		assert(#r == 2)
		assert(r[1].type == "broker" and r[1].name == "", "the default sorts first")
		assert(r[2].name == "1" and r[2].configs["broker.id"].value == "1")
		assert(r[2].configs["broker.id"].read_only == true)
		assert(r[2].configs["broker.id"].source == "STATIC_BROKER_CONFIG")
		local su = r[2].configs["super.users"]
		assert(su.sensitive == true and su.value == nil, "sensitive values are never shown")
	`)
	assert.Contains(t, nodes, int32(1))

	nodes = nil
	e.run(`alter_configs{broker = 2, set = {["log.retention.ms"] = 7200000}}`)
	assert.Equal(t, []int32{2}, nodes)
	bc, err := e.adm.DescribeBrokerConfigs(e.ctx(), 2)
	require.NoError(t, err)
	cfg, err := bc.On("2", nil)
	require.NoError(t, err)
	var v string
	for _, c := range cfg.Configs {
		if c.Key == "log.retention.ms" {
			v = c.MaybeValue()
		}
	}
	assert.Equal(t, "7200000", v)
	e.run(`
		local r = describe_configs({broker = 2}, {keys = {"log.retention.ms"}, synonyms = true})[1]
		local n = 0
		for k, c in pairs(r.configs) do n = n + 1 end
		assert(n == 1, "keys limits the answer")
		local c = r.configs["log.retention.ms"]
		assert(c.value == "7200000" and c.source == "DYNAMIC_BROKER_CONFIG")
		assert(#c.synonyms >= 1 and c.synonyms[1].source == "DEFAULT_CONFIG", c.synonyms[1].source)
	`)
	e.run(`alter_configs{broker = "default", delete = {"log.retention.ms"}}`)
	e.run(`assert(describe_configs({broker = 2}, {keys = {"log.retention.ms"}})[1].configs["log.retention.ms"].source == "DEFAULT_CONFIG")`)
}

func TestConfigsGroupClientMetricsBrokerLogger(t *testing.T) {
	e := newEnv(t)
	e.run(`
		alter_configs{group = "g1", set = {["consumer.session.timeout.ms"] = 50000}}
		local g = describe_configs{group = "g1"}[1]
		assert(g.type == "group" and g.configs["consumer.session.timeout.ms"].value == "50000")
		assert(g.configs["consumer.session.timeout.ms"].source == "DYNAMIC_GROUP_CONFIG")

		alter_configs{client_metrics = "sub1", set = {["interval.ms"] = 60000}, append = {metrics = {"org.apache.kafka.producer."}}}
		local m = describe_configs{client_metrics = "sub1"}[1]
		assert(m.configs["interval.ms"].value == "60000", m.configs["interval.ms"].value)
		assert(m.configs["metrics"].value == "org.apache.kafka.producer.", m.configs["metrics"].value)
	`)
	assert.Equal(t, "50000", rawConfigs(t, e, kmsg.ConfigResourceTypeGroupConfig, "g1")["consumer.session.timeout.ms"])
	sub := rawConfigs(t, e, kmsg.ConfigResourceTypeClientMetrics, "sub1")
	assert.Equal(t, "60000", sub["interval.ms"])
	assert.Equal(t, "org.apache.kafka.producer.", sub["metrics"])

	// kfake has no broker loggers: check the request is sent to the
	// broker with type BROKER_LOGGER, and that kfake's refusal comes back
	// per resource.
	var sent []kmsg.DescribeConfigsRequestResource
	var node int32 = -1
	e.cluster.ControlKey(int16(kmsg.DescribeConfigs), func(r kmsg.Request) (kmsg.Response, error, bool) {
		sent = append(sent, r.(*kmsg.DescribeConfigsRequest).Resources...)
		node = e.cluster.CurrentNode()
		return nil, nil, false
	})
	e.run(`
		local r = describe_configs({broker_logger = 1}, {partial = true})
		assert(r[1].type == "broker_logger" and r[1].name == "1" and r[1].error.code == "INVALID_REQUEST", r[1].error and r[1].error.code)
	`)
	assert.Equal(t, int32(1), node)
	require.Len(t, sent, 1)
	assert.Equal(t, kmsg.ConfigResourceTypeBrokerLogger, sent[0].ResourceType)
	assert.Equal(t, "1", sent[0].ResourceName)
}

func TestDescribeConfigsErrors(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"here"}`)
	e.run(`
		local ok, err = pcall(describe_configs, {{topic = "here"}, {topic = "gone"}})
		assert(not ok and err.code == "UNKNOWN_TOPIC_OR_PARTITION")
		assert(err.resource == "topic:gone", err.resource)
		assert(err.results[2].name == "here" and err.results[2].configs["retention.ms"] ~= nil)
		local r = describe_configs({{topic = "gone"}, {broker = 42}}, {partial = true})
		assert(r[1].error.code == "BROKER_NOT_AVAILABLE" and r[2].error.code == "UNKNOWN_TOPIC_OR_PARTITION")
	`)
}

func TestConfigsBadArguments(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"a"}`)
	requests := countRequests(e.cluster)
	for src, want := range map[string]string{
		`describe_configs("orders")`:                                                `describe_configs: resources: must be a resource like {topic="orders"}, or an array of them, got "orders"`,
		`describe_configs({{topic = "a"}, {topc = "b"}})`:                           `describe_configs: resource #2: unknown key "topc" (did you mean "topic"?)`,
		`describe_configs({{topic = "a", broker = 1}})`:                             `describe_configs: resource #1: must name exactly one of broker, broker_logger, client_metrics, group, topic, got 2`,
		`describe_configs{broker = "x"}`:                                            `describe_configs: resource #1: broker: must be a broker id (int32 >= 0) or "default", got "x"`,
		`describe_configs{broker = 2^31}`:                                           `describe_configs: resource #1: broker: must be a broker id (int32 >= 0) or "default", got 2147483648`,
		`describe_configs{broker_logger = "default"}`:                               `describe_configs: resource #1: broker_logger: must be a broker id between 0 and 2147483647, got "default"`,
		`describe_configs{topic = ""}`:                                              `describe_configs: resource #1: topic: must not be empty`,
		`describe_configs{topic = "bad name!"}`:                                     `describe_configs: resource #1: topic: "bad name!" has ' '`,
		`describe_configs({topic = "a"}, {synonym = true})`:                         `describe_configs: options: unknown key "synonym" (did you mean "synonyms"?)`,
		`describe_configs({topic = "a"}, {synonyms = 1})`:                           `describe_configs: options: synonyms: must be true or false, got 1`,
		`describe_configs({topic = "a"}, {keys = {1}})`:                             `describe_configs: options: keys #1: must be a non-empty string, got 1`,
		`describe_configs({topic = "a"}, {}, 3)`:                                    `describe_configs: takes at most 2 arguments`,
		`describe_configs{topic = "a", set = {x = 1}}`:                              `describe_configs: resource #1: unknown key "set"`,
		`describe_configs({})`:                                                      `describe_configs: resources: must name at least one`,
		`alter_configs{topic = "a"}`:                                                `alter_configs: resource #1: must set, delete, append or subtract at least one config`,
		`alter_configs{topic = "a", set = {x = 1}, delete = {"x"}}`:                 `alter_configs: resource #1: config "x" given in both set and delete`,
		`alter_configs{topic = "a", set = {x = function() end}}`:                    `alter_configs: resource #1: set: x: must be a string, number, boolean or array of strings, got function`,
		`alter_configs{topic = "a", set = {[""] = 1}}`:                              `alter_configs: resource #1: set: key : must not be empty`,
		`alter_configs{topic = "a", set = "x=1"}`:                                   `alter_configs: resource #1: set: must be {name = value, ...}, got "x=1"`,
		`alter_configs{topic = "a", delete = {1}}`:                                  `alter_configs: resource #1: delete #1: must be a non-empty string, got 1`,
		`alter_configs({topic = "a", set = {x = 1}}, {validate = true})`:            `alter_configs: options: unknown key "validate" (did you mean "validate_only"?)`,
		`alter_configs{{topic = "a", set = {x = 1}}, {topic = "a", set = {y = 1}}}`: `alter_configs: topic:a given twice`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
}

// The examples: config values Kafka would get wrong, and
// validate_only read one way only. Each is refused before anything is sent,
// audited or changed.
func TestAlterConfigsRefusesValuesItCannotSendExactly(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := auditlog.Open(auditPath)
	require.NoError(t, err)
	e := newEnvOn(t, c, Options{Config: engine.Config{Audit: audit}})
	e.run(`create_topics{{name = "t", configs = {["retention.ms"] = 1000}}}`)
	requests := countRequests(c)
	for src, want := range map[string]string{
		`alter_configs{topic = "t", set = {["retention.ms"] = 2^63}}`:                               `alter_configs: resource #1: set: retention.ms: is beyond 2^53`,
		`alter_configs{topic = "t", set = {["retention.ms"] = math.huge}}`:                          `alter_configs: resource #1: set: retention.ms: is beyond 2^53`,
		`alter_configs{topic = "t", set = {["retention.ms"] = -1/0}}`:                               `alter_configs: resource #1: set: retention.ms: must be a finite number, got -Inf`,
		`alter_configs{topic = "t", set = {["retention.ms"] = 0/0}}`:                                `alter_configs: resource #1: set: retention.ms: must be a finite number, got NaN`,
		`alter_configs{topic = "t", append = {["cleanup.policy"] = {"compact", 1}}}`:                `alter_configs: resource #1: append: cleanup.policy #2: must be a string, got 1`,
		`alter_configs({topic = "t", set = {["retention.ms"] = 5}}, {validate_only = 0})`:           `alter_configs: options: validate_only: must be true or false, got 0`,
		`alter_configs({topic = "t", set = {["retention.ms"] = 5}}, {validate_only = "false"})`:     `alter_configs: options: validate_only: must be true or false, got "false"`,
		`alter_configs({topic = "t", set = {["retention.ms"] = 5}}, {validate_onyl = true})`:        `alter_configs: options: unknown key "validate_onyl" (did you mean "validate_only"?)`,
		`alter_configs({topic = "t", set = {["retention.ms"] = 5}}, {partial = "yes"})`:             `alter_configs: options: partial: must be true or false, got "yes"`,
		`alter_configs({topic = "t", set = {["retention.ms"] = 5}}, {validate_only = false}, true)`: `alter_configs: takes at most 2 arguments`,
	} {
		re := e.runErr(src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.Zero(t, requests.Load(), "refused calls send nothing")
	assert.Equal(t, map[string]string{"retention.ms": "1000"}, topicConfigs(t, e, "t"), "nothing changed")
	raw, err := os.ReadFile(auditPath) // intent lines are synced before a request is sent
	require.NoError(t, err)
	assert.NotContains(t, string(raw), `"op":"alter_configs"`, "refused calls are not audited")

	// Exact values pass: 2^53 and beyond as strings, fractions, booleans.
	e.run(`alter_configs{topic = "t", set = {["retention.ms"] = 2^53, ["retention.bytes"] = "9223372036854775807", ["min.cleanable.dirty.ratio"] = 0.25, ["preallocate"] = true}}`)
	got := topicConfigs(t, e, "t")
	assert.Equal(t, "9007199254740992", got["retention.ms"])
	assert.Equal(t, "9223372036854775807", got["retention.bytes"])
	assert.Equal(t, "0.25", got["min.cleanable.dirty.ratio"])
	assert.Equal(t, "true", got["preallocate"])
}
