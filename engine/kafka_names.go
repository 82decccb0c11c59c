package engine

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Names as Kafka's own tools print them. franz-go's generated names differ
// in places (kmsg.NameForKey says SASLHandshake, InitProducerID,
// AlterPartitionAssignments; kerr says NOT_LEADER_FOR_PARTITION; kmsg's
// ConfigSource says GROUP_CONFIG): an operator comparing kadmin-lua's output
// with kafka-broker-api-versions, kafka-configs or a broker log must see one
// vocabulary. names_test.go pins every mapping.

// apiNames are the request names of Kafka's ApiKeys enum (the "name" of
// clients/src/main/resources/common/message/*Request.json without
// "Request"), by API key.
var apiNames = [...]string{
	"Produce", "Fetch", "ListOffsets", "Metadata", "LeaderAndIsr", "StopReplica", "UpdateMetadata",
	"ControlledShutdown", "OffsetCommit", "OffsetFetch", // 0-9
	"FindCoordinator", "JoinGroup", "Heartbeat", "LeaveGroup", "SyncGroup", "DescribeGroups", "ListGroups",
	"SaslHandshake", "ApiVersions", "CreateTopics", // 10-19
	"DeleteTopics", "DeleteRecords", "InitProducerId", "OffsetForLeaderEpoch", "AddPartitionsToTxn",
	"AddOffsetsToTxn", "EndTxn", "WriteTxnMarkers", "TxnOffsetCommit", "DescribeAcls", // 20-29
	"CreateAcls", "DeleteAcls", "DescribeConfigs", "AlterConfigs", "AlterReplicaLogDirs", "DescribeLogDirs",
	"SaslAuthenticate", "CreatePartitions", "CreateDelegationToken", "RenewDelegationToken", // 30-39
	"ExpireDelegationToken", "DescribeDelegationToken", "DeleteGroups", "ElectLeaders", "IncrementalAlterConfigs",
	"AlterPartitionReassignments", "ListPartitionReassignments", "OffsetDelete", "DescribeClientQuotas",
	"AlterClientQuotas", // 40-49
	"DescribeUserScramCredentials", "AlterUserScramCredentials", "Vote", "BeginQuorumEpoch", "EndQuorumEpoch",
	"DescribeQuorum", "AlterPartition", "UpdateFeatures", "Envelope", "FetchSnapshot", // 50-59
	"DescribeCluster", "DescribeProducers", "BrokerRegistration", "BrokerHeartbeat", "UnregisterBroker",
	"DescribeTransactions", "ListTransactions", "AllocateProducerIds", "ConsumerGroupHeartbeat",
	"ConsumerGroupDescribe", // 60-69
	"ControllerRegistration", "GetTelemetrySubscriptions", "PushTelemetry", "AssignReplicasToDirs",
	"ListConfigResources",                                                                                    // 74: ListClientMetricsResources before Kafka 4.1 (KIP-1142)
	"DescribeTopicPartitions", "ShareGroupHeartbeat", "ShareGroupDescribe", "ShareFetch", "ShareAcknowledge", // 75-79
	"AddRaftVoter", "RemoveRaftVoter", "UpdateRaftVoter", "InitializeShareGroupState", "ReadShareGroupState",
	"WriteShareGroupState", "DeleteShareGroupState", "ReadShareGroupStateSummary", "StreamsGroupHeartbeat",
	"StreamsGroupDescribe",                                                           // 80-89
	"DescribeShareGroupOffsets", "AlterShareGroupOffsets", "DeleteShareGroupOffsets", // 90-92
}

// APIName is the name Kafka gives API key k ("SaslHandshake",
// "AlterPartitionReassignments"); for a key newer than this table, franz-go's
// name, else "Unknown<k>".
func APIName(k int16) string {
	if k >= 0 && int(k) < len(apiNames) {
		return apiNames[k]
	}
	if n := kmsg.NameForKey(k); n != "" && n != "Unknown" {
		return n
	}
	return fmt.Sprintf("Unknown%d", k)
}

// errorNames are Kafka's Errors enum names where kerr's differ.
var errorNames = map[int16]string{
	kerr.NotLeaderForPartition.Code: "NOT_LEADER_OR_FOLLOWER", // renamed in Kafka 2.6 (KIP-392)
}

// ErrorName is the name of Kafka's Errors enum for a kerr error
// ("NOT_LEADER_OR_FOLLOWER", "TOPIC_ALREADY_EXISTS").
func ErrorName(ke *kerr.Error) string {
	if n, ok := errorNames[ke.Code]; ok {
		return n
	}
	return ke.Message
}

// configSourceNames are the names of Kafka's ConfigEntry.ConfigSource,
// which kafka-configs and the admin client print, by protocol value.
var configSourceNames = map[kmsg.ConfigSource]string{
	kmsg.ConfigSourceDynamicTopicConfig:         "DYNAMIC_TOPIC_CONFIG",
	kmsg.ConfigSourceDynamicBrokerConfig:        "DYNAMIC_BROKER_CONFIG",
	kmsg.ConfigSourceDynamicDefaultBrokerConfig: "DYNAMIC_DEFAULT_BROKER_CONFIG",
	kmsg.ConfigSourceStaticBrokerConfig:         "STATIC_BROKER_CONFIG",
	kmsg.ConfigSourceDefaultConfig:              "DEFAULT_CONFIG",
	kmsg.ConfigSourceDynamicBrokerLoggerConfig:  "DYNAMIC_BROKER_LOGGER_CONFIG",
	kmsg.ConfigSourceClientMetricsConfig:        "DYNAMIC_CLIENT_METRICS_CONFIG",
	kmsg.ConfigSourceGroupConfig:                "DYNAMIC_GROUP_CONFIG",
}

// ConfigSourceName is Kafka's name for where a config value comes from;
// "UNKNOWN" for a value this table does not know.
func ConfigSourceName(s kmsg.ConfigSource) string {
	if n, ok := configSourceNames[s]; ok {
		return n
	}
	return "UNKNOWN"
}

// ConfigSources lists Kafka's config source names, in protocol order.
var ConfigSources = []string{"DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG",
	"STATIC_BROKER_CONFIG", "DEFAULT_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG", "DYNAMIC_CLIENT_METRICS_CONFIG",
	"DYNAMIC_GROUP_CONFIG"}

// TopicConfigNames are the topic-level configs Apache Kafka 4.1 documents
// (org.apache.kafka.common.config.TopicConfig, and the replication
// throttles of QuotaConfig), sorted: what describe_configs of any topic
// lists, pinned against a real 4.1 broker by integration/three. Completion
// offers them where the cluster cannot be asked.
var TopicConfigNames = []string{
	"cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type", "compression.zstd.level",
	"delete.retention.ms", "file.delete.delay.ms", "flush.messages", "flush.ms", "follower.replication.throttled.replicas",
	"index.interval.bytes", "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
	"max.compaction.lag.ms", "max.message.bytes", "message.timestamp.after.max.ms", "message.timestamp.before.max.ms",
	"message.timestamp.type", "min.cleanable.dirty.ratio", "min.compaction.lag.ms", "min.insync.replicas", "preallocate",
	"remote.log.copy.disable", "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes", "retention.ms",
	"segment.bytes", "segment.index.bytes", "segment.jitter.ms", "segment.ms", "unclean.leader.election.enable",
}
