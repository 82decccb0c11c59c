package luaapi

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/engine"
)

func init() {
	register(
		&Func{Name: "list_config_resources", Area: "configresources",
			Needs: []engine.Need{engine.NeedAPI(kmsg.ListConfigResources, 1, "4.1")},
			Params: []Param{{Name: "types", Optional: true, Doc: "the resource types to list (every type when left out)",
				Type: List[string](Enum("topic", "broker", "broker_logger", "client_metrics", "group"))}},
			Returns: "{{type=string, name=string}...}",
			Summary: "List the resources that have configs: topics, brokers, broker loggers, client metrics, groups.",
			Doc: `types is a type or an array of types among "topic", "broker", "broker_logger", "client_metrics", "group"; none means every type. Rows are sorted by type then name; the names feed describe_configs.
Brokers before Kafka 4.1 would list only client_metrics resources (the API was ListClientMetricsResources), so on an older cluster the call fails with UNSUPPORTED_VERSION rather than return a partial list.`,
			Example: `for _, r in ipairs(list_config_resources("topic")) do print(r.type, r.name) end`,
			Run:     listConfigResources},
	)
}

func listConfigResources(c *Call) (any, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	return cl.ListConfigResources(c.Ctx(), param[[]string](c, "types"))
}
