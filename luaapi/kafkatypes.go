package luaapi

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/kadmin-lua/kadmin-lua/internal/topicname"
)

// The argument types of Kafka's own fields, declared once so every function
// checks a partition, an offset or a topic name the same way, with the
// width of the field the value fills on the wire.
var (
	// topicName follows Kafka's rules (org.apache.kafka.common.internals.Topic):
	// 1 to 249 characters of [a-zA-Z0-9._-], not "." or "..". It names an
	// existing topic: the REPL completes it with the cluster's topics.
	topicName = NonEmptyStr().Checked("topic name", topicname.Check).Sample("t").Naming(NameTopic)
	// newTopicName is a topic to be created: checked as topicName, never
	// completed with the names already taken.
	newTopicName = topicName.Naming("")
	// topicNames is a topic name or an array of them.
	topicNames = List[string](topicName)
	groupID    = NonEmptyStr().Checked("group id", nil).Sample("g").Naming(NameGroup)
	groupIDs   = List[string](groupID)

	partitionNum      = Int32(0).Named("partition")
	partitionCount    = Int32(1).Named("partition count")
	replicationFactor = Int16(1).Named("replication factor")
	brokerID          = Int32(0).Named("broker id").Naming(NameBroker)
	configName        = NonEmptyStr().Naming(NameConfig) // a config's name: completed from the cluster
	brokerIDList      = List[int32](brokerID)
	offsetNum         = Int64(0).Named("offset")
	leaderEpoch       = Int32(-1).Named("leader epoch")
	timestampMs       = Int64(0).Named("timestamp in ms")
	durationMs        = Int64(1).Between(1, maxDurationMillis).Named("duration in ms")
	producerID        = Int64(0).Named("producer id")
	producerEpoch     = Int16(-1).Named("producer epoch")

	// principal is TYPE:NAME ("User:alice"), as kafka-acls wants it, in
	// filters as strictly as in creators.
	principal = NonEmptyStr().Checked("principal TYPE:NAME", checkPrincipal).Sample("User:alice").Naming(NamePrincipal)
)

// maxDurationMillis is the longest duration in milliseconds a time.Duration holds
// (about 292 years): a larger one would overflow when converted.
const maxDurationMillis = math.MaxInt64 / int64(time.Millisecond)

func checkPrincipal(s string) error {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return fmt.Errorf("must be TYPE:NAME such as \"User:alice\", got %q", s)
	}
	return nil
}
