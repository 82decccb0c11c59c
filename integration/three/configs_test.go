package three

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

type configEntry struct {
	Value     *string `json:"value"`
	Source    string  `json:"source"`
	Sensitive bool    `json:"sensitive"`
	ReadOnly  bool    `json:"read_only"`
	Synonyms  []struct {
		Name   string  `json:"name"`
		Value  *string `json:"value"`
		Source string  `json:"source"`
	} `json:"synonyms"`
}

type configResource struct {
	Type    string                 `json:"type"`
	Name    string                 `json:"name"`
	Configs map[string]configEntry `json:"configs"`
}

func describeBroker(t *testing.T, e *env, broker string, keys ...string) configResource {
	t.Helper()
	opts := "{synonyms = true}"
	if len(keys) > 0 {
		opts = "{synonyms = true, keys = {"
		for _, k := range keys {
			opts += fmt.Sprintf("%q,", k)
		}
		opts += "}}"
	}
	var res []configResource
	e.decode(fmt.Sprintf(`return describe_configs({broker = %s}, %s)`, broker, opts), &res)
	require.Len(t, res, 1)
	return res[0]
}

func val(c configEntry) string { return deref(c.Value) }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// describe_configs on a real broker returns its full config set with
// sources; alter_configs on one broker and on the cluster default shows up
// as DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG.
func TestBrokerConfigs(t *testing.T) {
	e := newEnv(t)
	b := describeBroker(t, e, "2")
	assert.Equal(t, "broker", b.Type)
	assert.Equal(t, "2", b.Name)
	assert.Greater(t, len(b.Configs), 100, "a real broker describes all its configs")
	sources := map[string]int{}
	for _, c := range b.Configs {
		sources[c.Source]++
	}
	t.Logf("broker 2: %d configs by source: %v", len(b.Configs), sources)
	assert.Greater(t, sources["DEFAULT_CONFIG"], 100)
	assert.Greater(t, sources["STATIC_BROKER_CONFIG"], 10)

	// A cluster formatted with eligible leader replicas (KIP-966; the
	// feature is finalized at format time from Kafka 4.1 on) has the
	// static min.insync.replicas written as the cluster-wide dynamic
	// default; an older one (3.9) has the static value only.
	var elr bool
	e.decode(`for _, f in ipairs(describe_features()) do
		if f.feature == "eligible.leader.replicas.version" then return f.finalized_level > 0 end
	end
	return false`, &elr)
	minISRSource := "STATIC_BROKER_CONFIG"
	if elr {
		minISRSource = "DYNAMIC_DEFAULT_BROKER_CONFIG"
	}
	for key, want := range map[string][2]string{
		"node.id":                    {"2", "STATIC_BROKER_CONFIG"},
		"min.insync.replicas":        {"2", minISRSource},
		"log.dirs":                   {"", "STATIC_BROKER_CONFIG"},
		"default.replication.factor": {"3", "STATIC_BROKER_CONFIG"},
		"broker.session.timeout.ms":  {"4000", "STATIC_BROKER_CONFIG"},
		"auto.create.topics.enable":  {"false", "STATIC_BROKER_CONFIG"},
		"num.network.threads":        {"3", "DEFAULT_CONFIG"},
		"log.retention.hours":        {"168", "DEFAULT_CONFIG"},
		"message.max.bytes":          {"1048588", "DEFAULT_CONFIG"},
	} {
		c, ok := b.Configs[key]
		if assert.True(t, ok, key) {
			if want[0] != "" {
				assert.Equal(t, want[0], val(c), key)
			}
			assert.Equal(t, want[1], c.Source, key)
		}
	}
	// Synonyms, highest precedence first.
	var syns []string
	for _, s := range b.Configs["min.insync.replicas"].Synonyms {
		syns = append(syns, s.Name+"="+deref(s.Value)+" "+s.Source)
	}
	wantSyns := []string{"min.insync.replicas=2 STATIC_BROKER_CONFIG", "min.insync.replicas=1 DEFAULT_CONFIG"}
	if elr {
		wantSyns = append([]string{"min.insync.replicas=2 DYNAMIC_DEFAULT_BROKER_CONFIG"}, wantSyns...)
	}
	assert.Equal(t, wantSyns, syns)
	assert.True(t, b.Configs["node.id"].ReadOnly)
	assert.False(t, b.Configs["message.max.bytes"].ReadOnly, "message.max.bytes is a dynamic config")

	// The cluster-wide default resource has only dynamic defaults: so far
	// only the min.insync.replicas the controller wrote (none without ELR).
	d := describeBroker(t, e, `"default"`)
	assert.Equal(t, "", d.Name)
	if elr {
		assert.Equal(t, "2", val(d.Configs["min.insync.replicas"]))
	} else {
		assert.NotContains(t, d.Configs, "min.insync.replicas")
	}
	for k, c := range d.Configs {
		assert.Equal(t, "DYNAMIC_DEFAULT_BROKER_CONFIG", c.Source, k)
	}

	// Alter broker 2 and the cluster default.
	t.Cleanup(func() {
		e.run(`alter_configs{{broker = 2, delete = {"log.cleaner.backoff.ms"}},
			{broker = "default", delete = {"message.max.bytes"}}}`)
	})
	e.run(`return alter_configs{{broker = 2, set = {["log.cleaner.backoff.ms"] = 16000}},
		{broker = "default", set = {["message.max.bytes"] = 2000000}}}`)

	// A broker applies dynamic configs when it reads them from the metadata
	// log, so the describe may see the old value for a moment: poll.
	var b1, b2 configResource
	kafkatest.WaitFor(t, "dynamic configs visible", time.Minute, func() (bool, string) {
		b1 = describeBroker(t, e, "1", "message.max.bytes", "log.cleaner.backoff.ms")
		b2 = describeBroker(t, e, "2", "message.max.bytes", "log.cleaner.backoff.ms")
		s := fmt.Sprintf("b1 %s/%s %s/%s; b2 %s/%s %s/%s",
			val(b1.Configs["message.max.bytes"]), b1.Configs["message.max.bytes"].Source,
			val(b1.Configs["log.cleaner.backoff.ms"]), b1.Configs["log.cleaner.backoff.ms"].Source,
			val(b2.Configs["message.max.bytes"]), b2.Configs["message.max.bytes"].Source,
			val(b2.Configs["log.cleaner.backoff.ms"]), b2.Configs["log.cleaner.backoff.ms"].Source)
		return val(b1.Configs["message.max.bytes"]) == "2000000" && val(b2.Configs["message.max.bytes"]) == "2000000" &&
			val(b2.Configs["log.cleaner.backoff.ms"]) == "16000", s
	})
	assert.Equal(t, "DYNAMIC_DEFAULT_BROKER_CONFIG", b1.Configs["message.max.bytes"].Source)
	assert.Equal(t, "DYNAMIC_DEFAULT_BROKER_CONFIG", b2.Configs["message.max.bytes"].Source)
	assert.Equal(t, "DYNAMIC_BROKER_CONFIG", b2.Configs["log.cleaner.backoff.ms"].Source)
	assert.Equal(t, "DEFAULT_CONFIG", b1.Configs["log.cleaner.backoff.ms"].Source, "only broker 2 was altered")
	syn := b2.Configs["message.max.bytes"].Synonyms
	require.Len(t, syn, 2)
	assert.Equal(t, "DYNAMIC_DEFAULT_BROKER_CONFIG", syn[0].Source)
	assert.Equal(t, "DEFAULT_CONFIG", syn[1].Source)
	// The cluster default is described by whichever broker is asked, maybe
	// one (broker 3) not polled above: poll.
	kafkatest.WaitFor(t, "the cluster default seen", time.Minute, func() (bool, string) {
		d = describeBroker(t, e, `"default"`, "message.max.bytes")
		c := d.Configs["message.max.bytes"]
		return val(c) == "2000000" && c.Source == "DYNAMIC_DEFAULT_BROKER_CONFIG", val(c) + " " + c.Source
	})

	// A separate client sees the same.
	adm := admin(t)
	rc, err := adm.DescribeBrokerConfigs(ctxFor(t, time.Minute), 2)
	require.NoError(t, err)
	r, err := rc.On("2", nil)
	require.NoError(t, err)
	got := map[string]string{}
	for _, c := range r.Configs {
		if c.Key == "message.max.bytes" || c.Key == "log.cleaner.backoff.ms" {
			got[c.Key] = c.MaybeValue() + " " + c.Source.String()
		}
	}
	assert.Equal(t, map[string]string{
		"message.max.bytes":      "2000000 DYNAMIC_DEFAULT_BROKER_CONFIG",
		"log.cleaner.backoff.ms": "16000 DYNAMIC_BROKER_CONFIG",
	}, got)

	// Deleting goes back to the static/default value.
	e.run(`alter_configs{{broker = 2, delete = {"log.cleaner.backoff.ms"}},
		{broker = "default", delete = {"message.max.bytes"}}}`)
	kafkatest.WaitFor(t, "dynamic configs removed", time.Minute, func() (bool, string) {
		b2 = describeBroker(t, e, "2", "message.max.bytes", "log.cleaner.backoff.ms")
		s := fmt.Sprintf("%s/%s %s/%s", val(b2.Configs["message.max.bytes"]), b2.Configs["message.max.bytes"].Source,
			val(b2.Configs["log.cleaner.backoff.ms"]), b2.Configs["log.cleaner.backoff.ms"].Source)
		return b2.Configs["message.max.bytes"].Source == "DEFAULT_CONFIG" &&
			b2.Configs["log.cleaner.backoff.ms"].Source == "DEFAULT_CONFIG", s
	})

	// Real Kafka refuses a static (read-only) broker config.
	re := e.RunErr(`alter_configs{broker = 1, set = {["node.id"] = 7}}`)
	assert.Equal(t, "INVALID_REQUEST", re.Code, re.Message)
	re = e.RunErr(`describe_configs{broker = 99}`)
	assert.Equal(t, "BROKER_NOT_AVAILABLE", re.Code, re.Message)
	// validate_only changes nothing.
	e.run(`alter_configs({broker = 1, set = {["log.cleaner.backoff.ms"] = 17000}}, {validate_only = true})`)
	b1 = describeBroker(t, e, "1", "log.cleaner.backoff.ms")
	assert.Equal(t, "DEFAULT_CONFIG", b1.Configs["log.cleaner.backoff.ms"].Source)
}

// The topic config names completion offers when the cluster cannot be
// asked (engine.TopicConfigNames) are the ones a real broker lists.
func TestTopicConfigNamesAreKafkas(t *testing.T) {
	e := newEnv(t)
	e.run(`create_topics({"it3-config-names"}, {if_not_exists = true})`)
	// Every broker must know the new topic before its configs are asked
	// (the broker asked may not host it yet: UNKNOWN_TOPIC_OR_PARTITION).
	waitWhole(t, "it3-config-names")
	var res []configResource
	e.decode(`return describe_configs{topic = "it3-config-names"}`, &res)
	require.Len(t, res, 1)
	var names []string
	for n := range res[0].Configs {
		names = append(names, n)
	}
	assert.ElementsMatch(t, engine.TopicConfigNames, names)
}
