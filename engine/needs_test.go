package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestCheckDecidesFromApiVersions: Check reads one ApiVersions answer per
// client and names what a Kafka 4.0 cluster lacks.
func TestCheckDecidesFromApiVersions(t *testing.T) {
	c, fake, _ := newTestClient(t, kfake.MaxVersions(kversion.V4_0_0()))
	var asked int
	fake.ControlKey(int16(kmsg.ApiVersions), func(kmsg.Request) (kmsg.Response, error, bool) {
		fake.KeepControl()
		asked++
		return nil, nil, false
	})
	ctx := context.Background()
	caps, err := c.Capabilities(ctx)
	require.NoError(t, err)
	assert.Equal(t, ModeKRaft, caps.Mode, "kfake finalizes metadata.version")
	assert.Equal(t, int16(0), caps.APIs[int16(kmsg.ListConfigResources)])
	before := asked

	err = c.Check(ctx, NeedAPI(kmsg.ListConfigResources, 1, "4.1"))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "UNSUPPORTED_VERSION", e.Code)
	assert.Equal(t, "needs Kafka 4.1+ (ListConfigResources v1): this cluster's brokers advertise ListConfigResources up to v0", e.Message)
	require.ErrorAs(t, c.Check(ctx, NeedAPI(kmsg.ShareGroupDescribe, 1, "4.1")), &e)
	assert.Equal(t, "needs Kafka 4.1+ (ShareGroupDescribe v1): this cluster's brokers do not advertise ShareGroupDescribe", e.Message)
	require.ErrorAs(t, c.Check(ctx, NeedFeature("share.version", 1, "share groups")), &e)
	assert.Contains(t, e.Message, "share groups are not enabled on this cluster: needs the share.version feature at level 1 or above")
	assert.NoError(t, c.Check(ctx, NeedKRaft(kmsg.DescribeCluster, 0, "2.8")))
	assert.Equal(t, before, asked, "the answer is kept: no second ApiVersions")

	zk := &Capabilities{APIs: map[int16]int16{}, Finalized: map[string]int16{}, Mode: ModeZooKeeper}
	assert.Equal(t, "needs KRaft: this cluster runs ZooKeeper (DescribeQuorum is answered by KRaft clusters only)",
		zk.Lacks(NeedKRaft(kmsg.DescribeQuorum, 0, "3.3")))
	assert.Equal(t, "KRaft, Kafka 3.3+ (DescribeQuorum)", NeedKRaft(kmsg.DescribeQuorum, 0, "3.3").String())
	assert.Equal(t, "feature share.version >= 1 (share groups)", NeedFeature("share.version", 1, "share groups").String())
}
