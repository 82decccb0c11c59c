package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kadmin-lua/kadmin-lua/internal/kafkatest"
)

// kgo fails a request to a broker whose connection died (a broker killed
// under it, or one that stayed listed after it died) with its unexported
// errChosenBrokerDead. It is the network's failure, which another broker
// may not share: with a quorum lost, describe_topics died of it as an
// UNKNOWN error (exit 1) instead of asking the broker that answers.
func TestBrokerConnectionDiedIsANetworkError(t *testing.T) {
	e := AsError(errors.New("the broker connection has died and the request will be retried on a new connection"), "")
	assert.Equal(t, CodeNetwork, e.Code)
	assert.True(t, e.Retriable)
}

// A quorum that answers with an error other than "not allowed" is
// unknown: so are the brokers' states, and each broker is asked whether it
// answers.
func TestDescribeClusterQuorumUnknown(t *testing.T) {
	cl, c, _ := newTestClient(t)
	kafkatest.Advertise(t, c, kmsg.DescribeQuorum)
	c.ControlKey(int16(kmsg.DescribeQuorum), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := r.ResponseKind().(*kmsg.DescribeQuorumResponse)
		resp.ErrorCode = kerr.UnknownServerError.Code
		return resp, nil, true
	})
	got, err := cl.DescribeCluster(context.Background())
	require.NoError(t, err)
	assert.Equal(t, QuorumUnknown, got.Quorum)
	assert.Equal(t, "UNKNOWN_SERVER_ERROR: The server experienced an unexpected error when processing the request.", got.QuorumError)
	assert.Nil(t, got.ActiveController)
	require.Len(t, got.Brokers, 3)
	for _, b := range got.Brokers {
		assert.Equal(t, BrokerUnknown, b.State, "broker %d", b.ID)
		require.NotNil(t, b.Reachable, "broker %d", b.ID)
		assert.True(t, *b.Reachable, "broker %d answers", b.ID)
	}
	assert.Nil(t, got.Topics, "DescribeCluster returns no topics")
}
