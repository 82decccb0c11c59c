package luaapi

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// keysFromSource asks the cluster directly which configs of a resource
// come from source: what kafka-configs --describe prints.
func keysFromSource(t *testing.T, e *env, typ kmsg.ConfigResourceType, name string, source kmsg.ConfigSource) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	rr := kmsg.NewDescribeConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = typ, name
	req.Resources = append(req.Resources, rr)
	var resp *kmsg.DescribeConfigsResponse
	if typ == kmsg.ConfigResourceTypeBroker {
		resp, err = req.RequestWith(e.ctx(), cl.Broker(1))
	} else {
		resp, err = req.RequestWith(e.ctx(), cl)
	}
	require.NoError(t, err)
	require.Len(t, resp.Resources, 1)
	var out []string
	all := 0
	for _, c := range resp.Resources[0].Configs {
		all++
		if c.Source == source {
			out = append(out, c.Name)
		}
	}
	require.Greater(t, all, len(out), "the resource has configs from other sources too")
	sort.Strings(out)
	return out
}

// luaKeys returns the sorted config names of describe_configs' first result.
func luaKeys(t *testing.T, e *env, call string) []string {
	t.Helper()
	s := e.run(`
		local out = {}
		for k, c in pairs(` + call + `[1].configs) do out[#out + 1] = k .. "|" .. c.source end
		table.sort(out)
		return table.concat(out, ",")`).String()
	var keys []string
	for _, kv := range strings.Split(s, ",") {
		if kv != "" {
			keys = append(keys, kv)
		}
	}
	return keys
}

func withSource(keys []string, source string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "|" + source
	}
	return out
}

// dynamic=true gives what kafka-configs --describe shows: the values set on
// the resource itself.
func TestDescribeConfigsDynamic(t *testing.T) {
	e := newEnv(t)
	retention, compact := "3600000", "compact"
	_, err := e.adm.CreateTopic(e.ctx(), 1, 1, map[string]*string{"retention.ms": &retention, "cleanup.policy": &compact}, "dyn")
	require.NoError(t, err)
	want := keysFromSource(t, e, kmsg.ConfigResourceTypeTopic, "dyn", kmsg.ConfigSourceDynamicTopicConfig)
	assert.Equal(t, []string{"cleanup.policy", "retention.ms"}, want)
	assert.Equal(t, withSource(want, "DYNAMIC_TOPIC_CONFIG"), luaKeys(t, e, `describe_configs({topic = "dyn"}, {dynamic = true})`))
	assert.Greater(t, len(luaKeys(t, e, `describe_configs{topic = "dyn"}`)), len(want), "without dynamic, every config")

	// A broker: its own dynamic values, not its static settings or defaults.
	week := "604800000"
	_, err = e.adm.AlterBrokerConfigs(e.ctx(), []kadm.AlterConfig{{Name: "log.retention.ms", Value: &week}}, 1)
	require.NoError(t, err)
	want = keysFromSource(t, e, kmsg.ConfigResourceTypeBroker, "1", kmsg.ConfigSourceDynamicBrokerConfig)
	assert.Contains(t, want, "log.retention.ms")
	got := luaKeys(t, e, `describe_configs({broker = 1}, {dynamic = true})`)
	assert.Equal(t, withSource(want, "DYNAMIC_BROKER_CONFIG"), got)
	assert.NotContains(t, strings.Join(got, ","), "broker.id")

	// A group: DYNAMIC_GROUP_CONFIG, with keys and synonyms still honoured.
	e.run(`alter_configs{group = "g1", set = {["consumer.session.timeout.ms"] = 50000}}`)
	want = keysFromSource(t, e, kmsg.ConfigResourceTypeGroupConfig, "g1", kmsg.ConfigSourceGroupConfig)
	assert.Equal(t, []string{"consumer.session.timeout.ms"}, want)
	assert.Equal(t, withSource(want, "DYNAMIC_GROUP_CONFIG"), luaKeys(t, e, `describe_configs({group = "g1"}, {dynamic = true, synonyms = true})`))
	assert.Empty(t, luaKeys(t, e, `describe_configs({group = "g1"}, {dynamic = true, keys = {"consumer.heartbeat.interval.ms"}})`))

	// The shape kafka-configs --describe prints, from Lua.
	assert.Equal(t, "cleanup.policy=compact retention.ms=3600000", e.run(`
		local out = {}
		for k, c in pairs(describe_configs({topic = "dyn"}, {dynamic = true})[1].configs) do out[#out + 1] = k .. "=" .. c.value end
		table.sort(out)
		return table.concat(out, " ")`).String())
}
