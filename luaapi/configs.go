package luaapi

import (
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_configs", Area: "configs", Batch: true,
			Params: []Param{{Name: "resources", Type: configResources(false),
				Doc: `the resources: {topic=}, {broker=} (an id or "default"), {broker_logger=}, {group=} or {client_metrics=}`}},
			Options: []Field{
				{Name: "synonyms", Type: Bool(), Doc: "add each config's synonyms, highest precedence first"},
				{Name: "keys", Type: List[string](configName), Doc: "only these configs (a name or an array of names)"},
				{Name: "dynamic", Type: Bool(), Doc: "only the values set on the resource itself, as kafka-configs --describe shows them"},
			},
			Returns: "{{type=string, name=string, configs={[string]={value=string?, source=string, sensitive=bool, read_only=bool, synonyms={{name=string, value=string?, source=string}...}?}}, error=error?}...}",
			Summary: "Describe the configs of topics, brokers, broker loggers, groups or client-metrics subscriptions.",
			Doc: `A resource is {topic="t"}, {broker=1}, {broker="default"} (the cluster-wide dynamic broker default), {broker_logger=1}, {group="g"} or {client_metrics="name"}; resources is one resource or an array of them.
Each result has type (the resource's key: "topic", "broker", ...), name (the topic, group or subscription name; the broker id as a string, "" for the broker default) and configs keyed by config name.
source is Kafka's name for where the value comes from, as kafka-configs prints it: DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, DYNAMIC_BROKER_LOGGER_CONFIG, DYNAMIC_CLIENT_METRICS_CONFIG, DYNAMIC_GROUP_CONFIG.
dynamic=true keeps only the values set on the resource itself, what kafka-configs --describe shows without --all: a topic's DYNAMIC_TOPIC_CONFIG entries, a broker's DYNAMIC_BROKER_CONFIG, the broker default's DYNAMIC_DEFAULT_BROKER_CONFIG, a group's DYNAMIC_GROUP_CONFIG, a subscription's DYNAMIC_CLIENT_METRICS_CONFIG (broker loggers are shown whole, as kafka-configs does); defaults and static broker settings are left out.
Sensitive values (passwords, keys) are never shown: value is nil and sensitive=true. keys limits the answer to those configs; synonyms=true adds synonyms={{name=, value=, source=}...} to each config, highest precedence first (e.g. log.retention.ms behind a topic's retention.ms).
Broker and broker_logger resources are asked of that broker, as Kafka requires; a broker id not in the cluster fails with BROKER_NOT_AVAILABLE. Results are sorted by type, then name (broker ids numerically).`,
			Example: `local t = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1]
for k, c in pairs(t.configs) do print(k, c.value, c.source) end
for k, c in pairs(describe_configs({topic = "orders"}, {dynamic = true})[1].configs) do print(k .. "=" .. c.value) end
local b = describe_configs{broker = describe_cluster().brokers[1].id}[1]
local n = 0
for _ in pairs(b.configs) do n = n + 1 end
print("broker " .. b.name .. ": " .. n .. " configs")`,
			Run: describeConfigs},
		&Func{Name: "alter_configs", Area: "configs", Batch: true,
			Params: []Param{{Name: "resources", Type: configResources(true),
				Doc: "the resources (as for describe_configs), each with its changes: set, delete, append, subtract"}},
			Returns: "{{type=string, name=string, error=error?}...}",
			Summary: "Change configs incrementally: set, delete (back to default), append to or subtract from lists.",
			Doc: `A resource is {topic="t", set={k=v}, delete={"k"}, append={k=v}, subtract={k=v}}, with broker=, broker_logger=, group= or client_metrics= in place of topic= (as for describe_configs); resources is one resource or an array of them.
This is Kafka's IncrementalAlterConfigs: configs not named keep their values (unlike the legacy AlterConfigs, which reset them). Values may be strings, numbers or booleans; for list configs (cleanup.policy, leader.replication.throttled.replicas, ...) a value may also be an array of strings, sent comma-separated. append adds values not already in the list; subtract removes them.
A config may appear in only one of set, delete, append and subtract. validate_only=true (or --dry-run) asks the brokers to validate without changing anything. Values of secret-looking keys (passwords, JAAS configs, keys) are shown as *** in plans and the audit log.
Every operation is idempotent, so a retriable failure (even REQUEST_TIMED_OUT) is sent again until the deadline. If any resource fails the call raises after altering the others; err.results says which.`,
			Example: `alter_configs{topic = "orders", set = {["retention.ms"] = 86400000}, append = {["cleanup.policy"] = "compact"}}
local c = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1].configs
print(c["retention.ms"].value, c["cleanup.policy"].value)
alter_configs{topic = "orders", delete = {"retention.ms", "cleanup.policy"}}`,
			Run: alterConfigs},
	)
}

func describeConfigs(c *Call) (any, error) {
	alts := param[[]engine.ConfigAlteration](c, "resources")
	resources := make([]engine.ConfigResource, len(alts))
	for i, a := range alts {
		resources[i] = a.Resource
	}
	o := engine.DescribeConfigsOptions{Synonyms: param[bool](c, "synonyms"), Keys: param[[]string](c, "keys"),
		Dynamic: param[bool](c, "dynamic")}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeConfigs(c.Ctx(), resources, o)
}

func alterConfigs(c *Call) (any, error) {
	alts := param[[]engine.ConfigAlteration](c, "resources")
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, a := range alts {
		if !c.DryRun() {
			break
		}
		c.Plan("%s: %s", a.Resource, strings.Join(a.Ops(), "; "))
	}
	return cl.AlterConfigs(c.Ctx(), alts, engine.AlterConfigsOptions{ValidateOnly: c.ValidateOnly()})
}

// brokerOrDefault is a broker resource's name: a broker id, or "default"
// for the cluster-wide dynamic default (name "").
var brokerOrDefault = Custom(`broker id or "default"`, "0", func(r *reader, v lua.LValue, at string) (any, error) {
	if s, ok := v.(lua.LString); ok && string(s) == "default" {
		return "", nil
	}
	id, err := brokerID.read(r, v, at)
	if err != nil {
		return nil, argErr(at, `must be a broker id (int32 >= 0) or "default", got %s`, describe(v))
	}
	return strconv.Itoa(int(id.(int32))), nil
}, lua.LTNumber, lua.LTString).Like(OneOf(brokerID, Enum("default")))

// configResource's keys naming the resource, one per resource type.
var configResourceFields = []Field{
	{Name: engine.ConfigTopic, Type: topicName, Doc: "a topic"},
	{Name: engine.ConfigBroker, Type: brokerOrDefault, Doc: `a broker id, or "default" for the cluster-wide dynamic default`},
	{Name: engine.ConfigBrokerLogger, Type: brokerID, Doc: "a broker's log4j loggers"},
	{Name: engine.ConfigGroup, Type: groupID, Doc: "a group's configs"},
	{Name: engine.ConfigClientMetrics, Type: NonEmptyStr(), Doc: "a client-metrics subscription"},
}

// configChangeFields are alter_configs' changes to a resource.
var configChangeFields = []Field{
	{Name: "set", Type: configMap, Doc: "configs to set"},
	{Name: "delete", Type: List[string](configName), Doc: "configs to reset to their default"},
	{Name: "append", Type: configMap, Doc: "values to add to list configs"},
	{Name: "subtract", Type: configMap, Doc: "values to remove from list configs"},
}

// configResources reads one resource or an array of them into
// ConfigAlterations (only Resource set unless alter). Every rule that needs
// no cluster is checked here: one resource type per table, at least one
// change, no config in two operations.
func configResources(alter bool) *ListType {
	fields := configResourceFields
	doc, sample := `resource like {topic="orders"}`, `{topic = "t"}`
	if alter {
		fields = append(slices.Clone(fields), configChangeFields...)
		doc, sample = `resource like {topic="orders", set={k=v}}`, `{topic = "t", set = {["retention.ms"] = 1000}}`
	}
	rec := Record(fields...).Described(doc).Sample(sample).Then(func(rec Rec, at string) (any, error) {
		var a engine.ConfigAlteration
		var typ []string
		for _, f := range configResourceFields {
			if rec.Has(f.Name) {
				typ = append(typ, f.Name)
			}
		}
		if len(typ) != 1 {
			return nil, argErr(at, "must name exactly one of %s, got %d", strings.Join(engine.ConfigTypes, ", "), len(typ))
		}
		a.Resource.Type = typ[0]
		switch v := rec[typ[0]].(type) {
		case int32: // broker_logger
			a.Resource.Name = strconv.Itoa(int(v))
		case string:
			a.Resource.Name = v
		}
		if !alter {
			return a, nil
		}
		a.Set, a.Delete = get[map[string]string](rec, "set"), get[[]string](rec, "delete")
		a.Append, a.Subtract = get[map[string]string](rec, "append"), get[map[string]string](rec, "subtract")
		if len(a.Set)+len(a.Delete)+len(a.Append)+len(a.Subtract) == 0 {
			return nil, argErr(at, "must set, delete, append or subtract at least one config: nothing to change")
		}
		if err := a.Check(); err != nil {
			return nil, argErr(at, "%s", err.Message)
		}
		return a, nil
	})
	return List[engine.ConfigAlteration](rec).Items("resource").NonEmpty()
}
