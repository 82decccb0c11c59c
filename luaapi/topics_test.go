package luaapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestCreateTopicsCreatesWithPartitionsAndConfigs(t *testing.T) {
	e := newEnv(t)
	out := e.json(`return create_topics({
		{name = "orders", partitions = 6, replication_factor = 3, configs = {["cleanup.policy"] = "compact", ["retention.ms"] = 3600000}},
		"plain",
	})`)
	assert.Contains(t, out, `"name":"orders"`)
	assert.Contains(t, out, `"partitions":6`)

	td := e.topics()
	require.Contains(t, td, "orders")
	assert.Len(t, td["orders"].Partitions, 6)
	assert.Len(t, td["orders"].Partitions[0].Replicas, 3)
	require.Contains(t, td, "plain")

	rc, err := e.adm.DescribeTopicConfigs(e.ctx(), "orders")
	require.NoError(t, err)
	cfg, err := rc.On("orders", nil)
	require.NoError(t, err)
	got := map[string]string{}
	for _, c := range cfg.Configs {
		got[c.Key] = c.MaybeValue()
	}
	assert.Equal(t, "compact", got["cleanup.policy"])
	assert.Equal(t, "3600000", got["retention.ms"])
}

func TestCreateTopicsDuplicateRaisesWithEveryResult(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics("dup")`)
	e.run(`
		local ok, err = pcall(create_topics, {"aaa", "dup", "zzz"})
		assert(not ok)
		assert(err.code == "TOPIC_ALREADY_EXISTS", err.code)
		assert(err.op == "create_topics")
		assert(err.resource == "dup", tostring(err.resource))
		assert(#err.results == 3)
		assert(err.results[1].name == "aaa" and err.results[1].error == nil)
		assert(err.results[2].error.code == "TOPIC_ALREADY_EXISTS")
		assert(err.results[3].name == "zzz" and err.results[3].error == nil)
		local s = tostring(err)
		assert(s:find("^create_topics: dup: TOPIC_ALREADY_EXISTS"), s)
		assert(s:find("applied: aaa, zzz"), s)
	`)
	td := e.topics()
	assert.Contains(t, td, "aaa")
	assert.Contains(t, td, "zzz")
}

func TestCreateTopicsIfNotExistsAndPartial(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "x", partitions = 2}}`)
	assert.Equal(t, true, e.run(`return create_topics({"x"}, {if_not_exists = true})[1].existed`) == lTrue())
	out := e.json(`return create_topics({"x", "y"}, {partial = true})`)
	assert.Contains(t, out, `"code":"TOPIC_ALREADY_EXISTS"`)
	assert.Contains(t, e.topics(), "y")
}

func TestCreateTopicsBadArguments(t *testing.T) {
	e := newEnv(t)
	for src, want := range map[string]string{
		`create_topics({"a", {name = "b", partitions = "x"}})`: `create_topics: spec #2: partitions: must be a partition count between 1 and 2147483647, got "x"`,
		`create_topics(42)`:                                                  `create_topics: specs: must be a topic name or {name=, [partitions=], [replication_factor=], [configs=], [assignment=]}, or an array of them, got 42`,
		`create_topics({{name = "a", bogus = 1}})`:                           `create_topics: spec #1: unknown key "bogus"`,
		`create_topics({"a"}, {if_not_exist = true})`:                        `create_topics: options: unknown key "if_not_exist" (did you mean "if_not_exists"?)`,
		`create_topics({{partitions = 3}})`:                                  `create_topics: spec #1: name: is required`,
		`create_topics({{name = "a", partitions = 2^32 + 2}})`:               `create_topics: spec #1: partitions: must be a partition count between 1 and 2147483647, got 4294967298`,
		`create_topics({{name = "a", replication_factor = 40000}})`:          `create_topics: spec #1: replication_factor: must be a replication factor between 1 and 32767, got 40000`,
		`create_topics({{name = "a", configs = {["retention.ms"] = 2^63}}})`: `create_topics: spec #1: configs: retention.ms: is beyond 2^53`,
		`create_topics({{name = "a", configs = {["retention.ms"] = 0/0}}})`:  `create_topics: spec #1: configs: retention.ms: must be a finite number, got NaN`,
		`create_topics({"a"}, {validate_only = "yes"})`:                      `create_topics: options: validate_only: must be true or false, got "yes"`,
		`create_topics({"a"}, {if_not_exists = 1})`:                          `create_topics: options: if_not_exists: must be true or false, got 1`,
		`create_topics({"a"}, {}, 3)`:                                        `create_topics: takes at most 2 arguments`,
		`create_topics({"bad name!"})`:                                       `create_topics: spec #1: "bad name!" has ' '`,
		`local t = {} t.a = t create_topics({{name = "a", configs = t}})`:    `is a cyclic table`,
		`create_partitions({a = 2^32 + 2})`:                                  `create_partitions: totals: a: must be a partition count between 1 and 2147483647`,
	} {
		re := e.runErr(src)
		assert.Equal(t, KindScript, re.Kind, src)
		assert.Equal(t, "INVALID_ARGUMENT", re.Code, src)
		assert.Contains(t, re.Message, want, src)
	}
	assert.NotContains(t, e.topics(), "a", "nothing is created when arguments are bad")
}

func TestCreateTopicsWithAssignment(t *testing.T) {
	e := newEnv(t)
	// kfake honours the assignment's shape but places replicas itself, so
	// the request is checked here and the placement in the real-Kafka suite.
	var sent []kmsg.CreateTopicsRequestTopicReplicaAssignment
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Observe: true, Count: -1, When: func(r kmsg.Request) bool {
		sent = r.(*kmsg.CreateTopicsRequest).Topics[0].ReplicaAssignment
		return true
	}})
	defer h.Remove()
	e.run(`create_topics{{name = "placed", assignment = {[0] = {0, 1}, [1] = {1, 2}}}}`)
	td := e.topics()
	require.Len(t, td["placed"].Partitions, 2)
	assert.Len(t, td["placed"].Partitions[1].Replicas, 2)
	require.Len(t, sent, 2)
	assert.Equal(t, int32(1), sent[1].Partition)
	assert.Equal(t, []int32{1, 2}, sent[1].Replicas)
}

func TestCreateTopicsRetriesNotController(t *testing.T) {
	e := newEnv(t)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Err: kerr.NotController, Count: 3})
	defer h.Remove()
	e.run(`create_topics{{name = "after-faults", partitions = 3}}`)
	assert.Equal(t, 3, h.Hits())
	assert.Len(t, e.topics()["after-faults"].Partitions, 3)
}

func TestCreateTopicsTimedOutLooksBeforeRetrying(t *testing.T) {
	e := newEnv(t)
	// kfake applies the create and still answers REQUEST_TIMED_OUT, as a
	// real broker can: the engine must see the topic and report success.
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	out := e.json(`return create_topics{{name = "maybe", partitions = 2}}`)
	assert.NotContains(t, out, "error")
	assert.Contains(t, out, `"partitions":2`)
	assert.Len(t, e.topics()["maybe"].Partitions, 2)
}

func TestCreateTopicsPersistentPolicyViolation(t *testing.T) {
	e := newEnv(t)
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "bad", Err: kerr.PolicyViolation, Count: -1})
	defer h.Remove()
	re := e.runErr(`create_topics{"bad", "good"}`)
	assert.Equal(t, KindKafka, re.Kind)
	assert.Equal(t, "POLICY_VIOLATION", re.Code)
	assert.Contains(t, re.Message, "create_topics: bad: POLICY_VIOLATION")
	assert.Contains(t, e.topics(), "good")
}

func TestListAndDescribeTopics(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "b-topic", partitions = 2}, {name = "a-topic", partitions = 1}}`)
	out := e.json(`return list_topics()`)
	assert.Regexp(t, `^\[\{"id":"[^"]+","internal":false,"name":"a-topic","partitions":1,"replication_factor":\d\},.*"name":"b-topic"`, out)
	assert.Equal(t, `[]`, e.json(`return list_topics{match = "^nope$"}`))
	assert.Contains(t, e.json(`return list_topics{match = "^b-"}`), "b-topic")

	d := e.json(`return describe_topics("b-topic")`)
	assert.Contains(t, d, `"partition":1`)
	assert.Contains(t, d, `"isr":[`)
	e.run(`
		local t = describe_topics{"b-topic"}[1]
		assert(#t.partitions == 2 and t.partitions[1].partition == 0)
		assert(t.partitions[1].leader >= 0)
	`)
	re := e.runErr(`describe_topics{"b-topic", "missing"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	assert.Contains(t, re.Message, "missing")
}

func TestDeleteTopics(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{"gone", "kept"}`)
	e.run(`delete_topics("gone")`)
	assert.NotContains(t, e.topics(), "gone")
	assert.Contains(t, e.topics(), "kept")
	re := e.runErr(`delete_topics{"gone"}`)
	assert.Equal(t, "UNKNOWN_TOPIC_OR_PARTITION", re.Code)
	e.run(`assert(delete_topics({"gone"}, {if_exists = true})[1].missing == true)`)
}

func TestCreatePartitions(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "grow", partitions = 2}}`)
	e.run(`local r = create_partitions{grow = 5}; assert(r[1].partitions == 5)`)
	assert.Len(t, e.topics()["grow"].Partitions, 5)
	re := e.runErr(`create_partitions{grow = "many"}`)
	assert.Contains(t, re.Message, `create_partitions: totals: grow: must be a partition count between 1 and 2147483647, got "many"`)
	re = e.runErr(`create_partitions{grow = 3}`)
	assert.Equal(t, "INVALID_PARTITIONS", re.Code)
}

func TestDryRunChangesNothing(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics{{name = "keep-me", partitions = 1}}`)
	e.run(`
		kafka.dry_run(true)
		local r = create_topics{{name = "planned", partitions = 3}}
		assert(r[1].dry_run == true)
		delete_topics("keep-me")
		create_partitions{["keep-me"] = 9}
	`)
	td := e.topics()
	assert.NotContains(t, td, "planned")
	assert.Contains(t, td, "keep-me")
	assert.Len(t, td["keep-me"].Partitions, 1)
	assert.Contains(t, e.stderr.String(), "dry-run: create_topics: create topic planned")
	assert.Contains(t, e.stderr.String(), "dry-run: delete_topics: delete topic keep-me")
}

func TestClientMethodsAndAliases(t *testing.T) {
	e := newEnv(t)
	e.run(`
		local c = kafka.connect{brokers = kafka.default:brokers()}
		c:create_topics{"via-method"}
		assert(#c:list_topics{match = "via"} == 1)
		assert(#c.list_topics{match = "via"} == 1)
		assert(require("kafka") == kafka)
		c:close()
	`)
	assert.Contains(t, e.topics(), "via-method")
}

// A principal with CREATE but not DESCRIBE is refused the before-state
// (Metadata answers TOPIC_AUTHORIZATION_FAILED): the create is still sent
// and decided by Kafka's answer; after a timed-out create the outcome stays
// unknown instead of being guessed, since neither the state before nor the
// state after can be read.
func TestCreateTopicsWithoutDescribe(t *testing.T) {
	e := newEnv(t)
	var hide []*kfake.FaultHandle
	for _, name := range []string{"hidden", "hidden-slow"} {
		hide = append(hide, e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: name, Err: kerr.TopicAuthorizationFailed, Count: -1}))
	}
	out := e.json(`return create_topics{{name = "hidden", partitions = 2}}`)
	assert.NotContains(t, out, `"error":{`)
	assert.Contains(t, out, `"partitions":2`)
	re := e.runErr(`create_topics{{name = "hidden", partitions = 2}}`)
	assert.Equal(t, "TOPIC_ALREADY_EXISTS", re.Code, "Kafka's first answer decides: it was there")
	e.run(`local r = create_topics({{name = "hidden", partitions = 2}}, {if_not_exists = true}); assert(r[1].existed == true)`)

	// kfake applies the create and answers REQUEST_TIMED_OUT: the retry
	// hears TOPIC_ALREADY_EXISTS and nothing can say whose topic it is.
	h := e.cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "hidden-slow", Err: kerr.RequestTimedOut, Count: 1})
	defer h.Remove()
	re = e.runErr(`create_topics{{name = "hidden-slow", partitions = 2}}`)
	assert.Equal(t, "REQUEST_TIMED_OUT", re.Code)
	assert.Contains(t, re.Message, "whether it existed before this call cannot be told")
	assert.Contains(t, re.Message, "TOPIC_AUTHORIZATION_FAILED")
	// The checking client is not hidden from: both topics are there.
	for _, h := range hide {
		h.Remove()
	}
	assert.Len(t, e.topics()["hidden"].Partitions, 2)
	assert.Len(t, e.topics()["hidden-slow"].Partitions, 2, "kfake did create it")
}
