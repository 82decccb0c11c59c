package engine

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// Real Kafka answers Metadata for a partition whose only replica's broker
// is dead with LEADER_NOT_AVAILABLE, leader -1 and that replica in
// offline_replicas. describe_topics shows such a partition as it is
// instead of retrying the whole topic until the deadline (found on the
// 3-node real-Kafka suite, integration/three TestBrokerLoss); a partition
// without a leader and without offline replicas (a topic being created) is
// still asked again.
func TestDescribeOfflinePartition(t *testing.T) {
	// A broker before Kafka 3.8, asked with Metadata: the same rules hold
	// for DescribeTopicPartitions answers (describedTopic).
	v := kversion.Stable()
	v.SetMaxKeyVersion(int16(kmsg.DescribeTopicPartitions), -1)
	cl, c, _ := newTestClient(t, kfake.MaxVersions(v))
	addrs := c.ListenAddrs()
	c.ControlKey(int16(kmsg.Metadata), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := req.ResponseKind().(*kmsg.MetadataResponse)
		for i, a := range addrs {
			host, port, _ := net.SplitHostPort(a)
			p, _ := strconv.Atoi(port)
			b := kmsg.NewMetadataResponseBroker()
			b.NodeID, b.Host, b.Port = int32(i), host, int32(p)
			resp.Brokers = append(resp.Brokers, b)
		}
		resp.ControllerID = 0
		for _, name := range []string{"offline", "electing"} {
			tp := kmsg.NewMetadataResponseTopic()
			tp.Topic = kmsg.StringPtr(name)
			tp.TopicID = [16]byte{1, byte(len(name))}
			p0 := kmsg.NewMetadataResponseTopicPartition()
			p0.Partition, p0.Leader, p0.Replicas, p0.ISR = 0, 0, []int32{0}, []int32{0}
			p1 := kmsg.NewMetadataResponseTopicPartition()
			p1.Partition, p1.Leader, p1.Replicas, p1.ISR = 1, -1, []int32{1}, []int32{1}
			p1.ErrorCode = kerr.LeaderNotAvailable.Code
			if name == "offline" {
				p1.OfflineReplicas = []int32{1}
			}
			tp.Partitions = []kmsg.MetadataResponseTopicPartition{p0, p1}
			resp.Topics = append(resp.Topics, tp)
		}
		return resp, nil, true
	})

	began := time.Now()
	descs, err := cl.DescribeTopics(context.Background(), []string{"offline"})
	require.NoError(t, err)
	require.Len(t, descs, 1)
	d := descs[0]
	assert.Nil(t, d.Err, "an offline partition does not fail the topic")
	require.Len(t, d.Partitions, 2)
	assert.Equal(t, int32(0), d.Partitions[0].Leader)
	assert.Nil(t, d.Partitions[0].Err)
	assert.Equal(t, int32(-1), d.Partitions[1].Leader)
	assert.Equal(t, []int32{1}, d.Partitions[1].OfflineReplicas)
	require.NotNil(t, d.Partitions[1].Err)
	assert.Equal(t, "LEADER_NOT_AVAILABLE", d.Partitions[1].Err.Code)
	assert.Less(t, time.Since(began), 4*time.Second, "answered, not retried until the 5s deadline")

	// No offline replica: a leader being elected; retried until the deadline.
	descs, err = cl.DescribeTopics(context.Background(), []string{"electing"})
	require.NoError(t, err)
	require.NotNil(t, descs[0].Err)
	assert.Equal(t, CodeTimeout, descs[0].Err.Code)
}
