package repl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// Streams groups (KIP-1071) complete where a group does: kfake has none,
// kafkatest.FakeStreams lists one as a Kafka 4.x broker would.
func TestCompleteStreamsGroupNames(t *testing.T) {
	e := newEnv(t)
	kafkatest.NewFakeStreams(t, e.cluster, nil, kafkatest.RecordedStreamsGroup(t, "stable", "billing-streams"))
	e.createTopic("orders", 1)
	e.commitGroup("billing-consumer", "orders")

	_, complete := e.completer(time.Minute, 10*time.Second)
	for line, want := range map[string][]string{
		`lag("bil`:                     {"billing-consumer", "billing-streams"},
		`describe_streams_groups("bil`: {"billing-consumer", "billing-streams"},
		`reset_offsets{group = "bil`:   {"billing-consumer", "billing-streams"},
		`delete_groups{"billing-s`:     {"billing-streams"},
	} {
		got, _ := complete(line)
		assert.Equal(t, want, got, line)
	}
}
