package engine

import (
	"maps"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// dynamicSource is the config source kafka-configs --describe (without
// --all) keeps for a resource: the values set on that resource itself. ""
// keeps every config (broker loggers, which Kafka's tool shows whole).
func dynamicSource(r ConfigResource) string {
	switch r.Type {
	case ConfigTopic:
		return ConfigSourceName(kmsg.ConfigSourceDynamicTopicConfig)
	case ConfigBroker:
		if r.Name == "" {
			return ConfigSourceName(kmsg.ConfigSourceDynamicDefaultBrokerConfig)
		}
		return ConfigSourceName(kmsg.ConfigSourceDynamicBrokerConfig)
	case ConfigGroup:
		return ConfigSourceName(kmsg.ConfigSourceGroupConfig)
	case ConfigClientMetrics:
		return ConfigSourceName(kmsg.ConfigSourceClientMetricsConfig)
	}
	return ""
}

// onlyDynamic keeps d's configs that kafka-configs --describe shows.
func onlyDynamic(d DescribedConfigs) DescribedConfigs {
	src := dynamicSource(ConfigResource{d.Type, d.Name})
	if src == "" {
		return d
	}
	d.Configs = maps.Clone(d.Configs)
	maps.DeleteFunc(d.Configs, func(_ string, e ConfigEntry) bool { return e.Source != src })
	return d
}
