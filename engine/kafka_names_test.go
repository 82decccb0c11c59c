package engine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// readNames reads testdata lines "NUMBER NAME", skipping # comments.
func readNames(t *testing.T, path string) map[int]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[int]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		num, name, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		n, err := strconv.Atoi(num)
		require.NoError(t, err, line)
		out[n] = name
	}
	require.NoError(t, sc.Err())
	return out
}

// Every API key Kafka knows has Kafka's name (from the request JSON files),
// not franz-go's.
func TestAPINamesAreKafkas(t *testing.T) {
	kafka := readNames(t, "testdata/kafka_api_keys.txt")
	require.Len(t, kafka, len(apiNames))
	for k, want := range kafka {
		assert.Equal(t, want, APIName(int16(k)), "API key %d", k)
	}
	for k, want := range map[kmsg.Key]string{
		kmsg.SASLHandshake: "SaslHandshake", kmsg.SASLAuthenticate: "SaslAuthenticate",
		kmsg.InitProducerID: "InitProducerId", kmsg.DescribeACLs: "DescribeAcls", kmsg.CreateACLs: "CreateAcls",
		kmsg.AlterPartitionAssignments: "AlterPartitionReassignments", kmsg.LeaderAndISR: "LeaderAndIsr",
		kmsg.DescribeUserSCRAMCredentials: "DescribeUserScramCredentials", kmsg.AllocateProducerIDs: "AllocateProducerIds",
	} {
		assert.Equal(t, want, APIName(int16(k)))
	}
	// Keys newer than the table: franz-go's name, else Unknown<key>.
	assert.Equal(t, kmsg.NameForKey(93), APIName(93))
	assert.Equal(t, "Unknown999", APIName(999))
	assert.Equal(t, "Unknown-2", APIName(-2))
}

// Every error code has the name of Kafka's Errors enum.
func TestErrorNamesAreKafkas(t *testing.T) {
	kafka := readNames(t, "testdata/kafka_errors.txt")
	for code, want := range kafka {
		ke, ok := kerr.ErrorForCode(int16(code)).(*kerr.Error)
		require.True(t, ok, "kerr knows code %d", code)
		assert.Equal(t, want, ErrorName(ke), "error code %d", code)
		assert.Equal(t, want, AsError(ke, "").Code, "AsError of code %d", code)
	}
	assert.Equal(t, "NOT_LEADER_OR_FOLLOWER", kafkaErr(kerr.NotLeaderForPartition.Code, nil, "t[0]").Code)
}

// Config sources are named as Kafka's ConfigEntry.ConfigSource.
func TestConfigSourceNamesAreKafkas(t *testing.T) {
	for src, want := range map[kmsg.ConfigSource]string{
		kmsg.ConfigSourceDynamicTopicConfig:         "DYNAMIC_TOPIC_CONFIG",
		kmsg.ConfigSourceDynamicBrokerConfig:        "DYNAMIC_BROKER_CONFIG",
		kmsg.ConfigSourceDynamicDefaultBrokerConfig: "DYNAMIC_DEFAULT_BROKER_CONFIG",
		kmsg.ConfigSourceStaticBrokerConfig:         "STATIC_BROKER_CONFIG",
		kmsg.ConfigSourceDefaultConfig:              "DEFAULT_CONFIG",
		kmsg.ConfigSourceDynamicBrokerLoggerConfig:  "DYNAMIC_BROKER_LOGGER_CONFIG",
		kmsg.ConfigSourceClientMetricsConfig:        "DYNAMIC_CLIENT_METRICS_CONFIG",
		kmsg.ConfigSourceGroupConfig:                "DYNAMIC_GROUP_CONFIG",
		kmsg.ConfigSourceUnknown:                    "UNKNOWN",
		kmsg.ConfigSource(42):                       "UNKNOWN",
	} {
		assert.Equal(t, want, ConfigSourceName(src), "source %d", src)
	}
	assert.Len(t, ConfigSources, len(configSourceNames))
	for _, n := range ConfigSources {
		assert.Contains(t, configSourceNames, kmsgSource(t, n))
	}
	// A described config carries the name.
	d := describedConfigs(ConfigResource{ConfigGroup, "g"}, []kmsg.DescribeConfigsResponseResourceConfig{
		{Name: "consumer.session.timeout.ms", Value: kmsg.StringPtr("45000"), Source: kmsg.ConfigSourceGroupConfig,
			ConfigSynonyms: []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym{{Name: "group.consumer.session.timeout.ms", Source: kmsg.ConfigSourceDefaultConfig}}},
	}, true)
	assert.Equal(t, "DYNAMIC_GROUP_CONFIG", d.Configs["consumer.session.timeout.ms"].Source)
	assert.Equal(t, "DEFAULT_CONFIG", d.Configs["consumer.session.timeout.ms"].Synonyms[0].Source)
}

func kmsgSource(t *testing.T, name string) kmsg.ConfigSource {
	for s, n := range configSourceNames {
		if n == name {
			return s
		}
	}
	t.Fatalf("no source named %s", name)
	return 0
}

// Group states are the broker's own strings, passed through; the filter
// list names them as Kafka's GroupState enum does.
func TestGroupStatesAreKafkas(t *testing.T) {
	for _, s := range []string{"PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling", "NotReady"} {
		assert.Contains(t, GroupStates, s)
	}
}
