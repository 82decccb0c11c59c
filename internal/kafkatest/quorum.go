package kafkatest

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// LoseQuorum makes a kfake cluster look like a KRaft cluster that has lost
// its metadata quorum, as a real one does with a majority of its voters
// killed. The dead brokers are removed (their listeners closed: connecting
// is refused), and the brokers left answer with the metadata they had when
// the quorum was lost: Metadata, DescribeCluster and DescribeTopicPartitions
// as they were before, the dead brokers still listed, unfenced and leading.
// They hold every DescribeQuorum unanswered, as a broker with no active
// controller to forward it to does. DescribeQuorum is advertised.
func LoseQuorum(t testing.TB, c *kfake.Cluster, dead ...int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(t.Context(), cl)
	require.NoError(t, err)
	dcReq := kmsg.NewPtrDescribeClusterRequest()
	dcReq.IncludeFencedBrokers = true
	described, err := dcReq.RequestWith(t.Context(), cl)
	require.NoError(t, err)
	topics, err := kmsg.NewPtrDescribeTopicPartitionsRequest().RequestWith(t.Context(), cl)
	require.NoError(t, err)
	require.Nil(t, topics.NextCursor, "LoseQuorum: the topics fit one page")

	Advertise(t, c, kmsg.DescribeQuorum)
	for _, id := range dead {
		require.NoError(t, c.RemoveNode(id))
	}
	c.ControlKey(int16(kmsg.Metadata), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req, resp := r.(*kmsg.MetadataRequest), *meta
		resp.SetVersion(req.GetVersion())
		if req.Topics != nil {
			resp.Topics = slices.DeleteFunc(slices.Clone(meta.Topics), func(t kmsg.MetadataResponseTopic) bool {
				return t.Topic == nil || !slices.ContainsFunc(req.Topics, func(rt kmsg.MetadataRequestTopic) bool {
					return rt.Topic != nil && *rt.Topic == *t.Topic
				})
			})
		}
		return &resp, nil, true
	})
	c.ControlKey(int16(kmsg.DescribeCluster), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := *described
		resp.SetVersion(r.GetVersion())
		return &resp, nil, true
	})
	c.ControlKey(int16(kmsg.DescribeTopicPartitions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req, resp := r.(*kmsg.DescribeTopicPartitionsRequest), *topics
		resp.SetVersion(req.GetVersion())
		if len(req.Topics) > 0 {
			resp.Topics = slices.DeleteFunc(slices.Clone(topics.Topics), func(t kmsg.DescribeTopicPartitionsResponseTopic) bool {
				return t.Topic == nil || !slices.ContainsFunc(req.Topics, func(rt kmsg.DescribeTopicPartitionsRequestTopic) bool {
					return rt.Topic == *t.Topic
				})
			})
		}
		return &resp, nil, true
	})
	c.ControlKey(int16(kmsg.DescribeQuorum), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return nil, nil, true // handled, never answered: kfake reads on
	})
}
