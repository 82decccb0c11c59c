package engine

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// onlyDynamic keeps what kafka-configs --describe (ConfigCommand) keeps for
// each resource type: the resource's own dynamic source; broker loggers whole.
func TestOnlyDynamicFollowsKafkaConfigs(t *testing.T) {
	all := map[string]ConfigEntry{}
	for _, s := range ConfigSources {
		all[s] = ConfigEntry{Source: s}
	}
	for _, tc := range []struct {
		r    ConfigResource
		want []string
	}{
		{ConfigResource{ConfigTopic, "t"}, []string{"DYNAMIC_TOPIC_CONFIG"}},
		{ConfigResource{ConfigBroker, "1"}, []string{"DYNAMIC_BROKER_CONFIG"}},
		{ConfigResource{ConfigBroker, ""}, []string{"DYNAMIC_DEFAULT_BROKER_CONFIG"}},
		{ConfigResource{ConfigGroup, "g"}, []string{"DYNAMIC_GROUP_CONFIG"}},
		{ConfigResource{ConfigClientMetrics, "m"}, []string{"DYNAMIC_CLIENT_METRICS_CONFIG"}},
		{ConfigResource{ConfigBrokerLogger, "1"}, ConfigSources},
	} {
		d := onlyDynamic(DescribedConfigs{Type: tc.r.Type, Name: tc.r.Name, Configs: all})
		assert.ElementsMatch(t, tc.want, slices.Sorted(maps.Keys(d.Configs)), tc.r.String())
	}
	assert.Len(t, all, len(ConfigSources), "the input is not changed")
}
