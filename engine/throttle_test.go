package engine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The throttle Kafka's tool computes: leader lists the sources, follower the
// destinations that are not sources; every broker involved gets the rate.
func TestThrottlePlan(t *testing.T) {
	p := throttlePlan(map[TopicPartition]move{
		{Topic: "orders", Partition: 10}: {sources: []int32{1, 2}, dests: []int32{3}},
		{Topic: "orders", Partition: 2}:  {sources: []int32{2, 1}, dests: []int32{4, 5}},
		{Topic: "audit", Partition: 0}:   {sources: []int32{0}, dests: nil}, // a leader change only
	}, 5000)
	assert.Equal(t, ThrottlePlan{Rate: 5000, Brokers: []int32{0, 1, 2, 3, 4, 5}, Topics: []TopicThrottle{
		{Topic: "audit", Leader: "0:0", Follower: ""},
		{Topic: "orders", Leader: "2:1,2:2,10:1,10:2", Follower: "2:4,2:5,10:3"},
	}}, p)
	alts := p.Alterations()
	assert.Len(t, alts, 6+2)
	assert.Equal(t, ConfigAlteration{Resource: ConfigResource{ConfigBroker, "0"},
		Set: map[string]string{LeaderThrottledRate: "5000", FollowerThrottledRate: "5000"}}, alts[0])
	assert.Equal(t, ConfigAlteration{Resource: ConfigResource{ConfigTopic, "orders"},
		Set: map[string]string{LeaderThrottledReplicas: "2:1,2:2,10:1,10:2", FollowerThrottledReplicas: "2:4,2:5,10:3"}}, alts[7])
	for _, a := range alts {
		assert.Nil(t, a.Check())
	}
	assert.Equal(t, []string{
		"throttle replication to 5000 B/s on brokers 0,1,2,3,4,5 (leader.replication.throttled.rate, follower.replication.throttled.rate)",
		"topic audit: leader.replication.throttled.replicas=0:0; follower.replication.throttled.replicas=",
		"topic orders: leader.replication.throttled.replicas=2:1,2:2,10:1,10:2; follower.replication.throttled.replicas=2:4,2:5,10:3",
	}, p.Lines())
}

func TestThrottlesFoundLines(t *testing.T) {
	f := ThrottlesFound{
		Brokers: map[int32][]string{2: {LeaderThrottledRate}},
		Topics:  map[string][]string{"orders": {FollowerThrottledReplicas, LeaderThrottledReplicas}},
		Kept:    map[int32][]string{},
	}
	assert.Equal(t, []string{
		"remove the replication throttle from broker:2: leader.replication.throttled.rate",
		"remove the replication throttle from topic:orders: follower.replication.throttled.replicas, leader.replication.throttled.replicas",
	}, f.Lines())
	assert.False(t, f.Empty())
	assert.True(t, ThrottlesFound{Kept: map[int32][]string{1: {LeaderThrottledRate}}}.Empty())
	assert.Equal(t, []string{"keep the replication throttle rates of brokers 1: reassignments still in progress (t[0])"},
		ThrottlesFound{Kept: map[int32][]string{1: {LeaderThrottledRate}}, StillMoving: []string{"t[0]"}}.Lines())
	// Thousands of partitions still moving: the line names the first few.
	var moving []string
	for p := range 2000 {
		moving = append(moving, fmt.Sprintf("big[%d]", p))
	}
	assert.Equal(t, []string{"keep the replication throttle rates of brokers 1: reassignments still in progress (big[0], big[1], big[2], big[3], big[4] and 1995 more)"},
		ThrottlesFound{Kept: map[int32][]string{1: {LeaderThrottledRate}}, StillMoving: moving}.Lines())
}
