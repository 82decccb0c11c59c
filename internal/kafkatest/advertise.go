package kafkatest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Advertise makes a kfake cluster's ApiVersions answer list keys it does
// not implement (DescribeQuorum, UnregisterBroker, AddRaftVoter, ...), so a
// ControlKey handler can answer them: kgo refuses to send a request a
// broker does not advertise. Connections made before keep the old list.
func Advertise(t testing.TB, c *kfake.Cluster, keys ...kmsg.Key) {
	t.Helper()
	AdvertiseEdited(t, c, nil, keys...)
}

// AdvertiseEdited is Advertise with the answer passed through edit as
// well (finalized features, say); edit may be nil.
func AdvertiseEdited(t testing.TB, c *kfake.Cluster, edit func(*kmsg.ApiVersionsResponse), keys ...kmsg.Key) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	defer cl.Close()
	real, err := kmsg.NewPtrApiVersionsRequest().RequestWith(t.Context(), cl)
	require.NoError(t, err)
	for _, k := range keys {
		ak := kmsg.NewApiVersionsResponseApiKey()
		ak.ApiKey, ak.MinVersion, ak.MaxVersion = int16(k), 0, kmsg.RequestForKey(int16(k)).MaxVersion()
		real.ApiKeys = append(real.ApiKeys, ak)
	}
	if edit != nil {
		edit(real)
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := *real
		resp.SetVersion(req.GetVersion())
		return &resp, nil, true
	})
}
