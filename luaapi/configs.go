package luaapi

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "describe_configs", Area: "configs",
			Args:    `(resources[, {synonyms=, keys={...}, partial=}])`,
			Returns: "{{type=, name=, configs={[key]={value=, source=, sensitive=, read_only=}}}...}",
			Summary: "Describe the configs of topics, brokers, broker loggers, groups or client-metrics subscriptions.",
			Doc: `A resource is {topic="t"}, {broker=1}, {broker="default"} (the cluster-wide dynamic broker default), {broker_logger=1}, {group="g"} or {client_metrics="name"}; resources is one resource or an array of them.
Each result has type (the resource's key: "topic", "broker", ...), name (the topic, group or subscription name; the broker id as a string, "" for the broker default) and configs keyed by config name.
source is Kafka's name for where the value comes from: DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, DYNAMIC_BROKER_LOGGER_CONFIG, CLIENT_METRICS_CONFIG, GROUP_CONFIG.
Sensitive values (passwords, keys) are never shown: value is nil and sensitive=true. keys limits the answer to those configs; synonyms=true adds synonyms={{name=, value=, source=}...} to each config, highest precedence first (e.g. log.retention.ms behind a topic's retention.ms).
Broker and broker_logger resources are asked of that broker, as Kafka requires; a broker id not in the cluster fails with BROKER_NOT_AVAILABLE. Results are sorted by type, then name (broker ids numerically).`,
			Example: `local t = describe_configs({topic = "orders"}, {keys = {"retention.ms", "cleanup.policy"}})[1]
for k, c in pairs(t.configs) do print(k, c.value, c.source) end
local b = describe_configs{broker = describe_cluster().brokers[1].id}[1]
local n = 0
for _ in pairs(b.configs) do n = n + 1 end
print("broker " .. b.name .. ": " .. n .. " configs")`,
			Run: describeConfigs},
		&Func{Name: "alter_configs", Area: "configs", Mutating: true,
			Args:    `(resources[, {validate_only=, partial=}])`,
			Returns: "{{type=, name=, error=}...}",
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

var configTypeKeys = engine.ConfigTypes

func describeConfigs(c *Call) (any, error) {
	alts, err := configResources(c.Arg(1), false)
	if err != nil {
		return nil, err
	}
	f, err := c.Options(2, "synonyms", "keys")
	if err != nil {
		return nil, err
	}
	o := engine.DescribeConfigsOptions{Synonyms: f.boolean("synonyms"), Keys: f.strings("keys")}
	if f.err != nil {
		return nil, f.err
	}
	resources := make([]engine.ConfigResource, len(alts))
	for i, a := range alts {
		resources[i] = a.Resource
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.DescribeConfigs(c.Ctx(), resources, o)
}

func alterConfigs(c *Call) (any, error) {
	alts, err := configResources(c.Arg(1), true)
	if err != nil {
		return nil, err
	}
	f, err := c.Options(2, "validate_only")
	if err != nil {
		return nil, err
	}
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	for _, a := range alts {
		c.Plan("%s: %s", a.Resource, strings.Join(a.Ops(), "; "))
	}
	return cl.AlterConfigs(c.Ctx(), alts, engine.AlterConfigsOptions{ValidateOnly: f.boolean("validate_only") || c.DryRun()})
}

// configResources reads one resource table or an array of them. With
// alter, the tables also carry set/delete/append/subtract.
func configResources(v lua.LValue, alter bool) ([]engine.ConfigAlteration, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, argErr("resources", `must be a resource like {topic="orders"} or an array of them, got %s`, describe(v))
	}
	var list []lua.LValue
	if isResourceTable(t) {
		list = []lua.LValue{t}
	} else {
		if err := onlyArray(t, "resources"); err != nil {
			return nil, argErr("resources", `must be a resource like {topic="orders"} or an array of them (keys: %s)`, strings.Join(configTypeKeys, ", "))
		}
		for i := 1; i <= t.Len(); i++ {
			list = append(list, t.RawGetInt(i))
		}
	}
	if len(list) == 0 {
		return nil, argErr("resources", "must name at least one resource")
	}
	out := make([]engine.ConfigAlteration, 0, len(list))
	for i, item := range list {
		a, err := configResource(item, fmt.Sprintf("resource #%d", i+1), alter)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func isResourceTable(t *lua.LTable) bool {
	for _, k := range append(configTypeKeys, "set", "delete", "append", "subtract") {
		if t.RawGetString(k) != lua.LNil {
			return true
		}
	}
	return false
}

func configResource(v lua.LValue, where string, alter bool) (engine.ConfigAlteration, error) {
	allowed := configTypeKeys
	if alter {
		allowed = append(allowed[:len(allowed):len(allowed)], "set", "delete", "append", "subtract")
	}
	f := newFields(v, where, allowed...)
	if f.err != nil {
		return engine.ConfigAlteration{}, f.err
	}
	var a engine.ConfigAlteration
	var typ []string
	for _, k := range configTypeKeys {
		if f.has(k) {
			typ = append(typ, k)
		}
	}
	if len(typ) != 1 {
		return a, argErr(where, "must name exactly one of %s, got %d", strings.Join(configTypeKeys, ", "), len(typ))
	}
	a.Resource.Type = typ[0]
	switch typ[0] {
	case engine.ConfigBroker, engine.ConfigBrokerLogger:
		val := f.get(typ[0])
		if s, ok := val.(lua.LString); ok && s == "default" && typ[0] == engine.ConfigBroker {
			break // the cluster-wide default: name ""
		}
		id, ok := toInt(val)
		if !ok || id < 0 || id > 1<<31-1 {
			if typ[0] == engine.ConfigBroker {
				return a, argErr(where, `broker must be a broker id or "default", got %s`, describe(val))
			}
			return a, argErr(where, "broker_logger must be a broker id, got %s", describe(val))
		}
		a.Resource.Name = fmt.Sprint(id)
	default:
		a.Resource.Name = f.str(typ[0], true)
		if f.err == nil && a.Resource.Name == "" {
			f.fail(typ[0], "must not be empty")
		}
	}
	if alter {
		a.Set = f.strMap("set")
		a.Delete = f.strings("delete")
		a.Append = f.strMap("append")
		a.Subtract = f.strMap("subtract")
		if f.err == nil && len(a.Set)+len(a.Delete)+len(a.Append)+len(a.Subtract) == 0 {
			f.fail("set", "(or delete, append, subtract) is required: nothing to change")
		}
	}
	if f.err != nil {
		return a, f.err
	}
	if alter {
		// The engine checks the rest (a key in two operations, ...).
		if err := a.Check(); err != nil {
			return a, argErr(where, "%s", err.Message)
		}
	}
	return a, nil
}
